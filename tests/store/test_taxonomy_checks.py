"""core/taxonomy: the type and layer vocabularies and the write-time field checks.

Pure functions, no store: each expectation comes from the module's documented rules
(the dispositional-memory design, the memory-types decision record and the write-phase design for
the vocabularies, the docstrings for the checks)."""

from __future__ import annotations

import pytest

from memdesk.core import taxonomy as tx
from memdesk.core.errors import ValidationError

# The union, and the episode: a turn kept as said (the write path makes them).
ALL_TYPES = "preference, fact, decision, procedure, correction, error, note, reasoning, episode"


def test_type_vocabulary_is_the_union_of_recall_and_dispositional_types() -> None:
    assert [t.value for t in tx.MemoryType] == ALL_TYPES.split(", ")
    assert [t.value for t in tx.RECALL_TYPES] == ["preference", "fact", "decision", "procedure"]
    assert [t.value for t in tx.DISPOSITIONAL_TYPES] == [
        "preference", "decision", "correction", "error", "note", "reasoning"]
    assert [x.value for x in tx.Layer] == ["episodic", "semantic", "procedural", "working"]
    assert [a.value for a in tx.Actor] == ["operator", "agent", "worker", "import"]


@pytest.mark.parametrize(("given", "stored"), [
    ("fact", "fact"), ("  Preference ", "preference"), ("NOTE", "note"),
    (tx.MemoryType.REASONING, "reasoning"),
])
def test_check_type_normalises_case_and_whitespace(given: object, stored: str) -> None:
    assert tx.check_type(given) == stored


def test_check_type_names_every_allowed_type_when_refusing() -> None:
    with pytest.raises(ValidationError) as err:
        tx.check_type("opinion")
    assert err.value.field == "type"
    assert str(err.value) == f"type: unknown type 'opinion'; expected one of {ALL_TYPES}"
    assert err.value.__cause__ is None and err.value.__suppress_context__


@pytest.mark.parametrize("empty", [None, ""])
def test_check_layer_treats_none_and_empty_as_no_layer(empty: object) -> None:
    assert tx.check_layer(empty) is None


@pytest.mark.parametrize(("given", "stored"), [
    ("episodic", "episodic"), (" Working ", "working"), ("PROCEDURAL", "procedural"),
])
def test_check_layer_normalises(given: str, stored: str) -> None:
    assert tx.check_layer(given) == stored


@pytest.mark.parametrize("bad", ["   ", "long-term"])
def test_check_layer_names_every_layer_when_refusing(bad: str) -> None:
    with pytest.raises(ValidationError) as err:
        tx.check_layer(bad)
    assert err.value.field == "layer"
    assert str(err.value) == (f"layer: unknown layer {bad!r}; expected one of "
                              "episodic, semantic, procedural, working")
    assert err.value.__suppress_context__


@pytest.mark.parametrize(("given", "expected"), [
    (0, 0.0), (1, 1.0), (0.0, 0.0), (1.0, 1.0), ("0.5", 0.5), (0.25, 0.25),
])
def test_check_unit_accepts_the_closed_interval(given: object, expected: float) -> None:
    got = tx.check_unit("importance", given)
    assert got == expected and type(got) is float


@pytest.mark.parametrize("bad", [True, False])
def test_check_unit_refuses_booleans(bad: bool) -> None:
    with pytest.raises(ValidationError) as err:
        tx.check_unit("confidence", bad)
    assert err.value.field == "confidence"
    assert str(err.value) == f"confidence: must be a number in [0, 1], got {bad!r}"


@pytest.mark.parametrize("bad", ["high", None, [0.5]])
def test_check_unit_refuses_non_numbers(bad: object) -> None:
    with pytest.raises(ValidationError) as err:
        tx.check_unit("importance", bad)
    assert err.value.field == "importance"
    assert str(err.value) == f"importance: must be a number in [0, 1], got {bad!r}"
    assert err.value.__suppress_context__


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf"), "nan"])
def test_check_unit_refuses_nan_and_infinities(bad: object) -> None:
    with pytest.raises(ValidationError) as err:
        tx.check_unit("importance", bad)
    assert str(err.value) == f"importance: must be a number in [0, 1], got {bad!r}"


