"""The delta audit trail, through ``DeltaMemory``: what each event holds, how the
event list orders and limits, and how undoing a group restores every value, logs
itself as a new group and refuses (changing nothing) when it must.

Rules from audit.py's docstring: undo restores each row's ``before`` newest first as a
new group, and refuses when a field was changed again since."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import delete, select, update

from memdesk.core.delta.config import SRC
from memdesk.core.delta.contracts import SourceConfig
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.delta.snapshots import DIFFS
from memdesk.core.errors import NotFoundError, UndoConflictError
from tests.helpers.delta import flagged, weight


def test_an_edit_is_logged_with_every_field_and_reads_back(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    ch = dm.set_source("search", weight=0.5, actor="agent", note="a note")
    [ev] = dm.events()
    assert (ev.kind, ev.target, ev.action, ev.before, ev.after, ev.actor, ev.group_id,
            ev.undoes, ev.undone_by, ev.note) == (
        "source", "search", "edit", {"weight": 0.25}, {"weight": 0.5}, "agent",
        ch.group_id, None, None, "a note")
    assert isinstance(ev.at, datetime) and isinstance(ev.id, int)


def test_an_edit_defaults_to_the_operator_without_note(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.set_source("search", top_k=3)
    [ev] = dm.events()
    assert (ev.actor, ev.note, ev.undoes) == ("operator", None, None)


def test_a_review_event_reads_its_time_back_as_a_datetime(store) -> None:  # type: ignore[no-untyped-def]
    dm, diff_id = flagged(store)
    dm.review(diff_id, "accept", note="fine")
    [ev] = dm.events()
    assert ev.before == {"review": "pending", "review_note": None, "reviewed_at": None}
    assert ev.after["review"] == "accepted" and ev.after["review_note"] == "fine"
    assert isinstance(ev.after["reviewed_at"], datetime)
    assert ev.after["reviewed_at"] == dm.stored_diff(diff_id).reviewed_at


def test_events_are_newest_first_and_limited(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    for i in range(5):
        dm.set_source("search", top_k=i + 1)
    assert [e.after for e in dm.events()] == [{"top_k": k} for k in (5, 4, 3, 2, 1)]
    assert [e.after for e in dm.events(limit=2)] == [{"top_k": 5}, {"top_k": 4}]


def test_events_limit_defaults_to_200(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    groups = [dm.set_source("search", top_k=i + 1).group_id for i in range(201)]
    got = dm.events()
    assert len(got) == 200
    assert got[-1].group_id == groups[1]  # the oldest one is the one left out


def test_undo_restores_every_edit_of_a_group_and_logs_the_redo(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.set_source("search", weight=0.5)
    dm.set_source("context", weight=0.6)
    before = dm.config()
    g = dm.normalize_weights(actor="agent").group_id
    assert dm.config() != before
    redo = dm.undo(g, actor="agent")
    assert dm.config() == before
    evs = dm.events()
    undo = [e for e in evs if e.group_id == redo.group_id]
    originals = [e for e in evs if e.group_id == g]
    assert redo.group_id not in (None, g)
    assert len(undo) == len(originals) >= 2
    assert {(e.action, e.actor, e.undoes) for e in undo} == {("undo", "agent", g)}
    assert sorted((e.target, e.before, e.after) for e in undo) == sorted(
        (e.target, e.after, e.before) for e in originals)
    assert {e.undone_by for e in originals} == {redo.group_id}
    assert {e.undone_by for e in undo} == {None}


def test_an_undo_is_by_the_operator_by_default(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    g = dm.set_source("search", weight=0.5).group_id
    redo = dm.undo(g)
    [undo, _] = dm.events()
    assert (undo.group_id, undo.actor, undo.undoes) == (redo.group_id, "operator", g)


def test_an_undo_is_itself_undoable(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    redo = dm.undo(dm.set_source("search", weight=0.5).group_id)
    dm.undo(redo.group_id)
    assert weight(DeltaMemory(store), "search") == 0.5


def test_undo_of_an_unknown_group_says_which(store) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFoundError) as e:
        DeltaMemory(store).undo("nope")
    assert str(e.value) == "No action group 'nope'"


def test_undo_twice_is_refused(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    g = dm.set_source("search", weight=0.5).group_id
    dm.undo(g)
    with pytest.raises(UndoConflictError) as e:
        dm.undo(g)
    assert str(e.value) == "That action was already undone."
    assert weight(DeltaMemory(store), "search") == 0.25


def test_undo_after_a_later_change_names_the_field_and_changes_nothing(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    g = dm.set_source("search", weight=0.5, top_k=3).group_id
    dm.set_source("search", top_k=4)
    with pytest.raises(UndoConflictError) as e:
        dm.undo(g)
    assert str(e.value) == ("Cannot undo: source search's top_k was changed again since. "
                            "Undo the later change first.")
    assert dm.config().source("search") == SourceConfig("search", "search_memory", 0.5, True, 4)
    assert all(ev.undone_by is None for ev in dm.events())


def test_a_weight_differing_by_a_billionth_counts_as_changed(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    g = dm.set_source("search", weight=0.5).group_id
    with store.write() as conn:
        conn.execute(update(SRC).where(SRC.c.name == "search").values(weight=0.5 + 1e-9))
    with pytest.raises(UndoConflictError, match="search's weight was changed again"):
        dm.undo(g)


def test_a_float_equal_to_the_logged_value_undoes(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    g = dm.set_source("search", weight=0.1 + 0.2).group_id  # stored and logged the same
    dm.undo(g)
    assert weight(DeltaMemory(store), "search") == 0.25


def test_undo_of_a_deleted_source_names_it(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    g = dm.add_source(SourceConfig("web", "t", 1.0)).group_id
    with store.write() as conn:
        conn.execute(delete(SRC).where(SRC.c.name == "web"))
    with pytest.raises(NotFoundError) as e:
        dm.undo(g)
    assert str(e.value) == "No source 'web'"


def test_undo_of_a_review_whose_diff_is_gone_names_it(store) -> None:  # type: ignore[no-untyped-def]
    dm, diff_id = flagged(store)
    g = dm.review(diff_id, "accept").group_id
    with store.write() as conn:
        conn.execute(delete(DIFFS).where(DIFFS.c.id == diff_id))
    with pytest.raises(NotFoundError) as e:
        dm.undo(g)
    assert str(e.value) == f"No review '{diff_id}'"


def test_an_edit_stamps_that_source_only(store) -> None:  # type: ignore[no-untyped-def]
    old = datetime(2000, 1, 1)
    with store.write() as conn:
        conn.execute(update(SRC).values(updated_at=old))
    DeltaMemory(store).set_source("search", top_k=5)
    with store.read() as conn:
        rows = dict(conn.execute(select(SRC.c.name, SRC.c.updated_at)).all())
    assert rows["search"] != old
    assert {rows[n] for n in ("context", "database", "model_prior")} == {old}


def test_a_weight_off_by_exactly_the_tolerance_counts_as_changed(store) -> None:  # type: ignore[no-untyped-def]
    # |1e-12 - 0.0| is exactly 1e-12: "the same" means strictly closer than that.
    dm = DeltaMemory(store)
    g = dm.set_source("search", weight=1e-12).group_id
    with store.write() as conn:
        conn.execute(update(SRC).where(SRC.c.name == "search").values(weight=0.0))
    with pytest.raises(UndoConflictError, match="search's weight was changed again"):
        dm.undo(g)
