"""The query planner's statistics follow the store as it grows (core/store/statistics.py).

A store analysed while small and then grown by agents would otherwise keep telling
SQLite's planner its tables are small, and the planner reads whole tables where an index
lookup was right (measured: retrieve p50 470 ms instead of 21 ms at 1,000,000 episodes).
Each path that grows a store in bulk (the job worker, ``memdesk import``, ``maintain``)
leaves statistics that know the new size, and the episode lookup a retrieval makes then
uses the index."""

from __future__ import annotations

import json
from pathlib import Path

from memdesk.core.read.maintain import maintain
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.transfer.formats import open_source
from memdesk.core.transfer.importer import Importer
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig


def rows_believed(store: MemoryStore, table: str) -> int:
    """The row count the planner believes ``table`` has (0: never analysed); the
    largest of its indexes' (a partial index counts only its own rows)."""
    with store.read() as conn:
        stats = conn.exec_driver_sql(
            "SELECT stat FROM sqlite_stat1 WHERE tbl = ?", (table,)).scalars()
        return max((int(str(s).split()[0]) for s in stats), default=0)


def analyse(store: MemoryStore) -> None:
    with store.write() as conn:
        conn.exec_driver_sql("ANALYZE")  # what the demo does when it is built


def talk(store: MemoryStore, n: int, start: int = 0) -> None:
    q = JobQueue(store)
    for i in range(start, start + n):
        q.enqueue(Turn(f"I walked to the harbour on day {i} and saw boat number {i}.",
                       "mel", f"s{i // 20}", speaker="Mel"))


def episode_lookup_plan(store: MemoryStore) -> str:
    with store.read() as conn:
        ids = list(conn.exec_driver_sql("SELECT id FROM memories LIMIT 50").scalars())
        marks = ",".join("?" * len(ids))
        return " ".join(str(r[-1]) for r in conn.exec_driver_sql(
            f"EXPLAIN QUERY PLAN SELECT * FROM episodes WHERE memory_id IN ({marks})",
            tuple(ids)))


def test_the_worker_refreshes_the_statistics_it_made_stale(tmp_path: Path) -> None:
    store = MemoryStore.open(tmp_path / "s.db")
    talk(store, 5)
    analyse(store)
    Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).run(drain=True)
    assert 0 < rows_believed(store, "episodes") <= 10
    talk(store, 300, start=5)
    assert Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).run(drain=True) == 300
    assert rows_believed(store, "episodes") >= 300
    assert "SCAN episodes" not in episode_lookup_plan(store)
    store.close()


def test_import_and_maintain_refresh_the_statistics(tmp_path: Path) -> None:
    store = MemoryStore.open(tmp_path / "s.db")
    store.add(user_id="ann", text="A first memory.", type="fact")
    analyse(store)
    assert rows_believed(store, "memories") == 1
    lines = [json.dumps({"user_id": "ann", "text": f"Imported fact number {i}.",
                         "type": "fact"}) for i in range(400)]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with open_source(tmp_path / "in.jsonl") as source:
        Importer(store).run(source)
    assert rows_believed(store, "memories") >= 400
    for i in range(10_000 // 400):  # grown 25-fold again, then maintained
        with store.write() as conn:
            conn.exec_driver_sql(
                "INSERT INTO memories (id, user_id, text, type, layer, importance, "
                "confidence, created_at, access_count) SELECT hex(randomblob(16)), "
                "user_id, text || ?, type, layer, importance, confidence, created_at, 0 "
                "FROM memories WHERE text LIKE 'Imported fact number %.'", (f" ({i})",))
    maintain(store, do_decay=False)
    assert rows_believed(store, "memories") >= 10_000
    store.close()
