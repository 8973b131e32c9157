"""Independent oracles for tests: what plain SQL says, without the code under test."""

from __future__ import annotations

from sqlalchemy import select

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory
from memdesk.core.store.query import SORTABLE, MemoryFilter, status_expression


def sql_order(store: MemoryStore, flt: MemoryFilter | None = None, order_by: str = "created_at",
              desc: bool = True, limit: int | None = None) -> list[str]:
    """Ids in ``ORDER BY key, seq`` order straight from SQL: what the keyset pages of
    the browser and the store must reproduce."""
    m = Memory.__table__.c
    key = status_expression() if order_by == "status" else SORTABLE[order_by]
    # NULLs first ascending (SQLite's default) on every backend: the store's promise.
    order = ([key.desc().nulls_last(), m.seq.desc()] if desc
             else [key.asc().nulls_first(), m.seq.asc()])
    stmt = select(m.id).where(*(flt or MemoryFilter()).clauses(store.dialect)).order_by(*order)
    if limit is not None:
        stmt = stmt.limit(limit)
    with store.read() as conn:
        return list(conn.execute(stmt).scalars())
