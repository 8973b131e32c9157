"""Validation on write: a clear error naming the field, and nothing written."""

from __future__ import annotations

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.store.memory_store import MemoryStore

GOOD = dict(user_id="u", text="User likes tea.", type="preference")

BAD = [
    ("type", {"type": "opinion"}),
    ("type", {"type": ""}),
    ("importance", {"importance": float("nan")}),
    ("importance", {"importance": 1.5}),
    ("importance", {"importance": -0.01}),
    ("importance", {"importance": float("inf")}),
    ("importance", {"importance": "high"}),
    ("importance", {"importance": True}),
    ("confidence", {"confidence": float("nan")}),
    ("confidence", {"confidence": 2}),
    ("text", {"text": ""}),
    ("text", {"text": "   \n\t"}),
    ("text", {"text": "a\x00b"}),
    ("text", {"text": "x" * 100_001}),
    ("text", {"text": None}),
    ("user_id", {"user_id": ""}),
    ("layer", {"layer": "subconscious"}),
    ("access_count", {"access_count": -1}),
    ("created_at", {"created_at": "yesterday"}),
    ("bogus", {"bogus": 1}),
]


@pytest.mark.parametrize(
    ("field", "override"), BAD, ids=[f"{f}-{i}" for i, (f, _) in enumerate(BAD)]
)
def test_add_rejects_bad_values_naming_the_field(store: MemoryStore, field, override) -> None:
    events_before = len(store.events())
    with pytest.raises(ValidationError) as info:
        store.add(**{**GOOD, **override})
    assert info.value.field == field
    assert field in str(info.value)
    assert store.counts()["total"] == 0
    assert len(store.events()) == events_before


def test_missing_required_field(store: MemoryStore) -> None:
    with pytest.raises(ValidationError, match="user_id"):
        store.add(text="t", type="fact")


@pytest.mark.parametrize(("field", "value"), [("importance", float("nan")), ("type", "x"),
                                              ("text", ""), ("confidence", -3)])
def test_update_rejects_and_leaves_row_unchanged(store: MemoryStore, field, value) -> None:
    rec = store.add(**GOOD)
    with pytest.raises(ValidationError, match=field):
        store.update(rec.id, **{field: value})
    assert store.get(rec.id) == rec
    assert [e.action for e in store.events(rec.id)] == ["add"]


def test_bulk_insert_is_all_or_nothing(store: MemoryStore) -> None:
    rows = [dict(GOOD, text=f"ok {i}") for i in range(5)] + [dict(GOOD, importance=9)]
    with pytest.raises(ValidationError, match="importance"):
        store.add_many(rows)
    assert store.counts()["total"] == 0


def test_type_is_normalised(store: MemoryStore) -> None:
    assert store.add(**{**GOOD, "type": " Preference "}).type == "preference"


# -- optional short text fields: each checked against its own column's limit -----------

@pytest.mark.parametrize(("field", "limit"), [("topic", 200), ("entity", 200),
                                              ("value", 10_000), ("superseded_by", 64)])
def test_optional_text_fields_have_their_column_limit(store: MemoryStore, field, limit) -> None:
    with pytest.raises(ValidationError) as info:
        store.add(**{**GOOD, field: "x" * (limit + 1)})
    assert info.value.field == field
    assert str(info.value) == f"{field}: is {limit + 1} characters; the limit is {limit}"
    assert store.counts()["total"] == 0


def test_optional_text_fields_are_stored_as_given(store: MemoryStore) -> None:
    long_value = "v" * 5000  # over the default text limit, under the value column's
    rec = store.add(**GOOD, topic="x" * 200, entity="user", attribute="drink", value=long_value)
    got = store.get(rec.id)
    assert (got.topic, got.entity, got.attribute, got.value) == (
        "x" * 200, "user", "drink", long_value)
    assert store.add(**GOOD, topic="   ").topic is None  # blank means unset


@pytest.mark.parametrize("field", ["topic", "source_session", "value"])
def test_optional_text_fields_refuse_non_text_naming_the_field(store: MemoryStore,
                                                               field) -> None:
    with pytest.raises(ValidationError) as info:
        store.add(**{**GOOD, field: 42})
    assert info.value.field == field
    assert str(info.value) == f"{field}: must be text, got int"


@pytest.mark.parametrize(("override", "message"), [
    ({"bogus": 1}, "bogus: is not a memory field"),
    ({"created_at": "yesterday"}, "created_at: not an ISO-8601 time: 'yesterday'"),
    ({"created_at": 5}, "created_at: must be a time, got int"),
    ({"embedding": "0.1,0.2"}, "embedding: must be bytes (float32 little-endian) or None"),
])
def test_refusals_say_what_is_wrong(store: MemoryStore, override, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError) as info:
        store.add(**{**GOOD, **override})
    assert str(info.value) == message


def test_a_missing_required_field_is_named(store: MemoryStore) -> None:
    for missing in ("user_id", "text", "type"):
        with pytest.raises(ValidationError) as info:
            store.add(**{k: v for k, v in GOOD.items() if k != missing})
        assert str(info.value) == f"{missing}: is required"


def test_aware_times_become_utc_whatever_the_machine_zone(store: MemoryStore) -> None:
    import os
    import time
    from datetime import datetime, timedelta, timezone

    old = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Tokyo"  # UTC+9: a conversion to local time would show
    time.tzset()
    try:
        rec = store.add(**GOOD, created_at=datetime(2026, 1, 1, 12, 0,
                                                    tzinfo=timezone(timedelta(hours=2))))
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()
    assert store.get(rec.id).created_at == datetime(2026, 1, 1, 10, 0)


def test_a_blank_user_is_refused_as_empty(store: MemoryStore) -> None:
    with pytest.raises(ValidationError) as info:
        store.add(**{**GOOD, "user_id": "   "})
    assert str(info.value) == "user_id: must not be empty"
