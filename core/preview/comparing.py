"""The preview's second pass: user by user, the file's importable items against that
user's stored memories, through the curation queues' own finders.

- Duplicates: ``Duplicates.find_with``, the duplicates queue's clustering (same
  normalised text, or vectors at the operator's threshold whose values do not differ)
  with the file's items among the user's memories.  A cluster holding a stored memory
  makes every item in it a duplicate of the store; a cluster of items only keeps the
  one the queue would suggest keeping (the newest of the highest confidence) and makes
  the others duplicates of each other.  Those are what "without the duplicates" skips.
- Contradictions: ``Contradictions.find_with``, the contradictions queue's grouping
  (same user, entity and attribute, values that differ once normalised, attributes
  that hold one value at a time).  An item contradicts the store when a stored member
  of its group holds another value.

Items get seqs below 0 (minus their number), so they never meet a stored memory's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import select

from memdesk.core.curation.duplicates import Cluster, Duplicates
from memdesk.core.curation.service import Contradictions
from memdesk.core.preview.report import MAX_GROUPS, Findings, Group, ImportPreview, Member
from memdesk.core.preview.scratch import Kept, Scratch
from memdesk.core.store.episodes import EPISODE_TYPE
from memdesk.core.store.models import Memory
from memdesk.core.write import duplicates as W

M = Memory.__table__.c
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]


def _dup_row(k: Kept) -> W.Row:
    return W.Row(-k.number, k.id, k.text, k.entity, k.attribute, k.value, k.confidence,
                 k.created_at, k.vector)


def _con_row(k: Kept) -> tuple[Any, ...]:
    t = datetime.fromisoformat(k.created_at)
    return (k.user_id, k.entity, k.attribute, k.value, 1, str(-k.number), t, t,
            t if k.type == "correction" else None)


def compare(store: Any, scratch: Scratch, preview: ImportPreview, *,
            threshold: float | None = None, progress: Progress | None = None,
            cancelled: Cancelled = lambda: False) -> None:
    """Fill ``preview.duplicates``, ``preview.contradictions`` and ``preview.skip``."""
    dups, cons = Duplicates(store), Contradictions(store)
    threshold = dups.threshold() if threshold is None else threshold
    with store.read() as conn:
        stored_users = set(W.active_users(conn))
    users = scratch.users()
    for n, user in enumerate(users):
        if cancelled():
            preview.cancelled = True
            return
        kept = list(scratch.of_user(user))
        text_of = {-k.number: k for k in kept}
        in_store = user in stored_users
        extra = [_dup_row(k) for k in kept if k.type != EPISODE_TYPE]
        for c in dups.find_with(user, extra, threshold=threshold, in_store=in_store):
            _count_cluster(preview, c)
        triples = [_con_row(k) for k in kept
                   if k.entity is not None and k.attribute is not None and k.value is not None]
        if triples:
            for g in cons.find_with(user, triples, in_store=in_store):
                _count_group(preview.contradictions, g, user, text_of, store)
        if progress:
            progress(n + 1, len(users))


def _count_cluster(preview: ImportPreview, c: Cluster) -> None:
    f = preview.duplicates
    mine = [m for m in c.members if m.seq < 0]
    if len(mine) < len(c.members):
        f.of_store += len(mine)
        preview.skip.update(-m.seq for m in mine)
    else:
        f.within_file += len(mine) - 1
        preview.skip.update(-m.seq for m in mine if m.id != c.suggested)
    f.add(Group("duplicates", c.user_id, tuple(
        Member(m.id, m.text, -m.seq if m.seq < 0 else None) for m in c.members),
        c.suggested))


def _count_group(f: Findings, g: Any, user: str, items: dict[int, Kept], store: Any) -> None:
    stored_values = {v.norm for v in g.values if any(s > 0 for s in v.seqs)}
    members: list[Member] = []
    stored_seqs: list[int] = []
    for v in g.values:
        for s in v.seqs:
            if s < 0:
                k = items[s]
                members.append(Member(k.id, k.text, k.number, k.value))
                if stored_values - {v.norm}:
                    f.of_store += 1
                else:
                    f.within_file += 1
            else:
                stored_seqs.append(s)
    if len(f.groups) < MAX_GROUPS:  # only listed groups show their stored members
        members.extend(_stored_members(store, stored_seqs))
    f.add(Group(g.kind, user, tuple(members), f"{g.entity}.{g.attribute}"))


def _stored_members(store: Any, seqs: list[int]) -> list[Member]:
    if not seqs:
        return []
    with store.read() as conn:
        rows = conn.execute(select(M.id, M.text, M.value).where(M.seq.in_(seqs[:100]))).all()
    return [Member(r.id, r.text, None, r.value) for r in rows]
