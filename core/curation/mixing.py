"""A sweep's sample when it mixes uniform draws with guided picks, and the record of how
each item was picked (``sweep_picks``).

The uniform part is drawn exactly as in a plain sweep (``sampling.sample_band``), with
``n_uniform`` items; each gets its inclusion probability ``n_uniform / population``.  The
guided part is the top-scoring unreviewed memories, chosen after the uniform draw and
never among its items, so the uniform part stays a uniform sample of the band.  The two
are shuffled together so the operator cannot tell which is which while deciding.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import SupportsFloat, cast

from sqlalchemy import Connection, Table, insert, select

from memdesk.core.curation import guided as G
from memdesk.core.curation.decisions import latest_per_memory, load_decisions
from memdesk.core.curation.learning_models import SweepPick
from memdesk.core.curation.sampling import Sample
from memdesk.core.errors import ValidationError
from memdesk.core.store.memory_store import MemoryStore

# Declarative types __table__ as a FromClause; this model maps a plain Table.
PT = cast(Table, SweepPick.__table__)
K = PT.c


def check_guided(value: object) -> float:
    """The guided share of a sweep, 0 (all uniform) to 1 (all guided)."""
    if isinstance(value, bool):
        raise ValidationError("guided", f"must be a share from 0 to 1, got {value!r}")
    try:
        # anything else fails float() and is reported below
        f = float(cast(SupportsFloat, value))
    except (TypeError, ValueError):
        raise ValidationError("guided", f"must be a share from 0 to 1, got {value!r}") from None
    if math.isnan(f) or not 0.0 <= f <= 1.0:
        raise ValidationError("guided", f"must be a share from 0 to 1, got {value!r}")
    return f


@dataclass(frozen=True)
class Plan:
    """How many of each kind a sweep will have, and the guided candidates."""

    n: int
    n_guided: int
    candidates: tuple[G.GuidedPick, ...]
    model_id: str | None
    cold_start: str | None  # why the sweep is all uniform although guided was asked

    @property
    def n_uniform(self) -> int:
        return self.n - self.n_guided


def plan(store: MemoryStore, band: tuple[float, float], n: int, share: float, *,
         user: str | None = None, type_: str | None = None) -> Plan:
    """Read the model and score the band (outside the write transaction: on a large
    band scoring takes seconds and must not hold the writer)."""
    want = round(n * share)
    if want == 0:
        return Plan(n, 0, (), None, None)
    with store.read() as conn:
        model = G.latest(conn)
        if model is None:
            reason = G.cold_start_reason(latest_per_memory(load_decisions(conn)))
            return Plan(n, 0, (), None, reason or "No guided model trained yet; "
                        "train it (memdesk sweep train) to guide sweeps.")
        # As many spares as the uniform part could take from the top.
        cands = G.top_unreviewed(conn, model, band, want + (n - want), user=user,
                                 type_=type_)
    return Plan(n, want, tuple(cands), model.id, None)


@dataclass(frozen=True)
class Mixed:
    rows: tuple[tuple[str, float], ...]  # (memory id, importance) in review order
    picks: tuple[dict[str, object], ...]  # sweep_picks rows without sweep_id


def mix(p: Plan, sample: Sample, rng: random.Random) -> Mixed:
    """Uniform draws plus the best candidates not among them, shuffled."""
    taken = {mid for mid, _ in sample.rows}
    guided = [c for c in p.candidates if c.memory_id not in taken][: p.n_guided]
    n_u = len(sample.rows)
    pi = min(1.0, n_u / sample.population) if sample.population and n_u else 1.0
    entries: list[tuple[tuple[str, float], dict[str, object]]] = [
        ((mid, imp), dict(guided=False, inclusion_p=pi, score=None, reason=None,
                          model_id=None))
        for mid, imp in sample.rows
    ]
    entries += [((c.memory_id, c.importance),
                 dict(guided=True, inclusion_p=1.0, score=c.score, reason=c.reason,
                      model_id=p.model_id)) for c in guided]
    if guided:
        rng.shuffle(entries)
    rows = tuple(e[0] for e in entries)
    picks = tuple(dict(e[1], pos=i) for i, e in enumerate(entries))
    return Mixed(rows, picks)


def record(conn: Connection, sweep_id: str, picks: Sequence[dict[str, object]]) -> None:
    if picks:
        conn.execute(insert(PT), [dict(pk, sweep_id=sweep_id) for pk in picks])


@dataclass(frozen=True)
class PickInfo:
    pos: int
    guided: bool
    inclusion_p: float
    score: float | None
    reason: str | None


def picks_of(store: MemoryStore, sweep_id: str) -> dict[int, PickInfo]:
    """How each item of a sweep was picked (empty: an older, all-uniform sweep)."""
    with store.read() as conn:
        rows = conn.execute(select(PT).where(K.sweep_id == sweep_id)).all()
    return {r.pos: PickInfo(r.pos, bool(r.guided), float(r.inclusion_p), r.score, r.reason)
            for r in rows}
