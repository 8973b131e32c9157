"""memdesk JSON Lines, one line at a time (core/transfer/jsonl.py): encoding a row, and
every check a line passes on the way in, with the exact reason the operator reads.

Expected values follow the format's rules in the module docstring and
docs/import-export.md: compact UTF-8 JSON in schema order, times in ISO-8601 UTC with
microseconds and a Z, embeddings as base64 of little-endian float32, lines split on
``\\n`` only.
"""

from __future__ import annotations

import base64
import io
import json
import math
from datetime import datetime

import numpy as np
import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.transfer.jsonl import (
    FIELDS,
    MAX_LINE_BYTES,
    JsonlSource,
    Line,
    decode_embedding,
    decode_fields,
    encode_row,
    format_time,
    parse_line,
    parse_time,
    read_lines,
)

T = datetime(2025, 1, 2, 3, 4, 5, 60)


def row(**kw) -> dict:  # type: ignore[no-untyped-def, type-arg]
    base = dict.fromkeys(FIELDS)
    base.update(id="m1", user_id="u", text="t", type="fact", importance=0.5,
                confidence=0.8, created_at=T, access_count=0)
    base.update(kw)
    return base


# -- encoding --------------------------------------------------------------------------
def test_a_time_is_written_with_microseconds_and_a_z() -> None:
    assert format_time(datetime(2025, 1, 2, 3, 4, 5)) == "2025-01-02T03:04:05.000000Z"
    assert format_time(T) == "2025-01-02T03:04:05.000060Z"


def test_a_row_is_one_compact_line_in_schema_order_without_the_vector() -> None:
    line = encode_row(row(embedding=b"\0\0\0\0"), with_embedding=False)
    assert line.endswith(b"}\n") and line.count(b"\n") == 1
    data = json.loads(line)
    assert list(data) == [f for f in FIELDS if f != "embedding"]
    assert line.startswith(b'{"id":"m1","user_id":"u","text":"t","type":"fact","topic":null,'
                           b'"importance":0.5,"confidence":0.8,"source_session":null,'
                           b'"created_at":"2025-01-02T03:04:05.000060Z",')


def test_with_the_vector_comes_its_model() -> None:
    vec = np.array([1.0, -2.5], dtype="<f4").tobytes()
    data = json.loads(encode_row(row(embedding=vec), with_embedding=True, model="mini"))
    assert data["embedding"] == base64.b64encode(vec).decode("ascii")
    assert data["embedding_model"] == "mini"
    assert list(data).index("embedding_model") == list(data).index("embedding") + 1
    none = json.loads(encode_row(row(), with_embedding=True, model="mini"))
    assert none["embedding"] is None and none["embedding_model"] is None
    assert "embedding_model" in none


def test_text_is_raw_utf8_and_line_breakers_are_escaped() -> None:
    text = "café\u2028a\u2029b\x85c\nd"
    line = encode_row(row(text=text), with_embedding=False)
    assert "café".encode() in line
    assert b"\\u2028a\\u2029b\\u0085c\\nd" in line
    assert line.count(b"\n") == 1
    assert json.loads(line)["text"] == text


def test_a_nan_is_never_written() -> None:
    with pytest.raises(ValueError):
        encode_row(row(importance=math.nan), with_embedding=False)


