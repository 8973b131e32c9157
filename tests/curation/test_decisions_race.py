"""Two operators deciding the same things at once, in two processes, on SQLite and
PostgreSQL (the ``backend`` parameter): every held memory is approved or rejected,
never both; every contradiction is resolved once, for one winner.  The one who comes
second gets a clear refusal, never a silent double decision."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from memdesk.core.curation.service import Contradictions
from memdesk.core.errors import MemdeskError
from memdesk.core.guard.review import Review
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from tests.helpers.processes import run_workers

N = 60


def _decider(db: str, what: str, ids: list[str], start, q) -> None:  # type: ignore[no-untyped-def]
    """Apply ``what`` to each id (or group key) in turn; count refusals."""
    try:
        store = MemoryStore.open(db)
        store.count()  # connected before the start, so both begin together
        start.wait(timeout=120)
        done = refused = 0
        for item in ids:
            try:
                if what in ("approve", "reject"):
                    getattr(Review(store), what)([item])
                else:
                    key = tuple(item.split("|"))
                    group = Contradictions(store).load(key)  # type: ignore[arg-type]
                    winner = group.members[0 if what == "first" else -1].id
                    if not Contradictions(store).keep(group, winner).changes.event_ids:
                        continue  # already resolved when loaded: nothing left to decide
                done += 1
            except MemdeskError:  # decided by the other process first: refused, clearly
                refused += 1
        store.close()
        q.put(("ok", done, refused))
    except Exception as exc:
        q.put(("error", repr(exc), 0))


def _run(db: str, jobs: list[tuple[str, list[str]]]) -> list[tuple]:
    return run_workers([(_decider, (db, what, ids)) for what, ids in jobs], timeout=600,
                       barrier=True)


def test_approve_and_reject_racing_decide_each_memory_once(
        store: MemoryStore, store_path: Path | str) -> None:
    held = [store.add(user_id="u", text=f"held {i}", type="note",
                      quarantined_at=datetime(2026, 1, 1)).id for i in range(N)]
    results = _run(str(store_path), [("approve", held), ("reject", held)])
    assert [r for r in results if r[0] != "ok"] == []
    assert sum(r[1] for r in results) == N  # each decided exactly once
    for mid in held:
        decisions = [e.action for e in store.events(mid) if e.action in ("approve", "reject")]
        assert len(decisions) == 1, (mid, decisions)
        rec = store.get(mid)
        expected = Status.ACTIVE if decisions == ["approve"] else Status.DELETED
        assert rec.status is expected
        if decisions == ["reject"]:
            assert rec.quarantined_at is not None  # undoing the rejection re-holds it


def test_two_resolutions_of_one_contradiction_cannot_both_win(
        store: MemoryStore, store_path: Path | str) -> None:
    keys = []
    for i in range(N):
        for value in ("Acme", "Globex"):
            store.add(user_id="u", text=f"Person {i} works at {value}", type="fact",
                      entity=f"person{i}", attribute="works_at", value=value)
        keys.append(f"u|person{i}|works_at")
    results = _run(str(store_path), [("first", keys), ("last", keys)])
    assert [r for r in results if r[0] != "ok"] == []
    assert sum(r[1] for r in results) == N
    for key in keys:
        members = Contradictions(store).load(tuple(key.split("|")))  # type: ignore[arg-type]
        assert len(members.members) == 1  # one value survives, the other is superseded
