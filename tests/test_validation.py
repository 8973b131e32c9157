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
