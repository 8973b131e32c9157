"""Store summary figures (counts by status, type and layer) for overviews and status bars."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory

M = Memory.__table__.c


@dataclass(frozen=True)
class StoreSummary:
    total: int
    by_status: dict[str, int]
    by_type: dict[str, int]
    by_layer: dict[str, int]


def summarize(store: MemoryStore) -> StoreSummary:
    counts = store.counts()
    live = M.deleted_at.is_(None)
    with store.read() as conn:
        by_type: dict[str, int] = dict(
            conn.execute(
                select(M.type, func.count()).where(live).group_by(M.type).order_by(M.type)
            ).all()
        )
        by_layer = {
            (k or ""): v
            for k, v in conn.execute(
                select(M.layer, func.count()).where(live).group_by(M.layer).order_by(M.layer)
            ).all()
        }
    total = counts.pop("total")
    return StoreSummary(total, counts, by_type, by_layer)
