"""The delta review trail: what an undone review logs (actor, the group it undoes, the
values before), which group counts as a diff's review, and what a stored diff reads back."""

from __future__ import annotations

from datetime import datetime, timedelta

from memdesk.core.delta.contracts import Candidate, SourceConfig
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.errors import UndoConflictError
from tests.helpers.delta import flagged

T0 = datetime(2026, 10, 1, 9)


def test_undoing_a_review_logs_the_operator_and_the_group_it_undoes(store) -> None:  # type: ignore[no-untyped-def]
    dm, diff_id = flagged(store)
    weight = dm.config().source("search").weight
    group = dm.review(diff_id, "dampen").group_id
    assert dm.last_review_group(diff_id) == group
    redo = dm.undo_review(diff_id).group_id
    undo_events = [e for e in dm.events() if e.group_id == redo]
    assert {(e.kind, e.action, e.actor, e.undoes) for e in undo_events} == {
        ("review", "undo", "operator", group), ("source", "undo", "operator", group)}
    done = {e.kind: e for e in dm.events() if e.group_id == group}
    # The dampen event's "before" is the weight before the review, read back from the log.
    assert done["source"].before == {"weight": weight}
    assert abs(done["source"].after["weight"] - (weight - 0.15)) < 1e-9
    assert done["review"].before["review"] == "pending"
    assert done["review"].after["review"] == "dampened"
    assert dm.stored_diff(diff_id).review == "pending"
    assert dm.last_review_group(diff_id) is None


def test_a_source_named_like_the_diff_is_not_its_review(store) -> None:  # type: ignore[no-untyped-def]
    dm, diff_id = flagged(store)
    dm.add_source(SourceConfig(str(diff_id), "search_memory", 0.1))
    assert dm.last_review_group(diff_id) is None
    try:
        dm.undo_review(diff_id)
        raise AssertionError("undo_review must refuse a diff that was never reviewed")
    except UndoConflictError as e:
        assert str(e) == f"Diff {diff_id} has no review to undo."
    assert dm.config().source(str(diff_id)).weight == 0.1


def test_a_first_snapshot_has_no_diff_id_and_the_next_reads_back(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    ctx = [Candidate("context", "the task", 1, 1)]
    first = dm.snapshot("g", None, ctx, created_at=T0, use_database=False)
    assert first.diff_id is None and first.diff is None
    second = dm.snapshot("g", None, [*ctx, Candidate("search", "a hit", 1, 1)],
                         created_at=T0 + timedelta(hours=1), use_database=False)
    rec = dm.stored_diff(second.diff_id)
    assert (rec.goal, rec.before_id, rec.after_id) == (
        "g", first.memory_set.id, second.memory_set.id)
    assert second.diff.to_json()["after_dominant_source"] == "context"
    assert second.diff.to_json()["before_dominant_source"] == "context"
    s = dm.series("g")
    assert s.ids == [first.memory_set.id, second.memory_set.id]
    assert s.diff_ids == [None, second.diff_id]


def test_diffs_are_newest_first_by_time_not_by_id(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    ctx = [Candidate("context", "the task", 1, 1)]
    # Goal "late" is saved first but happens later, so its diff has the smaller id.
    dm.snapshot("late", None, ctx, created_at=T0 + timedelta(hours=10), use_database=False)
    late = dm.snapshot("late", None, ctx, created_at=T0 + timedelta(hours=11),
                       use_database=False).diff_id
    dm.snapshot("early", None, ctx, created_at=T0, use_database=False)
    early = dm.snapshot("early", None, ctx, created_at=T0 + timedelta(hours=1),
                        use_database=False).diff_id
    assert late < early
    assert [r.id for r in dm.diffs()] == [late, early]
