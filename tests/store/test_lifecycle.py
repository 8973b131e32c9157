"""Superseded, expired and soft-deleted memories stay out of the active belief state
everywhere it is used; NULL topics are handled by every filter that reads topics.

The rows come from the shared fixtures (tests/conftest.py: ``lifecycle`` on an empty
store, ``demo_lifecycle`` inside every demo store).  Expectations are written from the
rows' own fields, never from the store's status helpers.
"""

from __future__ import annotations

from memdesk.core.curation.service import Contradictions, Sweeps
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.records import MemoryRecord
from tests.helpers.stores import (
    LIFECYCLE_DELETED,
    LIFECYCLE_EXPIRED,
    LIFECYCLE_ROWS,
    LIFECYCLE_SUPERSEDED,
    LIFECYCLE_WORD,
    Lifecycle,
)

ALL = tuple(Status)


def every_row(store: MemoryStore) -> list[MemoryRecord]:
    return store.page(MemoryFilter(statuses=ALL), limit=None)


def live(r: MemoryRecord) -> bool:
    # A belief: not deleted, expired or superseded, and not held by the guard or the
    # secrets lane, not archived, not said as a hypothetical (the demo holds all kinds).
    return (r.deleted_at is None and r.valid_until is None and r.superseded_by is None
            and r.quarantined_at is None and r.archived_at is None and r.framing is None)


def test_fixture_rows_are_what_they_claim(store: MemoryStore, lifecycle: Lifecycle) -> None:
    rows = {r.id: r for r in every_row(store)}
    assert len(rows) == LIFECYCLE_ROWS
    assert rows[lifecycle.deleted].deleted_at is not None
    assert rows[lifecycle.expired].valid_until is not None
    assert rows[lifecycle.expired].superseded_by is None
    assert rows[lifecycle.superseded].superseded_by == lifecycle.active
    assert rows[lifecycle.active_no_topic].topic is None
    assert {i for i, r in rows.items() if not live(r)} == set(lifecycle.inactive)


def test_active_and_default_listing_exclude_inactive(store: MemoryStore,
                                                     lifecycle: Lifecycle) -> None:
    assert {r.id for r in store.active()} == {lifecycle.active, lifecycle.active_no_topic,
                                              lifecycle.expired_only_user_active}
    assert {r.id for r in store.active("alice")} == {lifecycle.active, lifecycle.active_no_topic}
    # The default filter hides only deleted rows: superseded and expired stay listable.
    default = {r.id for r in store.page(limit=None)}
    assert default == set(lifecycle.all) - {lifecycle.deleted, lifecycle.deleted_no_topic}
    assert store.count() == LIFECYCLE_ROWS - LIFECYCLE_DELETED


def test_status_filter_selects_exactly_each_status(store: MemoryStore,
                                                   lifecycle: Lifecycle) -> None:
    def ids(*statuses: Status) -> set[str]:
        return {r.id for r in store.page(MemoryFilter(statuses=statuses), limit=None)}

    assert ids(Status.ACTIVE) == {lifecycle.active, lifecycle.active_no_topic,
                                  lifecycle.expired_only_user_active}
    assert ids(Status.SUPERSEDED) == {lifecycle.superseded}
    assert ids(Status.EXPIRED) == {lifecycle.expired, lifecycle.expired_only_user}
    assert ids(Status.DELETED) == {lifecycle.deleted, lifecycle.deleted_no_topic}
    assert ids(Status.ACTIVE, Status.DELETED) == ids(Status.ACTIVE) | ids(Status.DELETED)
    assert store.counts() == {"active": 3, "superseded": LIFECYCLE_SUPERSEDED,
                              "expired": LIFECYCLE_EXPIRED, "deleted": LIFECYCLE_DELETED,
                              "quarantined": 0, "archived": 0, "hypothetical": 0,
                              "total": LIFECYCLE_ROWS}


