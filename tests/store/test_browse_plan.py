"""Broad text queries switch to the index-scan plan and still page in exactly SQL order."""

from __future__ import annotations

import pytest

from memdesk.core.store import fts
from memdesk.core.store.browse import fetch_page
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from tests.helpers.oracle import sql_order


def all_pages(store: MemoryStore, flt: MemoryFilter, order_by: str, desc: bool) -> list[str]:
    ids: list[str] = []
    rows, cur = fetch_page(store, flt, order_by=order_by, descending=desc, limit=37)
    ids += [r.id for r in rows]
    while cur is not None:
        rows, cur = fetch_page(store, flt, order_by=order_by, descending=desc, after=cur, limit=37)
        ids += [r.id for r in rows]
    return ids


@pytest.mark.parametrize("order_by", ["created_at", "importance", "topic", "status", "text"])
@pytest.mark.parametrize("desc", [True, False])
def test_broad_query_pages_match_sql_order(demo_store: MemoryStore, monkeypatch, order_by,
                                           desc) -> None:
    flt = MemoryFilter(text="user")
    expected = sql_order(demo_store, flt, order_by, desc)
    assert len(expected) > 100
    with demo_store.read() as conn:
        assert not fts.is_broad(conn, "user")  # default threshold: small store, lookup plan
    assert all_pages(demo_store, flt, order_by, desc) == expected
    monkeypatch.setattr(fts, "BROAD_MATCHES", 50)
    with demo_store.read() as conn:
        assert fts.is_broad(conn, "user") and not fts.is_broad(conn, "kayak")
    assert all_pages(demo_store, flt, order_by, desc) == expected


def test_scan_plan_uses_the_sort_index(demo_store: MemoryStore) -> None:
    from sqlalchemy import select

    from memdesk.core.store.models import Memory

    m = Memory.__table__.c
    flt = MemoryFilter(text="user", text_scan=True)
    stmt = select(m.seq).where(*flt.clauses("sqlite")).order_by(m.created_at.desc()).limit(5)
    with demo_store.read() as conn:
        sql = str(stmt.compile(conn, compile_kwargs={"literal_binds": True}))
        plan = " ".join(str(r) for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql))
    assert "ix_memories_created_at" in plan and "TEMP B-TREE" not in plan
