"""Memories carry the agent and run that wrote them (migration 0019): stored from an
agent's job, filterable, exported and imported, on both backends; an older store gets the
columns on upgrade with its rows untouched."""

from __future__ import annotations

import io
from pathlib import Path

from sqlalchemy import create_engine, text

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from memdesk.core.transfer.importer import Importer
from memdesk.core.transfer.jsonl import JsonlSource, export_jsonl
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig
from tests.helpers.migrations import stamped_upgrade_to


def test_agent_and_run_are_stored_filtered_and_listed(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="likes tea", type="preference", agent_id="bot-a",
                  run_id="r1")
    b = store.add(user_id="u", text="likes coffee", type="preference", agent_id="bot-b")
    c = store.add(user_id="u", text="lives in Oslo", type="fact")
    assert (store.get(a.id).agent_id, store.get(a.id).run_id) == ("bot-a", "r1")
    assert store.get(c.id).agent_id is None
    ids = lambda f: {r.id for r in store.page(f, limit=50)}  # noqa: E731
    assert ids(MemoryFilter(agent_ids=("bot-a",))) == {a.id}
    assert ids(MemoryFilter(agent_ids=("bot-a", "bot-b"))) == {a.id, b.id}
    assert ids(MemoryFilter(run_ids=("r1",))) == {a.id}
    assert store.distinct("agent_id") == ["bot-a", "bot-b"]


def test_a_job_with_agent_and_run_stores_them_on_its_memories(store: MemoryStore) -> None:
    JobQueue(store).enqueue(Turn("I live in Lisbon.", "u", agent_id="planner", run_id="r9"))
    Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).run(drain=True)
    rows = store.page(MemoryFilter(user_ids=("u",)), limit=10)
    assert rows and {(r.agent_id, r.run_id) for r in rows} == {("planner", "r9")}


def test_export_and_import_keep_agent_and_run(store: MemoryStore, tmp_path: Path) -> None:
    store.add(user_id="u", text="likes tea", type="preference", agent_id="bot", run_id="r")
    buf = io.BytesIO()
    export_jsonl(store, buf)
    assert b'"agent_id": "bot"' in buf.getvalue() or b'"agent_id":"bot"' in buf.getvalue()
    target = MemoryStore.open(tmp_path / "copy.db")
    try:
        data = buf.getvalue()
        Importer(target).run(JsonlSource(io.BytesIO(data), total=len(data)))
        (rec,) = target.page(MemoryFilter(), limit=5)
        assert (rec.agent_id, rec.run_id) == ("bot", "r")
    finally:
        target.close()


def test_a_0014_store_upgrades_with_empty_agent_and_run(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        stamped_upgrade_to(conn, "0014")
        conn.execute(text(
            "INSERT INTO memories (id, user_id, text, type, layer, importance, confidence, "
            "created_at, access_count) VALUES ('m1', 'u', 'old', 'fact', 'semantic', "
            "0.5, 0.5, '2025-01-01 00:00:00', 0)"))
    engine.dispose()
    store = MemoryStore.open(path, allow_upgrade=True)
    try:
        rec = store.get("m1")
        assert (rec.text, rec.agent_id, rec.run_id) == ("old", None, None)
        store.add(user_id="u", text="new", type="fact", agent_id="bot")
        assert [r.text for r in store.page(MemoryFilter(agent_ids=("bot",)))] == ["new"]
    finally:
        store.close()