def test_a_deleted_row_is_deleted_whatever_else_it_is(store: MemoryStore,
                                                      lifecycle: Lifecycle) -> None:
    """Deletion wins over superseded and expired, in the filter, the sort and the record."""
    store.soft_delete(lifecycle.superseded)
    store.soft_delete(lifecycle.expired)
    deleted = {r.id for r in store.page(MemoryFilter(statuses=(Status.DELETED,)), limit=None)}
    assert {lifecycle.superseded, lifecycle.expired} <= deleted
    for st in (Status.SUPERSEDED, Status.EXPIRED):
        got = {r.id for r in store.page(MemoryFilter(statuses=(st,)), limit=None)}
        assert not got & {lifecycle.superseded, lifecycle.expired}
    assert store.get(lifecycle.superseded).status is Status.DELETED
    assert store.counts()["deleted"] == LIFECYCLE_DELETED + 2
    # Sorting by status groups the same way as the filter (deleted rows shown on request).
    order = [r.id for r in store.page(MemoryFilter(statuses=ALL), order_by="status",
                                      descending=False, limit=None)]
    statuses = [store.get(i).status.value for i in order]
    assert statuses == sorted(statuses)


def test_text_search_respects_status(store: MemoryStore, lifecycle: Lifecycle) -> None:
    hits = {r.id for r in store.page(MemoryFilter(text=LIFECYCLE_WORD), limit=None)}
    assert hits == set(lifecycle.all) - {lifecycle.deleted, lifecycle.deleted_no_topic}
    active = MemoryFilter(text="employed " + LIFECYCLE_WORD, statuses=(Status.ACTIVE,))
    assert {r.id for r in store.page(active, limit=None)} == {
        lifecycle.active, lifecycle.expired_only_user_active}


def test_null_topic_rows(store: MemoryStore, lifecycle: Lifecycle) -> None:
    assert store.distinct("topic") == ["work"]  # NULL is not a pickable topic
    work = {r.id for r in store.page(MemoryFilter(topics=("work",)), limit=None)}
    assert lifecycle.active_no_topic not in work and lifecycle.active in work
    # Sorting by topic keeps NULL-topic rows (SQLite sorts NULL first ascending).
    by_topic = store.page(order_by="topic", descending=False, limit=None)
    assert len(by_topic) == store.count()
    assert by_topic[0].topic is None


def test_delta_database_source_sees_only_active_memories(store: MemoryStore,
                                                         lifecycle: Lifecycle) -> None:
    got = DeltaMemory(store).candidates("employed " + LIFECYCLE_WORD, limit=20)
    # Both words: relevance 1; the widening by single words adds the other active row
    # with half the words.  No inactive row, though each contains both words.
    assert {c.candidate_id: c.relevance for c in got} == {
        lifecycle.active: 1.0, lifecycle.expired_only_user_active: 1.0,
        lifecycle.active_no_topic: 0.5}
    got = DeltaMemory(store).candidates(LIFECYCLE_WORD, limit=20)
    assert {c.candidate_id for c in got} == {lifecycle.active, lifecycle.active_no_topic,
                                             lifecycle.expired_only_user_active}
    assert DeltaMemory(store).candidates("Deleted GmbH", limit=20) == []
    bob = DeltaMemory(store).candidates(LIFECYCLE_WORD, limit=20, user_id="bob")
    assert [c.candidate_id for c in bob] == [lifecycle.expired_only_user_active]
    ms = DeltaMemory(store).build("g", LIFECYCLE_WORD, [])
    assert {c.key for c in ms.contributions} == {
        "id:" + i for i in (lifecycle.active, lifecycle.active_no_topic,
                            lifecycle.expired_only_user_active)}


