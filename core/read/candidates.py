"""What one retrieval's read found: the channels' rankings and the candidates' hits.

The retriever reads in one transaction (core/read/retriever.py, ``_gather``) and then
ranks in memory; this is the value that passes between the two.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memdesk.core.read import channels as ch
from memdesk.core.read import fusion

if TYPE_CHECKING:
    import numpy as np
    from sqlalchemy import Row

    from memdesk.core.read.injection import Cursor, Preference
    from memdesk.core.read.snapshot import UserSnapshot


@dataclass
class Candidates:
    """One query's candidates over one user's snapshot."""

    snap: UserSnapshot
    ok: np.ndarray  # the snapshot rows this call may return (confidence, scope)
    used: tuple[str, ...]  # the channels that ran
    kw: ch.KeywordHits
    vec: ch.VectorHits
    gr: ch.GraphHits
    hits: dict[int, fusion.Hit]  # every candidate, by seq, with its episode attached
    task: list[int]  # a task prompt's preferences, first in the results
    access: dict[int, tuple[datetime | None, int]]  # seq -> (last accessed, count)
    prefs: list[Preference]  # the user's active preferences (when injecting)
    relevant: list[Preference]  # those that relate to the query, best first
    do_inject: bool
    cursor: Cursor | None  # where the injection's rotation stands

    def per_channel(self) -> dict[str, list[fusion.Hit]]:
        """Each channel's own ranking of the candidates (the inspector shows it)."""
        return {
            "fts": [self.hits[s] for s in self.kw.ranked if s in self.hits],
            "vector": [self.hits[s] for s in self.vec.ranked if s in self.hits],
            "graph": [self.hits[s] for s in self.gr.ranked if s in self.hits],
        }


def candidate_hits(seqs: list[int], rows: Mapping[int, Row[Any]], kw: ch.KeywordHits,
                   vec: ch.VectorHits, gr: ch.GraphHits, pool_a: list[int],
                   pool_c: list[int]) -> dict[int, fusion.Hit]:
    """A hit per candidate that is still active (its row loaded), with its channel
    ranks and the pool that brought it."""
    hits: dict[int, fusion.Hit] = {}
    for s in seqs:
        r = rows.get(s)
        if r is None:
            continue
        hits[s] = fusion.Hit(
            seq=s, id=r.id, text=r.text, type=r.type, layer=r.layer, user_id=r.user_id,
            created_at=r.created_at, importance=r.importance, confidence=r.confidence,
            cosine=vec.cosine(s), keyword_share=kw.share.get(s),
            graph_via=gr.via.get(s),
        )
    for name, ranked in (("fts", kw.ranked), ("vector", vec.ranked), ("graph", gr.ranked)):
        for i, s in enumerate(ranked, 1):
            if s in hits:
                hits[s].ranks[name] = i
    recent = set(pool_a)
    for s, h in hits.items():
        h.pool = kw.pool.get(s) or ("A" if s in recent else "C" if s in pool_c else None)
    return hits