# -- parsing a line ------------------------------------------------------------------
@pytest.mark.parametrize(("raw", "reason"), [
    (b'{"a":"\xff"}', "not valid UTF-8 (byte 0xff at column 7)"),
    (b'\xc3(', "not valid UTF-8 (byte 0xc3 at column 1)"),
    (b'{"a":}', "not JSON: Expecting value (column 6)"),
    (b'{"a": NaN}', "not acceptable JSON: NaN is not a number JSON allows"),
    (b'-Infinity', "not acceptable JSON: -Infinity is not a number JSON allows"),
    (b'[1]', "expected a JSON object, got an array"),
    (b'null', "expected a JSON object, got null"),
    (b'true', "expected a JSON object, got true/false"),
    (b'3', "expected a JSON object, got a number"),
    (b'3.5', "expected a JSON object, got a number"),
    (b'"x"', "expected a JSON object, got a string"),
])
def test_a_line_that_is_not_an_object_says_why(raw: bytes, reason: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_line(raw)
    assert str(info.value) == reason


def test_a_line_parses_to_its_object() -> None:
    assert parse_line('{"text":"é","n":1}'.encode()) == {"text": "é", "n": 1}


# -- field checks ------------------------------------------------------------------
@pytest.mark.parametrize(("data", "message"), [
    ({"zeta": 1, "alpha": 2, "text": "t"}, "alpha: is not a memory field"),
    ({"seq": 3}, "seq: is not a memory field"),
    ({"text": 5}, "text: must be a string, got a number"),
    ({"id": ["a"]}, "id: must be a string, got an array"),
    ({"embedding_model": {}}, "embedding_model: must be a string, got an object"),
    ({"layer": True}, "layer: must be a string, got true/false"),
    ({"text": "a\ud800"}, "text: contains an unpaired surrogate (U+D800), which is not "
                          "valid Unicode text"),
    ({"importance": "0.5"}, "importance: must be a number, got a string"),
    ({"confidence": True}, "confidence: must be a number, got true/false"),
    ({"decay_score": math.inf}, "decay_score: must be a finite number, got inf"),
    ({"importance": math.nan}, "importance: must be a finite number, got nan"),
    ({"access_count": 1.0}, "access_count: must be a whole number, got a number"),
    ({"access_count": False}, "access_count: must be a whole number, got true/false"),
    ({"access_count": -1}, "access_count: must be a non-negative integer, got -1"),
    ({"access_count": 2**31}, "access_count: must be at most 2,147,483,647, got "
                              "2,147,483,648"),
    ({"created_at": 5}, "created_at: must be an ISO-8601 time string, got a number"),
    ({"deleted_at": "soon"}, "deleted_at: not an ISO-8601 time: 'soon'"),
    ({"embedding": 5}, "embedding: must be base64 text, got a number"),
])
def test_a_field_of_the_wrong_kind_is_named_with_the_reason(data: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValidationError) as info:
        decode_fields(data)
    assert str(info.value) == message


def test_good_fields_become_store_values() -> None:
    vec = np.array([0.5], dtype="<f4").tobytes()
    out = decode_fields({
        "id": "m1", "text": "t", "topic": None, "importance": 1, "confidence": 0.25,
        "access_count": 2**31 - 1, "created_at": "2025-01-02T03:04:05.000060Z",
        "valid_until": None, "embedding": base64.b64encode(vec).decode(),
        "embedding_model": "mini",
    })
    assert out == {"id": "m1", "text": "t", "topic": None, "importance": 1.0,
                   "confidence": 0.25, "access_count": 2**31 - 1, "created_at": T,
                   "valid_until": None, "embedding": vec, "embedding_model": "mini"}
    assert type(out["importance"]) is float
    assert decode_fields({"access_count": 0}) == {"access_count": 0}


@pytest.mark.parametrize(("text", "expected"), [
    ("2025-01-02T03:04:05", datetime(2025, 1, 2, 3, 4, 5)),
    ("2025-01-02T03:04:05Z", datetime(2025, 1, 2, 3, 4, 5)),
    ("2025-01-02T03:04:05+02:30", datetime(2025, 1, 2, 0, 34, 5)),
    ("2025-01-01T20:00:00-07:00", datetime(2025, 1, 2, 3, 0, 0)),
    ("2025-01-02", datetime(2025, 1, 2)),
])
def test_times_are_read_as_utc(text: str, expected: datetime) -> None:
    got = parse_time("created_at", text)
    assert got == expected and got.tzinfo is None


def test_a_bad_time_is_quoted_up_to_sixty_characters() -> None:
    v = "x" * 59 + "yz"
    with pytest.raises(ValidationError) as info:
        parse_time("valid_until", v)
    assert str(info.value) == f"valid_until: not an ISO-8601 time: {'x' * 59 + 'y'!r}"


@pytest.mark.parametrize(("v", "message"), [
    ("AAA", "embedding: is not valid base64"),
    ("AAAA AAAA", "embedding: is not valid base64"),  # validated, not silently cleaned
    ("é", "embedding: is not valid base64"),
    ("", "embedding: must be float32 values (a multiple of 4 bytes), got 0 bytes"),
    ("AAAAAAA=", "embedding: must be float32 values (a multiple of 4 bytes), got 5 bytes"),
    (base64.b64encode(np.array([1.0, np.nan], dtype="<f4").tobytes()).decode(),
     "embedding: contains NaN or infinite values"),
    (base64.b64encode(np.array([np.inf], dtype="<f4").tobytes()).decode(),
     "embedding: contains NaN or infinite values"),
])
def test_an_embedding_must_be_finite_float32_in_base64(v: str, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        decode_embedding(v)
    assert str(info.value) == message


def test_an_embedding_decodes_to_its_bytes() -> None:
    vec = np.array([1.0, -0.5, 3.25], dtype="<f4").tobytes()
    assert decode_embedding(base64.b64encode(vec).decode()) == vec


# -- reading lines -----------------------------------------------------------------
def test_lines_split_on_newline_only_blank_ones_skipped_but_numbered() -> None:
    data = "a\n\nb\u2028c\r\n  \nd".encode()
    assert list(read_lines(io.BytesIO(data))) == [
        Line(1, b"a", 2), Line(3, "b\u2028c".encode(), 10), Line(5, b"d", 14)]


def test_a_line_over_the_limit_is_skipped_to_its_end() -> None:
    data = b"abcdefghij\nabcd\nabcd\nabcde\nxy"
    assert list(read_lines(io.BytesIO(data), 4)) == [
        Line(1, None, 11), Line(2, b"abcd", 16), Line(3, b"abcd", 21), Line(4, None, 27),
        Line(5, b"xy", 29)]


@pytest.mark.parametrize(("data", "expected"), [
    (b"abcd", [Line(1, b"abcd", 4)]),  # exactly the limit, at the end of the input
    (b"abcde", [Line(1, None, 5)]),  # one over, with no newline after it
])
def test_the_limit_is_inclusive(data: bytes, expected: list[Line]) -> None:
    assert list(read_lines(io.BytesIO(data), 4)) == expected


def test_a_long_line_is_skipped_across_many_reads() -> None:
    data = b"x" * (3 * 1024 * 1024 + 5) + b"\nok\n"
    assert list(read_lines(io.BytesIO(data), 10)) == [
        Line(1, None, len(data) - 3), Line(2, b"ok", len(data))]


def test_the_default_limit_is_eight_mebibytes() -> None:
    ok = b"x" * (8 * 1024 * 1024)
    assert [(ln.number, ln.raw == ok) for ln in read_lines(io.BytesIO(ok + b"\n" + ok))] == [
        (1, True), (2, True)]
    assert [ln.raw for ln in read_lines(io.BytesIO(ok + b"y\n"))] == [None]


def test_the_source_yields_values_or_the_reason_per_line() -> None:
    good = encode_row(row(), with_embedding=False)
    data = good + b"\n[1]\n" + b'{"text": 5}\n' + b"x" * (MAX_LINE_BYTES + 1) + b"\n"
    src = JsonlSource(io.BytesIO(data), label="in.jsonl", total=len(data))
    cands = list(src)
    assert [(c.number, c.error, c.position) for c in cands] == [
        (1, None, len(good)),
        (3, "expected a JSON object, got an array", len(good) + 5),
        (4, "text: must be a string, got a number", len(good) + 17),
        (5, "longer than 8,388,608 bytes; not read", len(data)),
    ]
    assert cands[0].values == decode_fields(json.loads(good))
    assert cands[0].values["created_at"] == T
    assert [c.values for c in cands[1:]] == [None, None, None]
    assert (src.label, src.total, src.unit, src.kind) == (
        "in.jsonl", len(data), "line", "memdesk JSON Lines")