def test_inactive_values_make_no_contradiction(store: MemoryStore, lifecycle: Lifecycle) -> None:
    # Active values "Acme Corp" and "  acme  corp" agree once normalised; every other
    # value is superseded, expired or deleted.
    assert Contradictions(store).find(include_dismissed=True) == []
    group = Contradictions(store).load(("alice", "user", "employer"))
    assert set(group.member_ids) == {lifecycle.active, lifecycle.active_no_topic}
    assert not group.is_contradiction and group.suggestion is None
    # Reviving the expired value (undoing its expiry) makes it a contradiction again.
    [expiry] = [e for e in store.events(lifecycle.expired) if e.action == "edit"]
    store.undo(expiry.id)
    [g] = Contradictions(store).find()
    assert g.key == ("alice", "user", "employer")
    assert {v.norm for v in g.values} == {"acme corp", "expired inc"}


def test_sweep_samples_only_active_rows(store: MemoryStore, lifecycle: Lifecycle) -> None:
    state = Sweeps(store).start(band=(0.4, 0.5), n=50, seed=1)
    assert {it.memory_id for it in state.items} == {
        lifecycle.active, lifecycle.active_no_topic, lifecycle.expired_only_user_active}


def test_demo_store_active_state_excludes_the_lifecycle_rows(
    demo_store: MemoryStore, demo_lifecycle: Lifecycle
) -> None:
    rows = every_row(demo_store)
    assert len({r.id for r in rows} & set(demo_lifecycle.all)) == LIFECYCLE_ROWS
    expected_active = {r.id for r in rows if live(r)}
    assert {r.id for r in demo_store.active()} == expected_active
    assert demo_store.count(MemoryFilter(statuses=(Status.ACTIVE,))) == len(expected_active)
    assert not expected_active & set(demo_lifecycle.inactive)
    deleted = {r.id for r in rows if r.deleted_at is not None}
    assert deleted == {demo_lifecycle.deleted, demo_lifecycle.deleted_no_topic}
    assert not deleted & {r.id for r in demo_store.page(limit=None)}


def test_demo_contradictions_are_computed_from_active_rows_only(
    demo_store: MemoryStore
) -> None:
    """An independent oracle: group the active triples in Python (an attribute held
    several at once, as core/write/cardinality.py declares them, never contradicts)."""
    from memdesk.core.write.cardinality import multi_valued

    values: dict[tuple[str, str, str], set[str]] = {}
    for r in every_row(demo_store):
        if (live(r) and r.entity and r.attribute and r.value is not None
                and not multi_valued(r.attribute)):
            key = (r.user_id, r.entity, r.attribute)
            values.setdefault(key, set()).add(" ".join(r.value.split()).casefold())
    expected = {k for k, v in values.items() if len(v) >= 2}
    found = {g.key for g in Contradictions(demo_store).find(include_dismissed=True)}
    assert found == expected
    users = demo_store.distinct("user_id")
    assert (users[0], "user", "employer") not in found
    assert (users[1], "user", "employer") not in found


def test_superseded_without_an_expiry_is_still_not_active(store: MemoryStore) -> None:
    """supersede() also sets valid_until; an edit of superseded_by alone does not, and the
    row must leave the active state all the same (the write-phase design: both fields are
    checked)."""
    old = store.add(user_id="u", text="old", type="fact").id
    new = store.add(user_id="u", text="new", type="fact").id
    store.update(old, superseded_by=new)
    rec = store.get(old)
    assert rec.valid_until is None and rec.status is Status.SUPERSEDED
    assert [r.id for r in store.active()] == [new]
    assert {r.id for r in store.page(MemoryFilter(statuses=(Status.ACTIVE,)), limit=None)} == {
        new}
    assert [r.id for r in store.page(MemoryFilter(statuses=(Status.SUPERSEDED,)))] == [old]


def test_filter_with_replaces_only_what_is_given() -> None:
    base = MemoryFilter(user_ids=("u",), statuses=(Status.ACTIVE,))
    f = base.with_(text="kayak", user_ids=("v",))
    assert (f.text, f.user_ids, f.statuses) == ("kayak", ("v",), (Status.ACTIVE,))
    assert base.text == "" and base.user_ids == ("u",)
