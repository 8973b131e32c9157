"""Compare-and-set edits: two processes incrementing one memory with
``expected_version`` lose no increment, on SQLite and PostgreSQL (the ``backend``
parameter), and a stale edit reaches the caller as the edit-conflict error."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core.errors import EditConflictError
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.processes import run_workers

ROUNDS = 300


def _incrementer(db: str, memory_id: str, rounds: int, q) -> None:  # type: ignore[no-untyped-def]
    """Read the counter, write counter + 1 with the version read; retry on a conflict."""
    try:
        store = MemoryStore.open(db)
        done = conflicts = 0
        messages: set[str] = set()
        while done < rounds:
            rec = store.get(memory_id)
            n = int(rec.text.rsplit(" ", 1)[1])
            try:
                store.update(memory_id, text=f"counter {n + 1}", expected_version=rec.version)
                done += 1
            except EditConflictError as exc:
                conflicts += 1
                messages.add(str(exc).split(" (", 1)[0])
        store.close()
        q.put(("ok", conflicts, sorted(messages)))
    except Exception as exc:  # reported to the parent, which fails the test
        q.put(("error", repr(exc), []))


def _race(db: str, memory_id: str, procs: int, rounds: int) -> list[tuple]:
    return run_workers([(_incrementer, (db, memory_id, rounds))] * procs, timeout=600)


def test_two_processes_lose_no_compare_and_set_increment(store: MemoryStore,
                                                          store_path: Path | str) -> None:
    rec = store.add(user_id="u", text="counter 0", type="note")
    results = _race(str(store_path), rec.id, 2, ROUNDS)
    assert [r for r in results if r[0] != "ok"] == []
    final = store.get(rec.id)
    assert final.text == f"counter {2 * ROUNDS}"
    assert final.version == rec.version + 2 * ROUNDS
    edits = [e for e in store.events(rec.id, limit=10_000) if e.action == "edit"]
    assert len(edits) == 2 * ROUNDS
    # Each edit's audit row starts from the value the previous one wrote.
    befores = sorted(int(e.before["text"].rsplit(" ", 1)[1]) for e in edits)
    assert befores == list(range(2 * ROUNDS))
    # Every conflict the workers met was the edit-conflict error with its message.
    for _, _, messages in results:
        assert set(messages) <= {f"Memory {rec.id} was changed by someone else since you "
                                 "read it"}


def test_a_stale_edit_writes_nothing_and_names_both_versions(store: MemoryStore) -> None:
    rec = store.add(user_id="u", text="counter 0", type="note")
    store.update(rec.id, text="counter 1", expected_version=rec.version)
    with pytest.raises(EditConflictError) as info:
        store.update(rec.id, text="counter 1 again", expected_version=rec.version)
    assert (info.value.expected, info.value.actual) == (rec.version, rec.version + 1)
    assert "Nothing was written" in str(info.value)
    assert store.get(rec.id).text == "counter 1"
    with pytest.raises(EditConflictError):
        store.soft_delete(rec.id, expected_version=rec.version)
    assert store.get(rec.id).deleted_at is None
