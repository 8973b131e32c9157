"""Edges of the generic undo (core/undo/generic.py): what a group's undo reports, who it is
recorded as, the redo of delta-memory groups, single-event actions and long redo chains."""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.core.curation.service import Contradictions, Sweeps
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.errors import MemdeskError, NotFoundError
from memdesk.core.ids import new_id
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.store.records import Changed, Changes
from memdesk.core.undo.generic import undo_changes, undo_group
from tests.helpers.delta import flagged

T0 = datetime(2026, 10, 1, 9)


# -- what an undo reports, so the views showing it refresh ----------------------------

def test_undo_of_a_dampen_review_reports_the_diff_and_the_source(store: MemoryStore) -> None:
    dm, diff_id = flagged(store)
    ch = dm.review(diff_id, "dampen")
    undone = undo_changes(store, ch)
    assert dm.stored_diff(diff_id).review == "pending"
    # one group wrote a source row and a review row: both kinds, both targets
    assert undone.touches(Changed.SOURCES) and undone.touches(Changed.REVIEWS)
    assert undone.diff_ids == (diff_id,) and undone.sources == ("search",)
    assert not undone.memories


def test_undo_of_a_merge_reports_the_contradiction(store: MemoryStore) -> None:
    for v in ("Acme", "Globex"):
        store.add(user_id="alice", text=f"Alice works at {v}.", type="fact",
                  entity="alice", attribute="works_at", value=v)
    [group] = Contradictions(store).find()
    res = Contradictions(store).merge(Contradictions(store).load(group.key),
                          text_="Alice works at Acme and Globex.", value="Acme+Globex")
    undone = undo_changes(store, res.changes)
    # the group's oldest row is the merged memory's "add"; the newer ones resolve
    assert undone.touches(Changed.CONTRADICTIONS) and undone.memories
    assert store.get(res.winner_id).status is Status.DELETED
    assert [g.key for g in Contradictions(store).find()] == [group.key]


# -- redo of a delta-memory group, and who an undo is recorded as ---------------------

def test_delta_undo_is_one_group_that_redo_undoes(store: MemoryStore) -> None:
    dm = DeltaMemory(store)
    name = dm.config().sources[0].name
    before = dm.config().sources[0].weight
    ch = dm.set_source(name, weight=0.05)
    undone = dm.undo(ch.group_id, actor="agent")
    undo_rows = [e for e in dm.events() if e.action == "undo"]
    assert [(e.group_id, e.actor) for e in undo_rows] == [(undone.group_id, "agent")]
    redone = undo_group(store, undone.group_id)  # redo: the undo's own group
    assert dm.config().sources[0].weight == 0.05
    assert redone.sources == (name,)
    undo_group(store, redone.group_id)
    assert dm.config().sources[0].weight == before


def test_undo_changes_of_a_group_records_the_actor(store: MemoryStore) -> None:
    recs = [store.add(user_id="u", text=f"m{i}", type="note", topic="a") for i in range(2)]
    ch = store.bulk_update([r.id for r in recs], topic="b")
    undone = undo_changes(store, ch, actor="agent")
    assert {store.event(e).actor for e in undone.event_ids} == {"agent"}
    assert [store.get(r.id).topic for r in recs] == ["a", "a"]


# -- single-event actions ---------------------------------------------------------------

def test_undo_changes_of_a_single_event_action(store: MemoryStore) -> None:
    rec = store.add(user_id="u", text="User prefers tea.", type="preference", importance=0.4)
    ch = store.update(rec.id, importance=0.9)
    assert ch.group_id is None and len(ch.event_ids) == 1
    undone = undo_changes(store, ch, actor="agent")
    assert store.get(rec.id) == rec
    [ev] = undone.event_ids
    assert store.event(ev).actor == "agent" and store.event(ev).undoes == ch.event_ids[0]


@pytest.mark.parametrize("event_ids", [(), (1, 2)])
def test_undo_changes_refuses_an_action_without_one_event(store: MemoryStore,
                                                          event_ids) -> None:
    rec = store.add(user_id="u", text="t", type="note")
    store.add(user_id="u", text="t2", type="note")
    with pytest.raises(MemdeskError) as info:
        undo_changes(store, Changes(event_ids=event_ids))
    assert str(info.value) == "Nothing to undo: that action changed nothing."
    assert store.get(rec.id).status is Status.ACTIVE


# -- long redo chains ---------------------------------------------------------------------

def test_kind_is_found_through_a_1000_deep_redo_chain_and_no_deeper(store: MemoryStore) -> None:
    """Undo, redo, undo, ... of a sweep decision: the sweep view still refreshes after
    1000 links; past that the walk stops (a guard against a corrupt, cyclic chain)."""
    store.add_many([dict(user_id="u", text=f"note {i}", type="note", importance=0.35)
                    for i in range(4)], audit=False)
    state = Sweeps(store).start(n=2, seed=5)
    step = Sweeps(store).decide(state.id, 0, "revalue", importance=0.9)
    [ev] = step.changes.event_ids
    top = new_id()
    with store.write() as conn:  # 1000 undos of undos in one transaction: fast
        for i in range(1000):
            ev = store.undo_in(conn, ev, "operator", top if i == 999 else None)
    deep = undo_group(store, top)  # 1000 links back to the decision
    assert deep.touches(Changed.SWEEPS)
    deeper = undo_group(store, deep.group_id)  # 1001 links back to the decision
    assert not deeper.touches(Changed.SWEEPS)
    assert deeper.memories and store.get(state.items[0].memory_id).importance == 0.9


def test_undo_of_an_unknown_group_changes_nothing(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError, match="No action group 'nope'"):
        undo_group(store, "nope")
