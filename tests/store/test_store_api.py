"""MemoryStore methods the GUI relies on and no other core test exercised: bulk delete
and bulk supersede (one undoable group each), get_many, chain, distinct, events and
group undo, with the exact ``Changes`` each returns."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memdesk.core.errors import (
    EditConflictError,
    NotFoundError,
    UndoConflictError,
    ValidationError,
)
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.records import Changed
from tests.helpers.deadline import finishes
from tests.helpers.raw_sql import raw_sql

T0 = datetime(2026, 4, 1)


def _ids(store: MemoryStore, *args, **kw) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.id for r in store.page(*args, **kw)]


def notes(store: MemoryStore, n: int, **kw) -> list[str]:  # type: ignore[no-untyped-def]
    return [store.add(user_id="u", text=f"note {i}", type="note",
                      created_at=T0 + timedelta(minutes=i), **kw).id for i in range(n)]


def test_bulk_delete_is_one_group_undone_together(store: MemoryStore) -> None:
    ids = notes(store, 4)
    before = [store.get(i) for i in ids]
    ch = store.bulk_delete(ids[:3])
    assert ch.memory_ids == tuple(ids[:3]) and len(ch.event_ids) == 3 and ch.group_id
    assert [store.get(i).status for i in ids] == [Status.DELETED] * 3 + [Status.ACTIVE]
    evs = store.group_events(ch.group_id)
    assert [e.id for e in evs] == sorted(ch.event_ids)  # oldest first
    assert {e.action for e in evs} == {"delete"} and {e.actor for e in evs} == {"operator"}
    assert all(set(e.after) == {"deleted_at"} and e.before == {"deleted_at": None}
               for e in evs)
    assert store.count() == 1
    undo = store.undo_group(ch.group_id)
    assert [store.get(i) for i in ids] == before
    assert set(undo.memory_ids) == set(ids[:3]) and len(undo.event_ids) == 3
    assert undo.group_id and undo.group_id != ch.group_id
    assert {e.action for e in store.group_events(undo.group_id)} == {"undo"}
    # Redo: undo the undo group.
    store.undo_group(undo.group_id)
    assert store.count() == 1


def test_bulk_supersede_skips_the_target_and_groups_the_rest(store: MemoryStore) -> None:
    a, b, c, new = notes(store, 4)
    ch = store.bulk_supersede([a, b, new, c], new)
    assert ch.memory_ids == (a, b, new, c, new)
    assert len(ch.event_ids) == 3  # the target itself is not superseded
    for old in (a, b, c):
        rec = store.get(old)
        assert rec.superseded_by == new and rec.valid_until is not None
        assert rec.status is Status.SUPERSEDED
    assert store.get(new).is_active
    assert {e.memory_id for e in store.group_events(ch.group_id)} == {a, b, c}
    older, newer = store.chain(new)
    assert {r.id for r in older} == {a, b, c} and newer == []
    store.undo_group(ch.group_id)
    assert all(store.get(i).is_active for i in (a, b, c, new))


def test_bulk_supersede_refuses_an_unknown_target_and_writes_nothing(store: MemoryStore) -> None:
    a, b = notes(store, 2)
    with pytest.raises(NotFoundError):
        store.bulk_supersede([a, b], "missing")
    assert all(store.get(i).is_active for i in (a, b))
    assert len(store.events(limit=100)) == 2


def test_supersede_refuses_an_unknown_new_memory(store: MemoryStore) -> None:
    [a] = notes(store, 1)
    with pytest.raises(NotFoundError):
        store.supersede(a, "missing")
    with pytest.raises(ValidationError):
        store.update(a, superseded_by="missing")
    assert store.get(a).is_active


def test_supersede_returns_both_ids_and_the_event(store: MemoryStore) -> None:
    a, b = notes(store, 2)
    ch = store.supersede(a, b, note="dup", group_id="g1")
    assert ch.memory_ids == (a, b) and ch.group_id == "g1"
    [ev] = [store.event(i) for i in ch.event_ids]
    assert (ev.memory_id, ev.action, ev.note, ev.group_id) == (a, "supersede", "dup", "g1")
    # Superseding again moves valid_until to now: a real change, audited again.
    again = store.supersede(a, b)
    assert [set(store.event(i).after) for i in again.event_ids] == [{"valid_until"}]


def test_get_many_keeps_the_asked_order_and_skips_unknown(store: MemoryStore) -> None:
    ids = notes(store, 5)
    asked = [ids[3], "nope", ids[0], ids[4]]
    assert [r.id for r in store.get_many(asked)] == [ids[3], ids[0], ids[4]]
    assert store.get_many([]) == []


def test_get_many_reads_more_than_one_chunk(store: MemoryStore) -> None:
    ids = store.add_many([dict(user_id="u", text=f"m{i}", type="note") for i in range(1203)])
    asked = list(reversed(ids))
    got = store.get_many(asked)
    assert [r.id for r in got] == asked
    assert got[0].text == "m1202" and got[-1].text == "m0"


def test_chain_follows_several_links_both_ways(store: MemoryStore) -> None:
    a, b, c, d = notes(store, 4)
    store.supersede(a, b)
    store.supersede(b, c)
    store.supersede(d, c)  # two memories replaced by c
    older, newer = store.chain(b)
    assert [r.id for r in older] == [a] and [r.id for r in newer] == [c]
    older, newer = store.chain(a)
    assert older == [] and [r.id for r in newer] == [b, c]
    older, newer = store.chain(c)
    assert [r.id for r in older] == [a, b, d]  # oldest first by created_at
    assert newer == []
    with pytest.raises(NotFoundError):
        store.chain("nope")


def test_chain_stops_at_a_dangling_link(store: MemoryStore, store_path) -> None:
    a, b = notes(store, 2)
    store.supersede(a, b)
    raw_sql(store_path, "DELETE FROM memories WHERE id = ?", b)  # another tool, FKs off
    assert store.get(a).superseded_by == b  # the link now points nowhere
    older, newer = store.chain(a)
    assert older == [] and newer == []


def test_distinct_lists_sorted_non_null_values(store: MemoryStore) -> None:
    for user, topic in (("bob", "work"), ("alice", None), ("carol", "food"), ("bob", "food")):
        store.add(user_id=user, text="t", type="note", topic=topic)
    assert store.distinct("user_id") == ["alice", "bob", "carol"]
    assert store.distinct("topic") == ["food", "work"]
    assert store.distinct("user_id", limit=2) == ["alice", "bob"]
    assert store.distinct("type") == ["note"]
    with pytest.raises(ValidationError, match="column"):
        store.distinct("text")


def test_events_newest_first_per_memory_and_limited(store: MemoryStore) -> None:
    a, b = notes(store, 2)
    store.update(a, importance=0.9)
    store.update(b, importance=0.1)
    store.update(a, importance=0.2)
    all_ev = store.events()
    assert [e.id for e in all_ev] == sorted((e.id for e in all_ev), reverse=True)
    assert [(e.memory_id, e.action) for e in store.events(a)] == [
        (a, "edit"), (a, "edit"), (a, "add")]
    assert [e.after for e in store.events(a, limit=1)] == [{"importance": 0.2}]
    assert len(store.events(limit=2)) == 2
    with pytest.raises(NotFoundError):
        store.event(99999)


def test_undo_group_unknown_and_conflict_roll_back_everything(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError):
        store.undo_group("nope")
    ids = notes(store, 3)
    ch = store.bulk_update(ids, importance=0.9)
    store.update(ids[1], importance=0.3)  # a later change to one member
    before = [store.get(i) for i in ids]
    with pytest.raises(UndoConflictError, match="importance"):
        store.undo_group(ch.group_id)
    assert [store.get(i) for i in ids] == before  # none of the three was undone
    assert all(e.undone_by is None for e in store.group_events(ch.group_id))


def test_page_limit_offset_and_none(store: MemoryStore) -> None:
    ids = notes(store, 7)
    newest_first = list(reversed(ids))
    assert [r.id for r in store.page(limit=3)] == newest_first[:3]
    assert [r.id for r in store.page(offset=3, limit=3)] == newest_first[3:6]
    assert [r.id for r in store.page(limit=None)] == newest_first
    assert _ids(store, offset=5, limit=None) == newest_first[5:]
    assert _ids(store, descending=False, limit=2) == ids[:2]
    assert _ids(store, order_by="seq", descending=False, limit=None) == ids


def test_active_orders_by_importance_and_limits(store: MemoryStore) -> None:
    lo = store.add(user_id="u", text="lo", type="note", importance=0.1).id
    hi = store.add(user_id="u", text="hi", type="note", importance=0.9).id
    mid = store.add(user_id="v", text="mid", type="note", importance=0.5).id
    assert [r.id for r in store.active()] == [hi, mid, lo]
    assert [r.id for r in store.active(limit=2)] == [hi, mid]
    assert [r.id for r in store.active("u")] == [hi, lo]
    assert store.active("nobody") == []


def test_filters_each_restrict(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="alpha", type="fact", layer="semantic", topic="t1",
                  source_session="s1", entity="user", attribute="job", value="x",
                  created_at=T0, confidence=0.3).id
    b = store.add(user_id="v", text="beta", type="note", topic="t2", source_session="s2",
                  created_at=T0 + timedelta(days=2), confidence=0.9).id

    def ids(**kw) -> set[str]:  # type: ignore[no-untyped-def]
        return set(_ids(store, MemoryFilter(**kw), limit=None))

    assert ids(types=("fact",)) == {a}
    assert ids(layers=("semantic",)) == {a}
    assert ids(layers=("semantic",)) == {a}  # b was routed to episodic on insert
    store.update(b, layer="")  # no layer (as in stores written before the router)
    assert ids(layers=("",)) == {b}  # "" picks rows with no layer
    assert ids(layers=("semantic", "")) == {a, b}
    assert ids(topics=("t2",)) == {b}
    assert ids(sessions=("s1",)) == {a}
    assert ids(entity="user") == {a} and ids(attribute="job") == {a}
    assert ids(confidence=(0.3, 0.3)) == {a}  # bands are inclusive
    assert ids(created_from=T0 + timedelta(days=1)) == {b}
    assert ids(created_to=T0) == {a}  # inclusive
    assert ids(created_from=T0, created_to=T0 + timedelta(days=2)) == {a, b}
    assert ids(ids=(b, "nope")) == {b}
    assert ids(ids=()) == set()  # an empty id list matches nothing
    assert ids() == {a, b}


def test_active_ties_keep_insertion_order(store: MemoryStore) -> None:
    ids = [store.add(user_id="u", text=f"t{i}", type="note", importance=0.5).id
           for i in range(4)]
    assert [r.id for r in store.active()] == ids


def test_distinct_refusal_names_the_column(store: MemoryStore) -> None:
    with pytest.raises(ValidationError) as info:
        store.distinct("embedding")
    assert info.value.field == "column"
    assert str(info.value) == "column: no distinct listing for 'embedding'"


def test_distinct_lists_each_pickable_column_sorted_without_nulls(store: MemoryStore) -> None:
    store.add(user_id="u2", text="a", type="fact", topic="t2", source_session="s2",
              layer="semantic", entity="Oslo", attribute="a", value="v")
    store.add(user_id="u1", text="b", type="note", topic="t1", source_session="s1",
              layer="episodic", entity="Bergen", attribute="a", value="v")
    store.add(user_id="u1", text="c", type="note")  # NULL topic, session, layer, entity
    assert store.distinct("user_id") == ["u1", "u2"]
    assert store.distinct("topic") == ["t1", "t2"]
    assert store.distinct("source_session") == ["s1", "s2"]
    assert store.distinct("type") == ["fact", "note"]
    assert store.distinct("layer") == ["episodic", "semantic"]
    assert store.distinct("entity") == ["Bergen", "Oslo"]


def test_distinct_lists_at_most_a_thousand_by_default(store: MemoryStore) -> None:
    store.add_many([dict(user_id="u", text=f"m{i}", type="note", topic=f"t{i:04d}")
                    for i in range(1001)])
    topics = store.distinct("topic")
    assert len(topics) == 1000 and topics[-1] == "t0999"
    assert len(store.distinct("topic", limit=1001)) == 1001


def test_events_default_to_the_newest_500(store: MemoryStore) -> None:
    store.add_many([dict(user_id="u", text=f"m{i}", type="note") for i in range(501)])
    events = store.events()
    assert len(events) == 500
    assert len(store.events(limit=1000)) == 501
    assert events[-1].id == store.events(limit=1000)[-2].id  # the oldest one is left out


def test_chain_ends_in_a_cycle_written_by_another_tool(store: MemoryStore, store_path) -> None:
    a, b, c = notes(store, 3)
    store.supersede(a, b)
    store.supersede(b, c)
    raw_sql(store_path, "UPDATE memories SET superseded_by = ? WHERE id = ?", b, c)  # c → b
    older, newer = finishes(lambda: store.chain(a))  # a walk that loops fails, not hangs
    assert [r.id for r in newer] == [b, c] and older == []


def test_linking_into_an_existing_cycle_is_refused(store: MemoryStore, store_path) -> None:
    a, b, c = notes(store, 3)
    store.supersede(b, c)
    raw_sql(store_path, "UPDATE memories SET superseded_by = ? WHERE id = ?", b, c)  # c → b
    # The walk along b's chain must stop at the cycle it did not make (a bug there
    # hangs the caller: run it under a deadline so the test fails instead).
    with pytest.raises(ValidationError) as info:
        finishes(lambda: store.update(a, superseded_by=b))
    assert str(info.value) == "superseded_by: this would make a supersede cycle"
    assert store.get(a).superseded_by is None


def test_a_cycle_through_the_api_is_refused_naming_the_field(store: MemoryStore) -> None:
    a, b, c = notes(store, 3)
    store.supersede(a, b)
    store.supersede(b, c)
    with pytest.raises(ValidationError, match="this would make a supersede cycle") as info:
        store.supersede(c, a)
    assert info.value.field == "superseded_by"


def test_chain_stops_walking_older_memories_after_a_thousand(store: MemoryStore) -> None:
    [top] = notes(store, 1)
    level1 = store.add_many([dict(user_id="u", text=f"old {i}", type="note",
                                  superseded_by=top, created_at=T0 + timedelta(hours=i))
                             for i in range(1000)])
    store.add(user_id="u", text="older still", type="note", superseded_by=level1[0])
    older, _ = store.chain(top)
    assert len(older) == 1000 and {r.id for r in older} == set(level1)
    older, _ = store.chain(level1[0])  # a small chain still reaches every level
    assert [r.text for r in older] == ["older still"]


def test_soft_delete_records_who_why_and_group(store: MemoryStore) -> None:
    [a] = notes(store, 1)
    ch = store.soft_delete(a, actor="agent", note="duplicate", group_id="g7")
    ev = store.event(ch.event_ids[0])
    assert (ev.action, ev.actor, ev.note, ev.group_id) == ("delete", "agent", "duplicate", "g7")
    assert ch.group_id == "g7" and store.get(a).status is Status.DELETED
    ch = store.bulk_delete([notes(store, 1)[0]], actor="agent")
    assert {e.actor for e in store.group_events(ch.group_id)} == {"agent"}


def test_undo_group_undoes_newest_first(store: MemoryStore) -> None:
    """Two changes to one memory in one group: undone in reverse, or the first conflicts."""
    [a] = notes(store, 1)
    original = store.get(a)
    store.update(a, importance=0.7, group_id="g")
    store.update(a, importance=0.9, group_id="g")
    ch = store.undo_group("g")
    assert store.get(a) == original
    undone = [store.event(i) for i in ch.event_ids]
    assert [e.before for e in undone] == [{"importance": 0.9}, {"importance": 0.7}]


def test_record_access_counts_each_id_once_per_call_without_an_edit(
        store: MemoryStore) -> None:
    # 501 rows: the ids go to the database in chunks of 500, so the last one is in a
    # second chunk that must be counted too.
    ids = notes(store, 501)
    other = store.add(user_id="u", text="never retrieved", type="note")
    events_before = len(store.events(limit=10_000))
    versions = {i: store.get(i).version for i in (ids[0], ids[-1], other.id)}
    at = datetime(2026, 3, 4, 5, 6, 7)
    assert store.record_access(ids, at=at) == 501
    assert store.record_access([ids[0], ids[-1], "no-such-id"], at=at + timedelta(days=1)) == 2
    first, middle, last = store.get(ids[0]), store.get(ids[250]), store.get(ids[-1])
    assert (first.access_count, middle.access_count, last.access_count) == (2, 1, 2)
    assert middle.last_accessed == at
    assert last.last_accessed == at + timedelta(days=1)
    untouched = store.get(other.id)
    assert (untouched.access_count, untouched.last_accessed) == (0, None)
    # Not an edit: no audit row, and an operator's open edit (its version) stays valid.
    assert len(store.events(limit=10_000)) == events_before
    assert {i: store.get(i).version for i in versions} == versions
    assert store.record_access([]) == 0


def test_record_access_without_a_time_uses_now(store: MemoryStore) -> None:
    from memdesk.core.ids import utcnow

    rec = store.add(user_id="u", text="counted", type="note")
    before = utcnow()
    assert store.record_access([rec.id]) == 1
    got = store.get(rec.id).last_accessed
    assert got is not None and before <= got <= utcnow()


def test_superseding_a_memory_by_itself_is_refused_naming_the_field(
        store: MemoryStore) -> None:
    [a] = notes(store, 1)
    with pytest.raises(ValidationError) as info:
        store.supersede(a, a)
    assert info.value.field == "superseded_by"
    assert str(info.value) == "superseded_by: a memory cannot supersede itself"
    assert store.get(a).superseded_by is None


def test_event_reads_the_event_asked_for(store: MemoryStore) -> None:
    a, b = notes(store, 2)
    first = store.update(a, topic="x").event_ids[0]
    second = store.update(b, topic="y").event_ids[0]
    ev = store.event(first)
    assert (ev.id, ev.memory_id, ev.after) == (first, a, {"topic": "x"})
    with store.read() as conn:  # inside a caller's transaction too
        ev2 = store.event(second, conn)
    assert (ev2.id, ev2.memory_id, ev2.after) == (second, b, {"topic": "y"})


def test_undo_reports_the_memory_and_event_and_undo_group_keeps_the_actor(
        store: MemoryStore) -> None:
    a, b = notes(store, 2)
    ch = store.update(a, topic="x")
    undone = store.undo(ch.event_ids[0], actor="agent")
    assert undone.memory_ids == (a,) and len(undone.event_ids) == 1
    ev = store.event(undone.event_ids[0])
    assert (ev.memory_id, ev.actor, ev.undoes) == (a, "agent", ch.event_ids[0])
    group = store.bulk_update([a, b], topic="z")
    g_undone = store.undo_group(group.group_id, actor="worker")
    assert {store.event(i).actor for i in g_undone.event_ids} == {"worker"}
    assert {i: store.get(i).topic for i in (a, b)} == {a: None, b: None}


def test_is_undone_alternates_along_the_undo_chain_and_ends_at_a_cycle(
        store: MemoryStore, store_path) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.store.audit import is_undone

    [a] = notes(store, 1)
    edit = store.update(a, topic="x").event_ids[0]
    undo = store.undo(edit).event_ids[0]  # edit undone
    with store.read() as conn:
        assert is_undone(conn, None) is False
        assert is_undone(conn, store.event(edit).undone_by) is True
    redo = store.undo(undo).event_ids[0]  # the undo undone: the edit holds again
    with store.read() as conn:
        assert is_undone(conn, store.event(edit).undone_by) is False
    # Another tool links the redo back to the undo: the walk must still end.
    raw_sql(store_path, "UPDATE memory_events SET undone_by = ? WHERE id = ?", undo, redo)

    def walk() -> bool:
        with store.read() as conn:
            return is_undone(conn, undo)

    assert finishes(walk) in (True, False)


def test_page_skips_and_fills_across_fetch_chunks(store: MemoryStore, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.store import memory_store

    # page() fetches _SKIP_CHUNK rows at a time (5,000); 4 makes 23 rows several chunks.
    monkeypatch.setattr(memory_store, "_SKIP_CHUNK", 4)
    newest_first = notes(store, 23)[::-1]
    assert _ids(store, limit=None) == newest_first
    assert _ids(store, offset=9, limit=6) == newest_first[9:15]
    assert _ids(store, offset=21, limit=5) == newest_first[21:]
    assert _ids(store, offset=30) == []
    assert _ids(store, limit=1) == newest_first[:1]
    assert _ids(store) == newest_first  # the default limit (100) is above 23


def test_page_returns_a_hundred_by_default(store: MemoryStore) -> None:
    store.add_many([dict(user_id="u", text=f"m{i}", type="note") for i in range(101)])
    assert len(store.page()) == 100
    assert len(store.page(limit=None)) == 101


def test_an_edit_reports_what_it_changed_and_a_no_op_nothing(store: MemoryStore) -> None:
    [a] = notes(store, 1)
    ch = store.update(a, topic="x")
    assert ch.kinds == Changed.MEMORIES | Changed.HISTORY and ch.memory_ids == (a,)
    same = store.update(a, topic="x")  # the value it already has: no event
    assert same.event_ids == () and same.kinds == Changed.NOTHING


def test_an_edit_cannot_make_a_memory_supersede_itself(store: MemoryStore) -> None:
    [a] = notes(store, 1)
    with pytest.raises(ValidationError) as info:
        store.update(a, superseded_by=a)
    assert str(info.value) == "superseded_by: a memory cannot supersede itself"
    assert store.get(a).superseded_by is None


def test_a_stale_edit_names_the_memory_and_both_versions(store: MemoryStore) -> None:
    [a] = notes(store, 1)
    seen = store.get(a).version
    store.update(a, topic="x")
    with pytest.raises(EditConflictError) as info:
        store.update(a, topic="y", expected_version=seen)
    assert info.value.memory_id == a
    assert f"Memory {a} was changed by someone else" in str(info.value)
    assert store.get(a).topic == "x"


def test_undo_after_a_later_change_says_which_field_and_what_to_do(store: MemoryStore) -> None:
    [a] = notes(store, 1)
    first = store.update(a, topic="x").event_ids[0]
    store.update(a, topic="y")
    with pytest.raises(UndoConflictError) as info:
        store.undo(first)
    assert str(info.value) == (
        f"Cannot undo action {first} on memory {a}: its topic was changed again since. "
        "Undo the later change first.")


def test_an_offered_id_is_kept_up_to_its_limit_and_refused_beyond(store: MemoryStore) -> None:
    kept = store.add(id="k" * 64, user_id="u", text="a", type="note")
    assert kept.id == "k" * 64
    with pytest.raises(ValidationError) as info:
        store.add(id="k" * 65, user_id="u", text="b", type="note")
    assert str(info.value) == "id: is 65 characters; the limit is 64"
    assert store.add(id="   ", user_id="u", text="c", type="note").id.strip()  # blank: a new one


def test_add_records_its_note_and_checks_the_link_it_is_given(store: MemoryStore) -> None:
    rec = store.add(user_id="u", text="a", type="note", note="from the inbox")
    [ev] = store.events(rec.id)
    assert (ev.action, ev.note) == ("add", "from the inbox")
    with pytest.raises(ValidationError) as info:
        store.add(user_id="u", text="b", type="note", superseded_by="no-such-memory")
    assert str(info.value) == "superseded_by: no memory with id 'no-such-memory'"
    with pytest.raises(ValidationError) as info:
        store.add(id="me", user_id="u", text="c", type="note", superseded_by="me")
    assert str(info.value) == "superseded_by: a memory cannot supersede itself"
    newer = store.add(user_id="u", text="d", type="note")
    older = store.add(user_id="u", text="e", type="note", superseded_by=newer.id)
    assert store.get(older.id).superseded_by == newer.id
    assert store.count() == 3  # the two refused adds wrote nothing