@pytest.mark.parametrize(("bad", "shown"), [
    (-0.01, "-0.01"), (1.01, "1.01"), (2, "2.0"), ("-1", "-1.0"),
])
def test_check_unit_refuses_values_outside_zero_to_one(bad: object, shown: str) -> None:
    with pytest.raises(ValidationError) as err:
        tx.check_unit("band", bad)
    assert err.value.field == "band"
    assert str(err.value) == f"band: must be in [0, 1], got {shown}"


def test_check_text_returns_the_text_unchanged() -> None:
    assert tx.check_text("  hello  ") == "  hello  "
    limit = "x" * 100_000  # the longest text accepted (one more is refused, below)
    assert tx.check_text(limit) is limit


@pytest.mark.parametrize(("bad", "field", "message"), [
    (5, "text", "must be text, got int"),
    (None, "summary", "must be text, got NoneType"),
    ("a\x00b", "text", "contains a NUL character"),
    ("", "text", "must not be empty"),
    (" \n\t", "title", "must not be empty"),
    ("x" * 100_001, "text", "is 100001 characters; the limit is 100000"),
    ("bad \udcff byte", "text",
     "is not valid UTF-8 text (it holds bytes that are not characters)"),
])
def test_check_text_refusals(bad: object, field: str, message: str) -> None:
    with pytest.raises(ValidationError) as err:
        if field == "text":
            tx.check_text(bad)
        else:
            tx.check_text(bad, field)
    assert err.value.field == field
    assert str(err.value) == f"{field}: {message}"
    assert err.value.__suppress_context__ or err.value.__context__ is None


def test_check_optional_str_values() -> None:
    assert tx.check_optional_str("topic", None) is None
    assert tx.check_optional_str("topic", "   ") is None
    assert tx.check_optional_str("topic", "") is None
    assert tx.check_optional_str("topic", " employer ") == " employer "
    at_limit = "y" * 1000
    assert tx.check_optional_str("topic", at_limit) is at_limit
    assert tx.check_optional_str("topic", "abc", limit=3) == "abc"


@pytest.mark.parametrize(("bad", "kwargs", "message"), [
    (7, {}, "must be text, got int"),
    ("a\x00", {}, "contains a NUL character"),
    ("y" * 1001, {}, "is 1001 characters; the limit is 1000"),
    ("abcd", {"limit": 3}, "is 4 characters; the limit is 3"),
    ("\udc80", {}, "is not valid UTF-8 text (it holds bytes that are not characters)"),
])
def test_check_optional_str_refusals(bad: object, kwargs: dict, message: str) -> None:
    with pytest.raises(ValidationError) as err:
        tx.check_optional_str("source", bad, **kwargs)
    assert err.value.field == "source"
    assert str(err.value) == f"source: {message}"


def test_encoding_refusal_hides_the_unicode_error() -> None:
    with pytest.raises(ValidationError) as err:
        tx.check_text("\udcff")
    assert err.value.__cause__ is None and err.value.__suppress_context__


@pytest.mark.parametrize("good", [0, 1, 2_147_483_647])
def test_check_count_accepts_zero_to_the_int32_limit(good: int) -> None:
    assert tx.check_count("uses", good) == good


@pytest.mark.parametrize(("bad", "message"), [
    (-1, "must be a non-negative integer, got -1"),
    (True, "must be a non-negative integer, got True"),
    (False, "must be a non-negative integer, got False"),
    (1.0, "must be a non-negative integer, got 1.0"),
    ("3", "must be a non-negative integer, got '3'"),
    (2_147_483_648, "must be at most 2,147,483,647, got 2,147,483,648"),
])
def test_check_count_refusals(bad: object, message: str) -> None:
    with pytest.raises(ValidationError) as err:
        tx.check_count("uses", bad)
    assert err.value.field == "uses"
    assert str(err.value) == f"uses: {message}"
