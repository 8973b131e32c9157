"""What ``update`` and ``bulk_update`` may change: identity, creation time, the embedding
and the audit trail are refused with the field named, and nothing is written; values at
the exact edges of each field's range are accepted, one step beyond refused."""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store.memory_store import MemoryStore

# Fields that identify a row or record its history.  ``seq`` is the row's integer key;
# the audit-trail names are memory_events columns, never editable through a memory.
NOT_EDITABLE = [
    ("id", "another-id"),
    ("created_at", datetime(2020, 1, 1)),
    ("embedding", b"\x00" * 16),
    ("seq", 99),
    ("undone_by", 1),
    ("undoes", 1),
    ("before", {}),
    ("after", {}),
    ("at", datetime(2020, 1, 1)),
    ("events", []),
    ("memory_events", []),
]


@pytest.fixture
def two(store: MemoryStore):
    a = store.add(user_id="u", text="User likes tea.", type="preference",
                  embedding=b"\x01" * 16, created_at=datetime(2026, 1, 2, 3, 4, 5))
    b = store.add(user_id="u", text="User likes cake.", type="preference")
    return a, b


def _snapshot(store: MemoryStore):  # type: ignore[no-untyped-def]
    return store.page(limit=None), store.events(limit=10_000)


@pytest.mark.parametrize(("field", "value"), NOT_EDITABLE, ids=[f for f, _ in NOT_EDITABLE])
def test_update_refuses_non_editable_fields(store: MemoryStore, two, field, value) -> None:
    a, _ = two
    before = _snapshot(store)
    with pytest.raises(ValidationError) as info:
        store.update(a.id, **{field: value})
    assert info.value.field == field and str(info.value) == f"{field}: cannot be edited"
    # Refused even when sent together with an editable field: nothing half-applied.
    with pytest.raises(ValidationError):
        store.update(a.id, importance=0.9, **{field: value})
    assert _snapshot(store) == before


@pytest.mark.parametrize(("field", "value"), NOT_EDITABLE, ids=[f for f, _ in NOT_EDITABLE])
def test_bulk_update_refuses_non_editable_fields(store: MemoryStore, two, field,
                                                 value) -> None:
    before = _snapshot(store)
    with pytest.raises(ValidationError) as info:
        store.bulk_update([r.id for r in two], topic="x", **{field: value})
    assert info.value.field == field and str(info.value) == f"{field}: cannot be edited"
    assert _snapshot(store) == before


def test_the_first_refused_field_is_named(store: MemoryStore, two) -> None:
    a, _ = two
    with pytest.raises(ValidationError) as info:
        store.update(a.id, seq=1, id="x", created_at=datetime(2020, 1, 1))
    assert info.value.field == "created_at"  # sorted: the message is stable


def test_every_editable_field_can_be_edited_and_is_audited(store: MemoryStore, two) -> None:
    a, b = two
    new = dict(text="User loves tea.", type="fact", layer="semantic", topic="food",
               importance=0.1, confidence=0.2, user_id="v", source_session="s9",
               entity="user", attribute="drink", value="tea", valid_until=datetime(2027, 1, 1),
               superseded_by=b.id, decay_score=0.3, last_accessed=datetime(2026, 2, 2),
               access_count=7, deleted_at=datetime(2026, 3, 3))
    ch = store.update(a.id, **new)
    got = store.get(a.id)
    for k, v in new.items():
        assert getattr(got, k) == v, k
    # What cannot be edited did not move; the vector went stale with the new text.
    assert (got.id, got.created_at, got.seq) == (a.id, a.created_at, a.seq)
    assert got.embedding is None
    [ev] = [store.event(i) for i in ch.event_ids]
    assert set(ev.after) == set(new) and ev.before["text"] == "User likes tea."


def test_edits_keep_the_embedding_unless_the_text_changes(store: MemoryStore, two) -> None:
    a, _ = two
    store.update(a.id, importance=0.9, topic="food", text=a.text)  # same text: no change
    assert store.get(a.id).embedding == b"\x01" * 16
    store.update(a.id, text="User likes green tea.")
    assert store.get(a.id).embedding is None


def test_update_of_unknown_memory(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError):
        store.update("nope", importance=0.5)
    with pytest.raises(NotFoundError):
        store.bulk_update(["nope"], importance=0.5)
    assert store.events() == []


def test_bulk_update_is_all_or_nothing(store: MemoryStore, two) -> None:
    before = _snapshot(store)
    with pytest.raises(NotFoundError):
        store.bulk_update([two[0].id, "missing", two[1].id], importance=0.9)
    assert _snapshot(store) == before


def test_bulk_update_reports_only_rows_that_changed(store: MemoryStore, two) -> None:
    a, b = two
    store.update(a.id, topic="x")
    ch = store.bulk_update([a.id, b.id], topic="x", note="tidy")
    assert len(ch.event_ids) == 1
    ev = store.event(ch.event_ids[0])
    assert (ev.memory_id, ev.action, ev.actor, ev.note, ev.group_id) == (
        b.id, "bulk_edit", "operator", "tidy", ch.group_id)
    assert ch.memory_ids == (a.id, b.id)
    ch = store.bulk_update([a.id], topic="y", actor="agent", action="retag")
    ev = store.event(ch.event_ids[0])
    assert (ev.action, ev.actor, ev.before, ev.after) == ("retag", "agent", {"topic": "x"},
                                                         {"topic": "y"})


