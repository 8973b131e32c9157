"""Migrations: a Recall (the write-phase design) store upgrades in place without loss, with a
backup."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.schema import (
    REVISIONS,
    OpenReport,
    head_revision,
    script_revisions,
)
from tests.helpers.recall import make_recall_store


def test_recall_store_upgrades_without_loss(tmp_path: Path) -> None:
    path = make_recall_store(tmp_path / "recall.db")
    store = MemoryStore.open(path, allow_upgrade=True)
    rep = store.report
    assert rep is not None and rep.upgraded_from == "0001" and rep.upgraded_to == head_revision()
    assert rep.backup is not None and rep.backup.exists()
    assert "Upgraded" in (rep.message or "")
    assert store.counts()["total"] == 50
    r5 = store.get("r5")
    assert r5.text == "Recall memory number 5 about kayaks"
    assert r5.created_at == datetime(2025, 1, 6, 8, 0, 0, 123000)  # +02:00 → UTC, ms kept
    assert r5.access_count == 5 and r5.embedding == b"\x00\x00\x80?" * 3
    with store.read() as conn:  # every Recall vector moved to memory_vectors (0012)
        assert conn.exec_driver_sql(
            "SELECT count(*), count(DISTINCT vector) FROM memory_vectors").one() == (50, 1)
    assert r5.layer == "semantic"  # migration 0008 routed the fact
    r0 = store.get("r0")
    assert r0.superseded_by == "r1" and r0.status is Status.SUPERSEDED
    assert store.count(MemoryFilter(text="kayaks")) == 50  # FTS index built from old rows
    # the backup is the untouched original
    old = sqlite3.connect(rep.backup)
    assert old.execute("SELECT count(*) FROM memories").fetchone()[0] == 50
    versioned = "SELECT name FROM sqlite_master WHERE name='alembic_version'"
    assert old.execute(versioned).fetchone() is None
    old.close()
    store.close()
    again = MemoryStore.open(path)
    assert again.report is not None and again.report.message is None  # already current
    again.close()


def test_fresh_store_is_created_at_head(store_path: Path) -> None:
    store = MemoryStore.open(store_path)  # a new file (the `store` fixture copies one)
    assert store.report is not None and store.report.created
    assert store.report.message == f"Created a new store at {store.url}"
    # Created, nothing upgraded, no backup, writable; a new file has no open check.
    assert store.report == OpenReport(store.url, True, None, None, None, False, None)
    with store.read() as conn:
        rev = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        fk = conn.exec_driver_sql("PRAGMA foreign_keys").scalar()
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
    store.close()
    assert rev == head_revision() and fk == 1 and mode == "wal"
    again = MemoryStore.open(store_path)
    assert again.report is not None and not again.report.created
    again.close()


def test_store_keeps_working_after_upgrade(tmp_path: Path) -> None:
    store = MemoryStore.open(make_recall_store(tmp_path / "r.db", rows=2), allow_upgrade=True)
    rec = store.add(user_id="alice", text="new after upgrade", type="note")
    assert rec.seq > 2
    store.update("r1", text="edited kayak memory")
    assert store.count(MemoryFilter(text="edited")) == 1
    store.close()


def test_revision_constants_match_the_scripts() -> None:
    assert script_revisions() == list(REVISIONS)


def test_active_queries_do_not_use_the_superseded_index(demo_store: MemoryStore) -> None:
    """After ANALYZE, a full index on superseded_by looked 'nearly unique' to SQLite and
    was chosen for IS NULL (every active query); migration 0006 made it partial."""
    from sqlalchemy import func, select

    from memdesk.core.store.models import Memory
    from memdesk.core.store.query import active_belief_state

    m = Memory.__table__.c
    with demo_store.read() as conn:
        conn.exec_driver_sql("ANALYZE")
        stmt = select(func.count()).where(active_belief_state(), m.importance.between(0.3, 0.49))
        sql = str(stmt.compile(conn, compile_kwargs={"literal_binds": True}))
        plan = " ".join(str(r) for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql))
        chain = conn.exec_driver_sql(
            "EXPLAIN QUERY PLAN SELECT id FROM memories WHERE superseded_by = 'x'"
        ).all()
    assert "ix_memories_superseded_by" not in plan
    assert "ix_memories_superseded_by" in " ".join(str(r) for r in chain)
