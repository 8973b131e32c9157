"""The delta audit trail (core/delta/audit.py): what each event row holds, how the
event list filters and limits, and how undoing a group restores values newest first,
logs itself as a new group and refuses (changing nothing) when it must.

Rules from audit.py's docstring: undo restores each row's ``before`` newest first as a
new group, and refuses when a field was changed again since."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import delete, select, update

from memdesk.core.delta import audit
from memdesk.core.delta.config import SRC, update_source
from memdesk.core.delta.contracts import SourceConfig
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.errors import NotFoundError, UndoConflictError
from tests.helpers.delta import flagged_diff


def weight(store, name: str) -> float:  # type: ignore[no-untyped-def]
    src = DeltaMemory(store).config().source(name)
    assert src is not None
    return src.weight


def test_log_writes_every_field_and_events_reads_them_back(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        audit.log(conn, "source", "search", "tune", {"weight": 0.25}, {"weight": 0.5}, "g1",
                  actor="agent", note="a note", undoes="g0")
        [ev] = audit.events(conn)
    assert (ev.kind, ev.target, ev.action, ev.before, ev.after, ev.actor, ev.group_id,
            ev.undoes, ev.undone_by, ev.note) == (
        "source", "search", "tune", {"weight": 0.25}, {"weight": 0.5}, "agent", "g1", "g0",
        None, "a note")
    assert isinstance(ev.at, datetime) and isinstance(ev.id, int)


def test_log_defaults_to_the_operator_without_note_or_undoes(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        audit.log(conn, "review", "7", "accept", {}, {"review": "accepted"}, "g1")
        [ev] = audit.events(conn)
    assert (ev.actor, ev.note, ev.undoes, ev.before) == ("operator", None, None, {})


def test_a_review_event_reads_its_time_back_as_a_datetime(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    dm.review(diff_id, "accept", note="fine")
    [ev] = dm.events()
    assert ev.before == {"review": "pending", "review_note": None, "reviewed_at": None}
    assert ev.after["review"] == "accepted" and ev.after["review_note"] == "fine"
    assert isinstance(ev.after["reviewed_at"], datetime)
    assert ev.after["reviewed_at"] == dm.stored_diff(diff_id).reviewed_at


def test_events_filter_by_kind_and_target_newest_first_and_limit(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        for i, (kind, target) in enumerate([("source", "a"), ("review", "1"), ("source", "b"),
                                            ("source", "a"), ("review", "2")]):
            audit.log(conn, kind, target, f"act{i}", {}, {}, f"g{i}")
        everything = audit.events(conn)
        sources = audit.events(conn, kind="source")
        a = audit.events(conn, target="a")
        a_src = audit.events(conn, kind="source", target="a", limit=1)
        two = audit.events(conn, limit=2)
    assert [e.action for e in everything] == ["act4", "act3", "act2", "act1", "act0"]
    assert [e.action for e in sources] == ["act3", "act2", "act0"]
    assert [e.action for e in a] == ["act3", "act0"]
    assert [e.action for e in a_src] == ["act3"]
    assert [e.action for e in two] == ["act4", "act3"]


def test_events_limit_defaults_to_200(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        for i in range(201):
            audit.log(conn, "source", "a", "edit", {}, {}, f"g{i}")
        got = audit.events(conn)
    assert len(got) == 200
    assert got[-1].group_id == "g1"  # the oldest one (g0) is the one left out


def test_undo_group_restores_newest_first_and_logs_the_redo(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        # Two edits of the same field in one group: only newest-first undo can pass the
        # "changed again since" check and end at the first value.
        update_source(conn, "search", {"weight": 0.5}, "g1")
        update_source(conn, "search", {"weight": 0.7}, "g1")
        redo = audit.undo_group(conn, "g1", actor="agent", redo="r1")
        evs = audit.events(conn)
    assert redo == "r1"
    assert weight(store, "search") == 0.25
    undo = [e for e in evs if e.group_id == "r1"]
    assert [(e.action, e.before, e.after, e.actor, e.undoes) for e in undo] == [
        ("undo", {"weight": 0.5}, {"weight": 0.25}, "agent", "g1"),
        ("undo", {"weight": 0.7}, {"weight": 0.5}, "agent", "g1"),
    ]
    originals = [e for e in evs if e.group_id == "g1"]
    assert len(originals) == 2 and {e.undone_by for e in originals} == {"r1"}
    assert {e.undone_by for e in undo} == {None}


def test_undo_group_makes_a_new_group_id_when_none_is_given(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        update_source(conn, "search", {"weight": 0.5}, "g1")
        redo = audit.undo_group(conn, "g1")
        [undo, _] = audit.events(conn)
    assert isinstance(redo, str) and redo not in ("", "g1")
    assert (undo.group_id, undo.actor, undo.undoes) == (redo, "operator", "g1")


def test_an_undo_is_itself_undoable(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        update_source(conn, "search", {"weight": 0.5}, "g1")
        redo = audit.undo_group(conn, "g1")
        audit.undo_group(conn, redo)
    assert weight(store, "search") == 0.5


def test_undo_of_an_unknown_group_says_which(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn, pytest.raises(NotFoundError) as e:
        audit.undo_group(conn, "nope")
    assert str(e.value) == "No delta-memory action 'nope'"


def test_undo_twice_is_refused(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        update_source(conn, "search", {"weight": 0.5}, "g1")
        audit.undo_group(conn, "g1")
        with pytest.raises(UndoConflictError) as e:
            audit.undo_group(conn, "g1")
    assert str(e.value) == "That action was already undone."
    assert weight(store, "search") == 0.25


def test_undo_after_a_later_change_names_the_field_and_changes_nothing(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    g = dm.set_source("search", weight=0.5, top_k=3).group_id
    dm.set_source("search", top_k=4)
    with store.write() as conn, pytest.raises(UndoConflictError) as e:
        audit.undo_group(conn, g)
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
    assert weight(store, "search") == 0.25


def test_undo_of_a_deleted_source_names_it(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    g = dm.add_source(SourceConfig("web", "t", 1.0)).group_id
    with store.write() as conn:
        conn.execute(delete(SRC).where(SRC.c.name == "web"))
        with pytest.raises(NotFoundError) as e:
            audit.undo_group(conn, g)
    assert str(e.value) == "No source 'web'"


def test_undo_of_a_review_whose_diff_is_gone_names_it(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        audit.log(conn, "review", "999", "accept", {"review": "pending"},
                  {"review": "accepted"}, "g1")
        with pytest.raises(NotFoundError) as e:
            audit.undo_group(conn, "g1")
    assert str(e.value) == "No review '999'"


def test_apply_stamps_a_source_edit(store) -> None:  # type: ignore[no-untyped-def]
    old = datetime(2000, 1, 1)
    with store.write() as conn:
        conn.execute(update(SRC).values(updated_at=old))
        audit.apply(conn, "source", "search", {"top_k": 5})
        rows = dict(conn.execute(select(SRC.c.name, SRC.c.updated_at)).all())
        top_k = conn.execute(select(SRC.c.top_k).where(SRC.c.name == "search")).scalar_one()
    assert top_k == 5
    assert rows["search"] != old
    assert {rows[n] for n in ("context", "database", "model_prior")} == {old}


def test_apply_to_a_review_changes_that_diff_only(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    with store.write() as conn:
        audit.apply(conn, "review", str(diff_id), {"review": "accepted", "review_note": "n"})
    rec = dm.stored_diff(diff_id)
    assert (rec.review, rec.review_note) == ("accepted", "n")


def test_a_weight_off_by_exactly_the_tolerance_counts_as_changed(store) -> None:  # type: ignore[no-untyped-def]
    # |1e-12 - 0.0| is exactly 1e-12: "the same" means strictly closer than that.
    dm = DeltaMemory(store)
    g = dm.set_source("search", weight=1e-12).group_id
    with store.write() as conn:
        conn.execute(update(SRC).where(SRC.c.name == "search").values(weight=0.0))
    with pytest.raises(UndoConflictError, match="search's weight was changed again"):
        dm.undo(g)