def test_update_records_actor_note_action_and_group(store: MemoryStore, two) -> None:
    a, _ = two
    ch = store.update(a.id, importance=0.7, actor="agent", note="why", group_id="g",
                      action="revalue")
    assert ch.memory_ids == (a.id,) and ch.group_id == "g"
    ev = store.event(ch.event_ids[0])
    assert (ev.actor, ev.note, ev.group_id, ev.action) == ("agent", "why", "g", "revalue")
    assert (ev.before, ev.after) == ({"importance": 0.5}, {"importance": 0.7})
    with pytest.raises(ValueError):
        store.update(a.id, importance=0.1, actor="stranger")  # actors are a closed set
    assert store.get(a.id).importance == 0.7  # and the refused edit was rolled back


# -- field ranges at their edges ---------------------------------------------------------

EDGE_OK = [
    ("importance", 0.0), ("importance", 1.0), ("confidence", 0.0), ("confidence", 1),
    ("decay_score", 0.0), ("decay_score", None), ("access_count", 0),
    ("text", "x" * 100_000), ("user_id", "u" * 200), ("topic", "t" * 200),
    ("value", "v" * 10_000), ("source_session", "s" * 200), ("entity", "e" * 200),
]
EDGE_BAD = [
    ("importance", 1.0000001), ("importance", -1e-9), ("confidence", 1.01),
    ("decay_score", 1.5), ("decay_score", float("nan")), ("access_count", -1),
    ("access_count", True), ("access_count", 1.0), ("text", "x" * 100_001),
    ("user_id", "u" * 201), ("user_id", "   "), ("user_id", None), ("topic", "t" * 201),
    ("value", "v" * 10_001), ("attribute", "a" * 201), ("entity", 5),
    ("superseded_by", "s" * 65), ("embedding", "not bytes"), ("embedding", [1, 2]),
    ("last_accessed", 12), ("valid_until", "2026-13-01"), ("topic", "a\x00b"),
]


@pytest.mark.parametrize(("field", "value"), EDGE_OK, ids=[f"{f}-ok{i}" for i, (f, _) in
                                                            enumerate(EDGE_OK)])
def test_values_at_the_edge_are_accepted(store: MemoryStore, field, value) -> None:
    rec = store.add(**{"user_id": "u", "text": "t", "type": "note", field: value})
    assert getattr(rec, field) == value


@pytest.mark.parametrize(("field", "value"), EDGE_BAD, ids=[f"{f}-bad{i}" for i, (f, _) in
                                                             enumerate(EDGE_BAD)])
def test_values_just_beyond_the_edge_are_refused(store: MemoryStore, field, value) -> None:
    with pytest.raises(ValidationError) as info:
        store.add(**{"user_id": "u", "text": "t", "type": "note", field: value})
    assert info.value.field == field
    assert store.counts()["total"] == 0


def test_blank_optional_text_is_stored_as_null(store: MemoryStore) -> None:
    rec = store.add(user_id="u", text="t", type="note", topic="   ", entity="", value=" ")
    assert (rec.topic, rec.entity, rec.value) == (None, None, None)
    # A blank layer is no layer: the router picks the type's (a note is episodic).
    assert store.add(user_id="u", text="t", type="note", layer="").layer == "episodic"


def test_defaults_on_add(store: MemoryStore) -> None:
    rec = store.add(user_id="u", text="t", type="note")
    assert (rec.importance, rec.confidence, rec.access_count) == (0.5, 0.8, 0)
    assert rec.decay_score is None and rec.deleted_at is None and len(rec.id) == 32
    other = store.add(user_id="u", text="t", type="note")
    assert other.id != rec.id and other.seq > rec.seq


def test_explicit_id_and_iso_times_are_kept(store: MemoryStore) -> None:
    rec = store.add(id="my-id", user_id="u", text="t", type="note",
                    created_at="2026-02-03T04:05:06+01:00", last_accessed="2026-02-04T00:00:00")
    assert rec.id == "my-id"
    assert rec.created_at == datetime(2026, 2, 3, 3, 5, 6)
    assert rec.last_accessed == datetime(2026, 2, 4)


def test_a_duplicate_id_is_a_validation_error_not_a_store_error(store: MemoryStore) -> None:
    """Was: "Cannot open <store>: UNIQUE constraint failed" (a StoreOpenError, CLI exit 3)."""
    store.add(id="my-id", user_id="u", text="first", type="note")
    with pytest.raises(ValidationError, match="my-id") as info:
        store.add(id="my-id", user_id="u", text="again", type="note")
    assert info.value.field == "id"
    with pytest.raises(ValidationError) as info:
        store.add_many([dict(id="new-1", user_id="u", text="a", type="note"),
                        dict(id="my-id", user_id="u", text="b", type="note")])
    assert info.value.field == "id"
    with pytest.raises(ValidationError) as info:
        store.add_many([dict(id="twice", user_id="u", text="a", type="note"),
                        dict(id="twice", user_id="u", text="b", type="note")])
    assert info.value.field == "id"
    assert [r.text for r in store.page(limit=None)] == ["first"]
