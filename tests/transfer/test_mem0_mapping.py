"""Mem0 items onto memdesk fields (core/transfer/mem0.py), item by item, in-process.

The expected values come from the mapping table in docs/import-export.md ("From Mem0"):
which key goes where, what is ignored, what is counted as not carried over and under
which name, and the exact messages an operator reads for an item or a file refused.
"""

from __future__ import annotations

import io
import json
from datetime import datetime

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.transfer.importer import TransferError
from memdesk.core.transfer.mem0 import Mem0Source, load_items

NOW = datetime(2025, 6, 1, 12, 0, 0)


def source(items: object = (), **kw) -> Mem0Source:  # type: ignore[no-untyped-def]
    return Mem0Source(io.BytesIO(json.dumps(list(items) if isinstance(items, tuple)
                                            else items).encode()), now=NOW, **kw)


def mapped(item: dict, **kw) -> tuple[dict, dict]:  # type: ignore[type-arg]
    src = source(**kw)
    out = src.map_item(item)
    return out, dict(src.dropped)


# -- one item ----------------------------------------------------------------------------
def test_a_minimal_item_maps_to_text_user_and_the_default_type() -> None:
    out, dropped = mapped({"memory": "likes tea", "user_id": "alice"})
    assert out == {"text": "likes tea", "user_id": "alice", "type": "fact"}
    assert dropped == {}


def test_every_mapped_key_lands_in_its_memdesk_field() -> None:
    item = {"id": "m-1", "memory": "likes tea", "user_id": "alice", "agent_id": "bot",
            "run_id": "chat-7", "created_at": "2025-01-02T03:04:05+02:00",
            "expiration_date": "2025-05-01T00:00:00Z", "hash": "abc", "score": 0.3,
            "metadata": {"type": "preference", "topic": "drinks", "importance": 0.25,
                         "confidence": 1, "entity": "alice", "attribute": "drink",
                         "value": "tea", "layer": "semantic"}}
    out, dropped = mapped(item)
    assert out == {
        "text": "likes tea", "id": "m-1", "user_id": "alice", "source_session": "chat-7",
        "agent_id": "bot", "run_id": "chat-7",
        "created_at": datetime(2025, 1, 2, 1, 4, 5),  # +02:00 -> UTC
        "valid_until": datetime(2025, 5, 1), "type": "preference", "topic": "drinks",
        "importance": 0.25, "confidence": 1.0, "entity": "alice", "attribute": "drink",
        "value": "tea", "layer": "semantic",
    }
    assert isinstance(out["confidence"], float)
    # agent_id is mapped (a fallback for user_id); hash and score are derived: not counted
    assert dropped == {}


def test_an_integer_id_becomes_text_and_other_ids_pass_to_validation() -> None:
    assert mapped({"id": 42, "memory": "m", "user_id": "u"})[0]["id"] == "42"
    assert mapped({"id": [1], "memory": "m", "user_id": "u"})[0]["id"] == [1]
    assert "id" not in mapped({"memory": "m", "user_id": "u"})[0]


def test_the_user_is_user_id_then_agent_id_then_the_default() -> None:
    assert mapped({"memory": "m", "user_id": "u", "agent_id": "a"})[0]["user_id"] == "u"
    assert mapped({"memory": "m", "user_id": "", "agent_id": "a"})[0]["user_id"] == "a"
    assert mapped({"memory": "m", "agent_id": "a"}, default_user="d")[0]["user_id"] == "a"
    assert mapped({"memory": "m", "user_id": None}, default_user="d")[0]["user_id"] == "d"


def test_an_item_without_any_user_is_refused_with_a_hint() -> None:
    with pytest.raises(ValidationError) as info:
        mapped({"memory": "m", "agent_id": None})
    assert str(info.value) == ("user_id: missing (the item has no user_id or agent_id; "
                               "pass a default user)")


def test_null_run_and_created_at_are_left_out() -> None:
    out, _ = mapped({"memory": "m", "user_id": "u", "run_id": None, "created_at": None,
                     "expiration_date": None, "metadata": None})
    assert out == {"text": "m", "user_id": "u", "type": "fact"}


def test_a_created_at_that_is_not_a_time_names_the_field() -> None:
    with pytest.raises(ValidationError) as info:
        mapped({"memory": "m", "user_id": "u", "created_at": "last week"})
    assert str(info.value) == "created_at: not an ISO-8601 time: 'last week'"


