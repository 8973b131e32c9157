"""The delta demo series as written (core/delta/demo.py build_series and
generate_snapshots): six weeks, two snapshots a day per goal, goals offset by seven
minutes, labels and queries per goal, up to twelve database memories per goal, written
once per store, and the queue's older part reviewed the way an operator would."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memdesk.core.delta import demo as dd
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.store.memory_store import MemoryStore

END = datetime(2026, 11, 1)
GOALS = [g for g, _q, _f in dd.GOALS]
QUERIES = [q for _g, q, _f in dd.GOALS]


def test_goal_names_and_queries() -> None:
    assert GOALS == ["route artifact review task", "answer preference questions",
                     "plan project-alpha migration"]
    assert QUERIES == ["artifact review lens", "user prefers backend language",
                       "project-alpha database migration"]


def test_series_times_labels_and_queries(store: MemoryStore) -> None:
    cfg = DeltaMemory(store).config()
    # The end's time of day is dropped, to the microsecond: the series ends at that
    # day's midnight.
    sets = dd.build_series(store, cfg, seed=3, end=END + timedelta(
        hours=15, minutes=30, seconds=45, microseconds=123))
    assert len(sets) == 3 * 42 * 2
    start = END - timedelta(days=42)
    for gi, goal in enumerate(GOALS):
        mine = sets[gi * 84:(gi + 1) * 84]
        assert {s.goal for s in mine} == {goal}
        assert {s.query for s in mine} == {QUERIES[gi]}
        assert [s.label for s in mine] == [f"{goal[:24]} #{n}" for n in range(1, 85)]
        assert [s.created_at for s in mine] == [
            start + timedelta(days=d, hours=h, minutes=7 * gi)
            for d in range(42) for h in (9, 17)]
    assert sets[0].label == "route artifact review ta #1"
    assert sets[-1].created_at == datetime(2026, 10, 31, 17, 14)
    ids = [s.id for s in sets]
    assert len(set(ids)) == 252 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    # Deterministic per seed; the default seed is 7.
    assert [s.id for s in dd.build_series(store, cfg, seed=3, end=END)] == ids
    assert ([s.id for s in dd.build_series(store, cfg, end=END)]
            == [s.id for s in dd.build_series(store, cfg, seed=7, end=END)])


def test_each_goal_takes_at_most_twelve_database_memories(store: MemoryStore) -> None:
    for i in range(15):
        store.add(user_id="alice", type="note", importance=0.5 + i / 100,
                  text=f"project-alpha database migration step {i} rehearsed")
    sets = dd.build_series(store, DeltaMemory(store).config(), end=END)
    plan = [s for s in sets if s.goal == GOALS[2]]
    keys = {c.key for s in plan for c in s.contributions if c.source == "database"}
    assert len(keys) == 12  # the plan window slides over all twelve
    assert all(sum(c.source == "database" for c in s.contributions) == 5 for s in plan)
    # The other goals' queries match none of these memories.
    assert not [c for s in sets if s.goal != GOALS[2] for c in s.contributions
                if c.source == "database"]


@pytest.fixture
def written(store: MemoryStore) -> tuple[MemoryStore, int]:
    # Per test, not per module (0.6 s each): the mutation run maps a function to the
    # tests that call it, and a module fixture calls it during the first test only.
    return store, dd.generate_snapshots(store, end=END)


def test_written_once_with_the_default_seed(written) -> None:  # type: ignore[no-untyped-def]
    store, first = written
    assert first == 252
    dm = DeltaMemory(store)
    want = {s.id for s in dd.build_series(store, dm.config(), seed=7, end=END)}
    assert {s.id for s in dm.snapshots(limit=1000)} == want
    assert sorted((g, n) for g, n, _last in dm.goals()) == sorted((g, 84) for g in GOALS)
    assert dd.generate_snapshots(store, end=END) == 0  # already there: nothing written
    assert len(dm.snapshots(limit=1000)) == 252


def test_the_older_queue_is_reviewed_and_the_last_ten_days_stay_pending(written) -> None:  # type: ignore[no-untyped-def]
    store, _ = written
    dm = DeltaMemory(store)
    cutoff = datetime(2026, 10, 31, 17, 14) - timedelta(days=10)  # last snapshot - 10 days
    flagged = dm.queue(pending_only=False)
    pending = dm.queue(pending_only=True)
    assert pending and all(r.created_at >= cutoff for r in pending)
    older = [r for r in flagged if r.created_at < cutoff]
    assert {r.review for r in older} == {"accepted", "investigated"}
    for r in older:
        want = "investigated" if r.action == "investigate" else "accepted"
        assert r.review == want, (r.id, r.action, r.review)
        if want == "investigated":
            assert r.review_note == ("Search overtook context; checked the hits, they "
                                     "were relevant.")
        else:
            assert r.review_note is None
    assert {r.review for r in flagged if r.created_at >= cutoff} == {"pending"}
    events = [e for e in dm.events(limit=5000) if e.kind == "review"]
    assert len(events) == len(older)
    assert {e.actor for e in events} == {"operator"}
    assert {e.action for e in events} <= {"accept", "investigated"}
