"""Pruning episodes: the operator's bulk removal of old turns nobody needs.

Every turn is kept as said (core/write/episodes.py), so a busy agent's store grows by
one episode per turn.  What an operator can let go without losing anything an agent
uses: episodes older than N days that no retrieval ever returned and from which no
active unit is kept (what the extractor made of the turn, if anything, stays).  The
plan is a dry run (how many, how much space: text and vector bytes); the prune is one
audited, undoable action (a soft delete of the group: Edit → Undo or ``memdesk undo``
brings them all back), and a purge of deleted rows is the store's ordinary business.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, exists, func, select

from memdesk.core.errors import ValidationError
from memdesk.core.ids import utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.episodes import EPISODE_TYPE, ET, E
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryProvenance, MemoryVector
from memdesk.core.store.records import Changes

M = Memory.__table__.c
P = MemoryProvenance.__table__.c
V = MemoryVector.__table__.c
VECTOR_BYTES = 384 * 4


@dataclass(frozen=True)
class PrunePlan:
    """What a prune would remove: ids, how many, and about how many bytes."""

    older_than_days: float
    cutoff: datetime
    ids: tuple[str, ...]
    text_bytes: int
    vector_bytes: int

    @property
    def count(self) -> int:
        return len(self.ids)

    @property
    def bytes(self) -> int:
        return self.text_bytes + self.vector_bytes

    def describe(self) -> str:
        n = self.count
        noun = "episode" if n == 1 else "episodes"
        return (f"{n:,} {noun} said before {self.cutoff:%Y-%m-%d}, never recalled and "
                f"with no unit kept: about {_size(self.bytes)} (text and vectors)")


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n //= 1024
    return f"{n} GB"


class EpisodePruning:
    """The dry run and the prune, over one store."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def plan(self, older_than_days: float, *, user: str | None = None,
             include_recalled: bool = False, include_with_units: bool = False,
             now: datetime | None = None) -> PrunePlan:
        if (isinstance(older_than_days, bool) or not isinstance(older_than_days, int | float)
                or not older_than_days >= 0):
            raise ValidationError("older_than", f"must be a number of days ≥ 0, got "
                                  f"{older_than_days!r}")
        cutoff = (now or utcnow()) - timedelta(days=float(older_than_days))
        when = func.coalesce(E.said_at, M.created_at)
        conds = [M.type == EPISODE_TYPE, M.deleted_at.is_(None), when < cutoff]
        if user is not None:
            conds.append(M.user_id == user)
        if not include_recalled:
            conds.append(M.access_count == 0)
        if not include_with_units:
            unit = Memory.__table__.alias("unit")
            conds.append(~exists(select(P.memory_id).select_from(
                MemoryProvenance.__table__.join(unit, unit.c.id == P.memory_id)).where(
                P.episode_id == M.id, and_(unit.c.deleted_at.is_(None),
                                           unit.c.valid_until.is_(None)))))
        stmt = (select(M.id, func.length(M.text), V.seq.is_not(None))
                .select_from(Memory.__table__.join(ET, E.memory_id == M.id)
                             .outerjoin(MemoryVector.__table__, V.seq == M.seq))
                .where(*conds).order_by(M.seq))
        ids: list[str] = []
        text = vectors = 0
        with self.store.read() as conn:
            for mid, length, has_vector in conn.execute(stmt):
                ids.append(mid)
                text += int(length or 0)
                vectors += VECTOR_BYTES if has_vector else 0
        return PrunePlan(float(older_than_days), cutoff, tuple(ids), text, vectors)

    def prune(self, plan: PrunePlan, *, actor: str = "operator") -> Changes:
        """Soft-delete the plan's episodes as one undoable group."""
        if not plan.ids:
            raise ValidationError("older_than", "no episode matches: nothing to prune")
        return self.store.bulk_update(list(plan.ids), actor=actor, action=acts.PRUNE_EPISODES,
                                      note=plan.describe(), deleted_at=utcnow())

