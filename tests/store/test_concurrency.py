"""Two processes on one file: a writer and a reader, no "database is locked"."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.processes import run_workers


def _writer(path: str, n: int, q) -> None:  # type: ignore[no-untyped-def]
    try:
        store = MemoryStore.open(path)
        for i in range(n):
            rec = store.add(user_id="agent", text=f"burst memory {i}", type="note")
            store.update(rec.id, importance=0.6)  # read-then-write inside one IMMEDIATE txn
        store.close()
        q.put(("ok", n))
    except Exception as exc:  # reported to the parent, which fails the test
        q.put(("error", repr(exc)))


def _reader(path: str, n: int, q) -> None:  # type: ignore[no-untyped-def]
    try:
        store = MemoryStore.open(path)
        seen = 0
        for _ in range(n):
            seen = max(seen, store.count())
            store.page(limit=20)
        store.close()
        q.put(("ok", seen))
    except Exception as exc:
        q.put(("error", repr(exc)))


def test_writer_and_readers_in_other_processes(store_path: Path) -> None:
    MemoryStore.open(store_path).close()
    results = run_workers([(_writer, (str(store_path), 150)), (_writer, (str(store_path), 150)),
                           (_reader, (str(store_path), 300))], timeout=120)
    assert [r for r in results if r[0] == "error"] == []
    store = MemoryStore.open(store_path)
    assert store.count() == 300
    # Every add and every update audited: 300 memories × (add, edit), none lost.
    events = store.events(limit=10_000)
    assert len(events) == 600
    per_memory: dict[str, list[str]] = {}
    for e in reversed(events):
        per_memory.setdefault(e.memory_id, []).append(e.action)
    assert len(per_memory) == 300 and set(map(tuple, per_memory.values())) == {("add", "edit")}
    assert {r.importance for r in store.page(limit=None)} == {0.6}
    # events() without a limit returns the newest 500.
    assert [e.id for e in store.events()] == [e.id for e in events[:500]]
    store.close()


def test_gui_style_reader_and_writer_in_one_process(store_path: Path) -> None:
    """A read connection held open while another connection writes (WAL)."""
    store = MemoryStore.open(store_path)
    store.add(user_id="u", text="first", type="note")
    with store.read() as conn:
        conn.exec_driver_sql("SELECT count(*) FROM memories").scalar()
        other = MemoryStore.open(store_path, busy_timeout=1)
        other.add(user_id="u", text="second", type="note")
        other.close()
    assert store.count() == 2
    store.close()
