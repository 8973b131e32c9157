"""MemoryStore round-trips, filters, counts, supersede chains."""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.taxonomy import Layer, MemoryType

FULL = dict(
    id="mem-1",
    user_id="alice",
    text="User prefers Python for backend work.",
    type="preference",
    topic="tech",
    importance=0.73,
    confidence=0.91,
    source_session="sess-42",
    created_at=datetime(2026, 3, 4, 5, 6, 7, 891011),
    last_accessed=datetime(2026, 4, 1, 12, 0, 0),
    access_count=3,
    decay_score=0.25,
    embedding=bytes(range(16)),
    entity="user",
    attribute="preferred_language",
    value="Python",
    valid_until=None,
    layer="procedural",
)


def test_round_trips_every_field(store: MemoryStore, store_path) -> None:
    store.add(**FULL)
    store.close()
    reopened = MemoryStore.open(store_path)
    rec = reopened.get("mem-1")
    for key, value in FULL.items():
        assert getattr(rec, key) == value, key
    assert rec.superseded_by is None and rec.deleted_at is None
    assert rec.status is Status.ACTIVE
    reopened.close()


def test_timezone_aware_times_are_stored_as_utc(store: MemoryStore) -> None:
    from datetime import timedelta, timezone

    t = datetime(2026, 1, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    rec = store.add(user_id="u", text="x", type="note", created_at=t)
    assert rec.created_at == datetime(2026, 1, 1, 10, 0)


@pytest.mark.parametrize("t", [t.value for t in MemoryType])
def test_every_seed_type_is_accepted(store: MemoryStore, t: str) -> None:
    assert store.add(user_id="u", text="some text", type=t).type == t


# Working memory is never stored: tests/write/test_write_router.py
@pytest.mark.parametrize("layer", [x.value for x in Layer if x is not Layer.WORKING])
def test_every_stored_layer_is_accepted(store: MemoryStore, layer: str) -> None:
    assert store.add(user_id="u", text="t", type="fact", layer=layer).layer == layer


def test_get_unknown_raises_not_found(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError, match="nope"):
        store.get("nope")


def test_supersede_sets_fields_and_chain(store: MemoryStore) -> None:
    old = store.add(user_id="u", text="User prefers unittest.", type="preference")
    new = store.add(user_id="u", text="No, I use pytest not unittest.", type="correction")
    store.supersede(old.id, new.id)
    got = store.get(old.id)
    assert got.superseded_by == new.id and got.valid_until is not None
    assert got.status is Status.SUPERSEDED
    older, newer = store.chain(new.id)
    assert [r.id for r in older] == [old.id] and newer == []
    older, newer = store.chain(old.id)
    assert older == [] and [r.id for r in newer] == [new.id]
    assert [r.id for r in store.active("u")] == [new.id]


def test_supersede_rejects_self_and_cycles(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="a", type="fact")
    b = store.add(user_id="u", text="b", type="fact")
    with pytest.raises(ValidationError, match="superseded_by"):
        store.supersede(a.id, a.id)
    store.supersede(a.id, b.id)
    with pytest.raises(ValidationError, match="cycle"):
        store.supersede(b.id, a.id)
    assert store.get(b.id).superseded_by is None


def test_filters_and_counts(store: MemoryStore) -> None:
    store.add(user_id="alice", text="one", type="fact", importance=0.35, confidence=0.2)
    store.add(user_id="alice", text="two", type="preference", importance=0.9, topic="tech")
    bob = store.add(user_id="bob", text="three", type="fact", importance=0.45, layer="semantic")
    store.soft_delete(bob.id)
    assert store.count() == 2  # deleted rows are hidden by default
    assert store.count(MemoryFilter(statuses=(Status.DELETED,))) == 1
    assert store.count(MemoryFilter(user_ids=("alice",))) == 2
    assert store.count(MemoryFilter(importance=(0.3, 0.49))) == 1
    assert store.count(MemoryFilter(confidence=(0.0, 0.39))) == 1
    assert store.count(MemoryFilter(types=("preference",), topics=("tech",))) == 1
    counts = store.counts()
    assert counts == {"active": 2, "superseded": 0, "expired": 0, "deleted": 1, "quarantined": 0,
                      "archived": 0,
                      "hypothetical": 0, "total": 3}


def test_page_sorts_in_sql_and_pages(store: MemoryStore) -> None:
    for i in range(25):
        store.add(user_id="u", text=f"memory {i}", type="note", importance=round(i / 25, 2))
    page1 = store.page(order_by="importance", descending=True, limit=10)
    page2 = store.page(order_by="importance", descending=True, offset=10, limit=10)
    imps = [r.importance for r in page1 + page2]
    assert imps == sorted(imps, reverse=True) and len(set(r.id for r in page1 + page2)) == 20
    with pytest.raises(ValidationError, match="order_by"):
        store.page(order_by="text; DROP TABLE memories")


def test_status_sort_and_expired(store: MemoryStore) -> None:
    # Active rows on both sides, so the sort (not insertion order) decides the position.
    before = store.add(user_id="u", text="before", type="fact")
    a = store.add(user_id="u", text="a", type="fact")
    after = store.add(user_id="u", text="after", type="fact")
    store.update(a.id, valid_until=datetime(2026, 1, 1))
    assert store.get(a.id).status is Status.EXPIRED
    assert store.count(MemoryFilter(statuses=(Status.EXPIRED,))) == 1
    assert store.count(MemoryFilter(statuses=(Status.ACTIVE,))) == 2
    # "expired" sorts after "active": first descending, last ascending.
    assert store.page(order_by="status")[0].id == a.id
    asc = [r.id for r in store.page(order_by="status", descending=False)]
    assert asc == [before.id, after.id, a.id]  # ties in insertion (seq) order
    desc = [r.id for r in store.page(order_by="status", descending=True)]
    assert desc == [a.id, after.id, before.id]


def test_huge_and_odd_unicode_text_round_trips(store: MemoryStore) -> None:
    odd = "e\u0301 \U0001f9e0 \u202eRTL\u202c \u200b zero-width \ufeff BOM " + "ß" * 90_000
    rec = store.add(user_id="u\u00e9", text=odd, type="note")
    got = store.get(rec.id)
    assert got.text == odd and got.user_id == "u\u00e9"
    assert [r.id for r in store.page(MemoryFilter(text="width"))] == [rec.id]
    assert store.distinct("user_id") == ["u\u00e9"]


def test_page_offset_follows_sql_order(store: MemoryStore) -> None:
    from tests.helpers.oracle import sql_order

    store.add_many([dict(user_id="u", text=f"m{i}", type="note", importance=(i % 7) / 7,
                         topic=None if i % 3 else f"t{i % 4}") for i in range(40)])
    for key in ("importance", "topic", "status"):
        want = sql_order(store, order_by=key, desc=False)
        got = [r.id for r in store.page(order_by=key, descending=False, offset=13, limit=20)]
        assert got == want[13:33]
        assert [r.id for r in store.page(order_by=key, descending=False, limit=None)] == want
    assert store.page(limit=0) == []


def test_add_many_keeps_fields_that_only_later_rows_carry(tmp_path):
    """Rows of different shapes in one call: none of their fields may be dropped."""
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(tmp_path / "shapes.db")
    ids = store.add_many([
        {"user_id": "u", "text": "plain note", "type": "note"},
        {"user_id": "u", "text": "User works at Acme", "type": "fact",
         "entity": "user", "attribute": "works_at", "value": "Acme", "topic": "work"},
        {"user_id": "u", "text": "second plain note", "type": "note", "importance": 0.9},
    ])
    first, second, third = (store.get(i) for i in ids)
    assert (first.entity, first.topic) == (None, None)
    assert (second.entity, second.attribute, second.value, second.topic) == (
        "user", "works_at", "Acme", "work")
    assert third.importance == 0.9 and third.entity is None


def test_add_many_audits_each_row_as_an_add_by_its_actor(store: MemoryStore) -> None:
    ids = store.add_many([dict(user_id="u", text="first", type="note", topic="t"),
                          dict(user_id="u", text="second", type="fact", topic=None)],
                         actor="worker")
    for memory_id, text in zip(ids, ["first", "second"], strict=True):
        [ev] = store.events(memory_id)
        assert (ev.action, ev.actor, ev.before) == ("add", "worker", {})
        assert ev.after["text"] == text and ev.after["id"] == memory_id


def test_add_many_refuses_an_id_given_twice_or_taken(store: MemoryStore) -> None:
    with pytest.raises(ValidationError) as info:
        store.add_many([dict(id="same", user_id="u", text=t, type="note") for t in "ab"])
    assert str(info.value) == "id: 'same' is given twice"
    # Taken ids are looked up 500 at a time: one in the second chunk (index 500) and
    # one in the third (index 1,100) must each be found.
    for at in (500, 1100):
        taken = store.add(id=f"taken-{at}", user_id="u", text="old", type="note").id
        rows = [dict(id=f"new-{i}", user_id="u", text="n", type="note") for i in range(1200)]
        rows[at]["id"] = taken
        with pytest.raises(ValidationError) as info:
            store.add_many(rows)
        assert str(info.value) == f"id: a memory with id {taken!r} exists already"
    assert store.count() == 2  # all or nothing: only the two single adds


def test_each_vector_is_stored_with_its_own_memory(store: MemoryStore) -> None:
    import struct

    blob = struct.pack("<4f", 0.5, 0.25, 0.125, 1.0)
    plain = store.add(user_id="u", text="no vector", type="note")
    with_vec = store.add(user_id="u", text="a vector", type="note", embedding=blob)
    # The second memory's vector is the first row of the vectors table: it must still
    # be keyed by that memory, not by the next free row number.
    assert store.get(with_vec.id).embedding == blob
    assert store.get(plain.id).embedding is None
