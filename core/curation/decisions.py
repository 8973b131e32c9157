"""Every sweep decision as one row for learning and estimating: which sweep and band,
how the item was picked (uniform draw with its inclusion probability, or guided), the
importance before and after, and whether the memory was raised or lowered.

A decision whose audit event was undone does not count (as in the sweep itself);
skipped items say nothing about the memory and are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, select

from memdesk.core.curation.learning_models import SweepPick
from memdesk.core.curation.models import Sweep, SweepItem
from memdesk.core.store.audit import is_undone
from memdesk.core.store.models import MemoryEvent

S = Sweep.__table__.c
I = SweepItem.__table__.c  # noqa: E741
K = SweepPick.__table__.c
E = MemoryEvent.__table__.c


@dataclass(frozen=True)
class Decision:
    sweep_id: str
    pos: int
    memory_id: str
    band: tuple[float, float]
    whole_band: bool  # the sweep had no user or type filter
    population: int | None
    sweep_n: int  # items in the sweep
    guided: bool
    inclusion_p: float | None  # None: an older uniform sweep (n / population applies)
    before: float
    after: float

    @property
    def raised(self) -> bool:
        return self.after > self.before

    @property
    def lowered(self) -> bool:
        return self.after < self.before


def load_decisions(conn: Connection) -> list[Decision]:
    """All standing keep/revalue decisions, oldest sweep first."""
    rows = conn.execute(
        select(I.sweep_id, I.pos, I.memory_id, I.importance_before, I.importance_after,
               I.decision, E.undone_by, S.band_lo, S.band_hi, S.user_id, S.type,
               S.population, S.created_at, K.guided, K.inclusion_p)
        .select_from(SweepItem.__table__
                     .join(Sweep.__table__, S.id == I.sweep_id)
                     .outerjoin(MemoryEvent.__table__, E.id == I.event_id)
                     .outerjoin(SweepPick.__table__,
                                (K.sweep_id == I.sweep_id) & (K.pos == I.pos)))
        .where(I.decision.in_(("revalue", "keep")))
        .order_by(S.created_at, I.sweep_id, I.pos)
    ).all()
    sizes: dict[str, int] = {}
    for sid in {r.sweep_id for r in rows}:
        sizes[sid] = len(conn.execute(select(I.pos).where(I.sweep_id == sid)).all())
    out = []
    for r in rows:
        if r.importance_after is None or is_undone(conn, r.undone_by):
            continue
        out.append(Decision(
            r.sweep_id, r.pos, r.memory_id, (float(r.band_lo), float(r.band_hi)),
            r.user_id is None and r.type is None, r.population, sizes[r.sweep_id],
            bool(r.guided), None if r.inclusion_p is None else float(r.inclusion_p),
            float(r.importance_before), float(r.importance_after),
        ))
    return out


def latest_per_memory(decisions: list[Decision]) -> list[Decision]:
    """One decision per memory (its latest), for training."""
    seen: dict[str, Decision] = {}
    for d in decisions:
        seen[d.memory_id] = d
    return list(seen.values())
