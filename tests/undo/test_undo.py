"""Audit log and undo: every change recorded, undo restores the exact previous state."""

from __future__ import annotations

import pytest

from memdesk.core.curation.service import Contradictions, Sweeps
from memdesk.core.errors import UndoConflictError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status


@pytest.fixture
def rec(store: MemoryStore):
    return store.add(user_id="u", text="User prefers tea.", type="preference", topic="food",
                     importance=0.4, confidence=0.7, entity="user", attribute="drink",
                     value="tea", actor="agent")


def test_add_is_audited_with_actor(store: MemoryStore, rec) -> None:
    [ev] = store.events(rec.id)
    assert ev.action == "add" and ev.actor == "agent" and ev.after["text"] == rec.text


def test_edit_and_undo_restore_exact_state(store: MemoryStore, rec) -> None:
    ch = store.update(rec.id, text="User prefers coffee.", value="coffee", importance=0.8,
                      layer="semantic", note="operator fix")
    ev = store.event(ch.event_ids[0])
    # the router put the preference in the procedural layer when it was added
    assert ev.before == {"text": "User prefers tea.", "value": "tea", "importance": 0.4,
                         "layer": "procedural"}
    assert ev.actor == "operator" and ev.note == "operator fix"
    store.undo(ev.id)
    assert store.get(rec.id) == rec
    assert store.event(ev.id).undone_by is not None


def test_redo_is_undo_of_the_undo(store: MemoryStore, rec) -> None:
    ch = store.update(rec.id, importance=0.9)
    edited = store.get(rec.id)
    undo = store.undo(ch.event_ids[0])
    store.undo(undo.event_ids[0])
    assert store.get(rec.id) == edited


def test_undo_twice_is_refused(store: MemoryStore, rec) -> None:
    ch = store.update(rec.id, importance=0.9)
    store.undo(ch.event_ids[0])
    with pytest.raises(UndoConflictError, match="already undone"):
        store.undo(ch.event_ids[0])


def test_undo_refuses_when_field_changed_again(store: MemoryStore, rec) -> None:
    first = store.update(rec.id, importance=0.9)
    store.update(rec.id, importance=0.2)
    with pytest.raises(UndoConflictError, match="importance"):
        store.undo(first.event_ids[0])
    assert store.get(rec.id).importance == 0.2


def test_soft_delete_and_undo(store: MemoryStore, rec) -> None:
    ch = store.soft_delete(rec.id)
    assert store.get(rec.id).status is Status.DELETED  # still there: nothing hard-deleted
    store.undo(ch.event_ids[0])
    assert store.get(rec.id) == rec


def test_undo_of_add_hides_not_deletes(store: MemoryStore, rec) -> None:
    [ev] = store.events(rec.id)
    store.undo(ev.id)
    assert store.get(rec.id).status is Status.DELETED


def test_supersede_undo(store: MemoryStore, rec) -> None:
    newer = store.add(user_id="u", text="User prefers coffee now.", type="preference")
    ch = store.supersede(rec.id, newer.id)
    store.undo(ch.event_ids[0])
    assert store.get(rec.id) == rec


def test_bulk_update_is_one_group_and_undoes_together(store: MemoryStore) -> None:
    recs = [store.add(user_id="u", text=f"m{i}", type="note", topic="a") for i in range(4)]
    ch = store.bulk_update([r.id for r in recs], topic="b", importance=0.6)
    assert ch.group_id and len(ch.event_ids) == 4
    assert {e.group_id for e in store.group_events(ch.group_id)} == {ch.group_id}
    assert all(store.get(r.id).topic == "b" for r in recs)
    store.undo_group(ch.group_id)
    assert [store.get(r.id) for r in recs] == recs


def test_noop_update_records_nothing(store: MemoryStore, rec) -> None:
    ch = store.update(rec.id, importance=0.4)
    assert ch.event_ids == () and len(store.events(rec.id)) == 1