@pytest.mark.parametrize(("when", "kept"), [
    ("2025-06-01T11:59:59", True),
    ("2025-06-01T12:00:00", True),  # "has passed" includes now
    ("2025-06-01T12:00:01", False),
])
def test_an_expiration_date_is_kept_only_once_it_has_passed(when: str, kept: bool) -> None:
    out, dropped = mapped({"memory": "m", "user_id": "u", "expiration_date": when})
    if kept:
        assert out["valid_until"] == datetime.fromisoformat(when) and dropped == {}
    else:
        assert "valid_until" not in out
        assert dropped == {"expiration_date (in the future)": 1}


def test_a_bad_expiration_date_names_its_field() -> None:
    with pytest.raises(ValidationError) as info:
        mapped({"memory": "m", "user_id": "u", "expiration_date": 5})
    assert str(info.value) == "expiration_date: must be an ISO-8601 time string, got a number"


def test_metadata_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ValidationError) as info:
        mapped({"memory": "m", "user_id": "u", "metadata": ["a"]})
    assert str(info.value) == "metadata: must be a JSON object"


def test_an_item_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ValidationError) as info:
        mapped("just text")  # type: ignore[arg-type]
    assert str(info.value) == "item: must be a JSON object"


def test_unknown_keys_and_metadata_keys_are_counted_by_name() -> None:
    src = source()
    for _ in range(2):
        src.map_item({"memory": "m", "user_id": "u", "updated_at": "x", "role": "user",
                      "metadata": {"source": "slack", "topic": "t"}})
    assert dict(src.dropped) == {"updated_at": 2, "role": 2, "metadata.source": 2}


@pytest.mark.parametrize(("meta", "expected"), [
    ({"type": "preference", "memory_type": "decision"}, "preference"),
    ({"memory_type": "decision"}, "decision"),
    ({"type": "", "memory_type": "note"}, "note"),
    ({"type": " Fact "}, " Fact "),  # a memdesk type in any case or spacing is kept as given
])
def test_the_type_comes_from_metadata_type_then_memory_type(meta: dict, expected: str) -> None:  # type: ignore[type-arg]
    out, dropped = mapped({"memory": "m", "user_id": "u", "metadata": meta})
    assert out["type"] == expected and dropped == {}


@pytest.mark.parametrize("bad", ["opinion", 7])
def test_a_type_memdesk_does_not_know_falls_back_to_the_default(bad: object) -> None:
    out, dropped = mapped({"memory": "m", "user_id": "u", "metadata": {"type": bad}},
                          default_type="note")
    assert out["type"] == "note"
    assert dropped == {"metadata.type (not a memdesk type)": 1}


def test_the_default_type_is_used_without_metadata() -> None:
    out, _ = mapped({"memory": "m", "user_id": "u"}, default_type="decision")
    assert out["type"] == "decision"


@pytest.mark.parametrize(("item", "topic", "dropped"), [
    ({"metadata": {"topic": "a", "category": "b"}, "categories": ["c"]}, "a", {}),
    ({"metadata": {"category": "b"}, "categories": ["c", "d"]}, "b", {}),
    ({"categories": ["c"]}, "c", {}),
    ({"categories": ["c", "d", "e"]}, "c", {"categories (after the first)": 1}),
    ({"categories": []}, None, {}),
    ({"categories": "c"}, None, {}),
])
def test_the_topic_is_topic_then_category_then_the_first_category(
        item: dict, topic: str | None, dropped: dict) -> None:  # type: ignore[type-arg]
    out, lost = mapped({"memory": "m", "user_id": "u", **item})
    assert out.get("topic") == topic and lost == dropped
    assert ("topic" in out) is (topic is not None)


@pytest.mark.parametrize(("v", "kept"), [
    (0, 0.0), (0.0, 0.0), (1, 1.0), (1.0, 1.0), (0.5, 0.5),
    (-0.01, None), (1.01, None), ("high", None), (True, None), (False, None),
])
def test_scores_are_kept_only_as_numbers_in_zero_to_one(v: object, kept: float | None) -> None:
    out, dropped = mapped({"memory": "m", "user_id": "u",
                           "metadata": {"importance": v, "confidence": v}})
    if kept is None:
        assert "importance" not in out and "confidence" not in out
        assert dropped == {"metadata.importance (not a number in [0, 1])": 1,
                           "metadata.confidence (not a number in [0, 1])": 1}
    else:
        assert (out["importance"], out["confidence"]) == (kept, kept) and dropped == {}
        assert type(out["importance"]) is float


def test_a_null_score_is_simply_absent() -> None:
    out, dropped = mapped({"memory": "m", "user_id": "u",
                           "metadata": {"importance": None, "entity": None}})
    assert out == {"text": "m", "user_id": "u", "type": "fact"} and dropped == {}


def test_nan_in_metadata_is_not_json_and_refuses_the_file() -> None:
    with pytest.raises(TransferError) as info:
        Mem0Source(io.BytesIO(b'[{"metadata": {"importance": Infinity}}]'), label="f.json")
    assert str(info.value) == "f.json is not a Mem0 export: Infinity is not a number JSON allows."


# -- the file and the iteration ------------------------------------------------------
def test_items_are_numbered_from_one_and_bad_ones_carry_the_reason() -> None:
    src = source([{"memory": "a", "user_id": "u"}, 3, {"memory": "c"}],
                 label="mem0.json")
    cands = list(src)
    assert [(c.number, c.position, c.error) for c in cands] == [
        (1, 1, None), (2, 2, "item: must be a JSON object"),
        (3, 3, "user_id: missing (the item has no user_id or agent_id; pass a default user)"),
    ]
    assert cands[0].values == {"text": "a", "user_id": "u", "type": "fact"}
    assert cands[1].values is None and cands[2].values is None
    assert (src.total, src.label, src.unit, src.kind) == (3, "mem0.json", "item", "Mem0")


def test_results_or_a_bare_list_are_the_items() -> None:
    assert load_items(io.BytesIO(b'{"results": [1, 2], "relations": []}'), "x") == [1, 2]
    assert load_items(io.BytesIO(b"[3]"), "x") == [3]


@pytest.mark.parametrize("content", [b'{"results": {"a": 1}}', b'"text"', b"{}"])
def test_other_json_is_not_an_export(content: bytes) -> None:
    with pytest.raises(TransferError) as info:
        load_items(io.BytesIO(content), "x.json")
    assert str(info.value) == (
        'x.json is not a Mem0 export: expected an object with a "results" list '
        "(what get_all returns) or a list of memories.")


def test_a_file_that_is_not_utf8_names_the_byte() -> None:
    with pytest.raises(TransferError) as info:
        load_items(io.BytesIO(b'["ok", "\xff"]'), "x.json")
    assert str(info.value) == "x.json is not a Mem0 export: not UTF-8 text (byte 9)."


def test_a_file_that_is_not_json_names_line_and_column() -> None:
    with pytest.raises(TransferError) as info:
        load_items(io.BytesIO(b'[\n  1,\n  2,,\n]'), "x.json")
    assert str(info.value) == ("x.json is not a Mem0 export: not JSON (Expecting value, "
                               "line 3 column 5).")


def test_what_is_not_carried_over_is_counted_per_item() -> None:
    src = source()
    for _ in range(2):
        src.map_item({"memory": "m", "user_id": "u", "categories": ["a", "b"],
                      "expiration_date": "2099-01-01",
                      "metadata": {"type": "opinion", "importance": "high",
                                   "confidence": 2}})
    assert dict(src.dropped) == {
        "categories (after the first)": 2, "expiration_date (in the future)": 2,
        "metadata.type (not a memdesk type)": 2,
        "metadata.importance (not a number in [0, 1])": 2,
        "metadata.confidence (not a number in [0, 1])": 2,
    }


def test_without_a_given_now_expiry_is_judged_in_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a machine fourteen hours ahead of UTC, a date two hours from now (UTC) has not
    passed, however late the local clock reads."""
    import time
    from datetime import UTC, timedelta

    monkeypatch.setenv("TZ", "Etc/GMT-14")
    time.tzset()
    try:
        soon = datetime.now(UTC).replace(tzinfo=None) + timedelta(hours=2)
        src = Mem0Source(io.BytesIO(b"[]"))
        out = src.map_item({"memory": "m", "user_id": "u",
                            "expiration_date": soon.isoformat()})
    finally:
        monkeypatch.undo()
        time.tzset()
    assert "valid_until" not in out
    assert dict(src.dropped) == {"expiration_date (in the future)": 1}


class Sized:
    """What a stream's read returns, as far as load_items looks at it: its length, and
    text decoding to an empty list."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def decode(self, encoding: str) -> str:
        return "[]"


class Stream:
    def __init__(self, n: int) -> None:
        self.n, self.asked = n, []

    def read(self, size: int) -> Sized:
        self.asked.append(size)
        return Sized(self.n)


def test_a_file_over_one_gigabyte_is_refused_unread() -> None:
    big = Stream(1024**3 + 1)
    with pytest.raises(TransferError) as info:
        load_items(big, "huge.json")  # type: ignore[arg-type]
    assert str(info.value) == "huge.json is larger than 1 GB; split it before importing."
    assert big.asked == [1024**3 + 1]  # reads one byte past the limit, no more
    assert load_items(Stream(1024**3), "x") == []  # type: ignore[arg-type]