# -- the one generic undo: every kind of action group, and redo -----------------------

def _sweepable(store: MemoryStore, n: int = 6) -> list[str]:
    return store.add_many([
        dict(user_id="u", text=f"note {i}", type="note", importance=0.35) for i in range(n)
    ], audit=False)


def test_generic_undo_and_redo_of_a_sweep_decision(store: MemoryStore) -> None:
    from memdesk.core.store.records import Changed
    from memdesk.core.undo.generic import undo_changes, undo_group

    _sweepable(store)
    state = Sweeps(store).start(n=2, seed=5)
    mid = state.items[0].memory_id
    step = Sweeps(store).decide(state.id, 0, "revalue", importance=0.9)
    assert step.changes.touches(Changed.SWEEPS) and step.changes.memories

    undone = undo_changes(store, step.changes)
    assert store.get(mid).importance == 0.35
    assert Sweeps(store).get(state.id).items[0].decision is None
    assert undone.touches(Changed.SWEEPS) and undone.memories  # found from the chain

    redone = undo_group(store, undone.group_id)  # redo: undo the undo
    assert store.get(mid).importance == 0.9
    item = Sweeps(store).get(state.id).items[0]
    assert (item.decision, item.importance_after) == ("revalue", 0.9)
    assert redone.touches(Changed.SWEEPS)

    undo_group(store, redone.group_id)  # and undo again
    assert Sweeps(store).get(state.id).items[0].decision is None
    assert store.get(mid).importance == 0.35


def test_generic_undo_of_a_skip_changes_no_memory(store: MemoryStore) -> None:
    from memdesk.core.undo.generic import undo_changes

    _sweepable(store)
    state = Sweeps(store).start(n=2, seed=5)
    before = store.get(state.items[0].memory_id)
    step = Sweeps(store).decide(state.id, 0, "skip")
    assert not step.changes.memories
    undone = undo_changes(store, step.changes)
    assert not undone.memories
    assert Sweeps(store).get(state.id).current.pos == 0
    assert store.get(before.id) == before


def test_generic_undo_and_redo_of_keep_both_dismissal(store: MemoryStore) -> None:
    from memdesk.core.store.records import Changed
    from memdesk.core.undo.generic import undo_changes, undo_group

    for v in ("Acme", "Globex"):
        store.add(user_id="alice", text=f"Alice works at {v}.", type="fact",
                  entity="alice", attribute="works_at", value=v)
    [group] = Contradictions(store).find()
    res = Contradictions(store).keep_all(Contradictions(store).load(group.key))
    assert Contradictions(store).find() == []
    undone = undo_changes(store, res.changes)
    assert undone.touches(Changed.CONTRADICTIONS) and not undone.memories
    assert [g.key for g in Contradictions(store).find()] == [group.key]
    undo_group(store, undone.group_id)  # redo: dismissed again
    assert Contradictions(store).find() == []


def test_generic_undo_of_a_delta_review_group(store: MemoryStore) -> None:
    from memdesk.core.delta.service import DeltaMemory
    from memdesk.core.store.records import Changed
    from memdesk.core.undo.generic import undo_changes

    dm = DeltaMemory(store)
    name = dm.config().sources[0].name
    before = dm.config().sources[0].weight
    ch = dm.set_source(name, weight=0.05)
    assert ch.touches(Changed.SOURCES) and not ch.memories and ch.group_id
    undone = undo_changes(store, ch)
    assert dm.config().sources[0].weight == before
    assert undone.sources == (name,) and undone.touches(Changed.SOURCES)
    assert not undone.touches(Changed.MEMORIES | Changed.HISTORY)


def test_undo_of_an_unknown_group_is_not_found(store: MemoryStore) -> None:
    from memdesk.core.errors import NotFoundError

    with pytest.raises(NotFoundError, match="No action group"):
        store.undo_group("no-such-group")
