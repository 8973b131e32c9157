"""The extraction contract's gate, message by message: what a turn accepts, why a unit is
rejected (the exact reason an operator reads in a job's log), what a kept unit is
normalised to, and which units survive the five-unit cap."""

from __future__ import annotations

from typing import Any

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.write.units import (
    Turn,
    Unit,
    UnitRejected,
    top_units,
    validate_unit,
)


def raw(**over: Any) -> dict[str, Any]:
    base = {"text": "The user works at Acme.", "type": "fact", "importance": 0.5,
            "confidence": 0.75, "entity": "user", "attribute": "works_at", "value": "Acme"}
    base.update(over)
    return base


def reason(value: Any) -> str:
    with pytest.raises(UnitRejected) as err:
        validate_unit(value)
    return str(err.value)


# -- turns --------------------------------------------------------------------------------
def test_a_turn_keeps_its_fields() -> None:
    t = Turn("I use vim", "u", "s", "tools")
    assert (t.text, t.user_id, t.session_id, t.topic) == ("I use vim", "u", "s", "tools")
    assert Turn("I use vim", "u") == Turn("I use vim", "u", None, None)


def test_a_turn_of_exactly_the_limit_is_accepted_one_more_is_not() -> None:
    assert len(Turn("x" * 100_000, "u").text) == 100_000
    with pytest.raises(ValidationError) as err:
        Turn("x" * 100_001, "u")
    assert str(err.value) == "text: is 100001 characters; the limit is 100000"


def test_a_turn_needs_a_user() -> None:
    with pytest.raises(ValidationError) as err:
        Turn("I use vim", "  ")
    assert (err.value.field, str(err.value)) == ("user_id", "user_id: must not be empty")
    with pytest.raises(ValidationError) as err:
        Turn("I use vim", None)  # type: ignore[arg-type]
    assert err.value.field == "user_id"


@pytest.mark.parametrize(("kw", "field", "message"), [
    ({"user_id": "u" * 201}, "user_id", "user_id: is 201 characters; the limit is 200"),
    ({"session_id": "s" * 201}, "session_id", "session_id: is 201 characters; the limit is 200"),
    ({"topic": "t" * 201}, "topic", "topic: is 201 characters; the limit is 200"),
    ({"session_id": 5}, "session_id", "session_id: must be text, got int"),
    ({"topic": "a\x00b"}, "topic", "topic: contains a NUL character"),
])
def test_a_turns_ids_are_checked(kw: dict[str, Any], field: str, message: str) -> None:
    args = {"text": "I use vim", "user_id": "u", **kw}
    with pytest.raises(ValidationError) as err:
        Turn(**args)
    assert (err.value.field, str(err.value)) == (field, message)


def test_ids_of_exactly_200_characters_are_accepted() -> None:
    t = Turn("I use vim", "u" * 200, "s" * 200, "t" * 200)
    assert (len(t.user_id), len(t.session_id or ""), len(t.topic or "")) == (200, 200, 200)


# -- units: what is kept ------------------------------------------------------------------
def test_a_valid_unit_is_stripped_and_its_type_lowercased() -> None:
    u = validate_unit(raw(text="  The user works at Acme.\n", type=" Fact ", importance=1,
                          confidence=0, entity=" user ", attribute="works_at ",
                          value="  Acme "))
    assert u == Unit("The user works at Acme.", "fact", 1.0, 0.0, "user", "works_at", "Acme")
    assert isinstance(u.importance, float) and isinstance(u.confidence, float)


def test_blank_or_null_triple_parts_become_none() -> None:
    u = validate_unit(raw(entity=None, attribute="   ", value=""))
    assert (u.entity, u.attribute, u.value) == (None, None, None)


def test_scores_at_the_bounds_are_kept() -> None:
    u = validate_unit(raw(importance=0.0, confidence=1.0))
    assert (u.importance, u.confidence) == (0.0, 1.0)


def test_a_unit_as_json_is_its_fields() -> None:
    u = Unit("t", "note", 0.25, 0.5)
    assert u.to_json() == {"text": "t", "type": "note", "importance": 0.25,
                           "confidence": 0.5, "entity": None, "attribute": None,
                           "value": None, "framing": None}


def test_framing_is_optional_and_checked() -> None:
    assert validate_unit(raw()).framing is None
    assert validate_unit(raw(framing=" Hypothetical ")).framing == "hypothetical"
    for bad in ("maybe", 3, ""):
        with pytest.raises(UnitRejected, match="framing"):
            validate_unit(raw(framing=bad))


def test_text_of_exactly_the_limit_is_kept() -> None:
    assert len(validate_unit(raw(text="a" * 2000)).text) == 2000


def test_limits_of_the_triple_parts_are_inclusive() -> None:
    u = validate_unit(raw(entity="e" * 200, attribute="a" * 200, value="v" * 10_000))
    assert (len(u.entity or ""), len(u.attribute or ""), len(u.value or "")) == (
        200, 200, 10_000)


# -- units: why one is rejected -----------------------------------------------------------
@pytest.mark.parametrize(("value", "message"), [
    (["a"], "a unit must be an object, got list"),
    ("text", "a unit must be an object, got str"),
    (None, "a unit must be an object, got NoneType"),
    ({"text": "x"}, "missing field(s): type, importance, confidence, entity, attribute, value"),
    ({k: v for k, v in raw().items() if k != "value"}, "missing field(s): value"),
    ({k: v for k, v in raw().items() if k not in ("text", "confidence")},
     "missing field(s): text, confidence"),
    (raw(text="   "), "text must be non-empty text"),
    (raw(text=5), "text must be non-empty text"),
    (raw(text="a" * 2001), "text is not a 1–2 sentence memory (2001 characters)"),
    (raw(text="a\x00b"), "text is not a 1–2 sentence memory (3 characters)"),
    (raw(type="opinion"), "type 'opinion' is not one of preference, fact, decision, "
                          "procedure, correction, error, note, reasoning"),
    (raw(type=3), "type 3 is not one of preference, fact, decision, procedure, correction, "
                  "error, note, reasoning"),
    (raw(importance=True), "importance must be a number, got True"),
    (raw(confidence=False), "confidence must be a number, got False"),
    (raw(importance="0.5"), "importance must be a number, got '0.5'"),
    (raw(confidence=None), "confidence must be a number, got None"),
    (raw(importance=float("nan")), "importance is nan, not a number in [0, 1]"),
    (raw(confidence=float("inf")), "confidence is inf, not a number in [0, 1]"),
    (raw(importance=float("-inf")), "importance is -inf, not a number in [0, 1]"),
    (raw(importance=1.0000001), "importance 1.0000001 is outside [0, 1]"),
    (raw(confidence=-0.0001), "confidence -0.0001 is outside [0, 1]"),
    (raw(importance=2), "importance 2.0 is outside [0, 1]"),
    (raw(entity=3), "entity must be text or null, got int"),
    (raw(attribute=["a"]), "attribute must be text or null, got list"),
    (raw(value={"v": 1}), "value must be text or null, got dict"),
    (raw(entity="e" * 201), "entity is not usable text (NUL or longer than 200)"),
    (raw(attribute="a" * 201), "attribute is not usable text (NUL or longer than 200)"),
    (raw(value="v" * 10_001), "value is not usable text (NUL or longer than 10000)"),
    (raw(value="a\x00"), "value is not usable text (NUL or longer than 10000)"),
    (raw(entity="\x00"), "entity is not usable text (NUL or longer than 200)"),
])
def test_a_rejected_unit_says_exactly_why(value: Any, message: str) -> None:
    assert reason(value) == message


# -- the five-unit cap --------------------------------------------------------------------
def units_with(*importances: float) -> list[Unit]:
    return [Unit(f"u{i}", "fact", imp, 0.5) for i, imp in enumerate(importances)]


def test_five_units_or_fewer_are_kept_as_they_are_without_a_note() -> None:
    notes: list[str] = []
    five = units_with(0.1, 0.2, 0.3, 0.4, 0.5)
    assert top_units(five, notes) == five and notes == []
    assert top_units([], notes) == [] and notes == []


def test_six_units_keep_the_five_most_important_in_their_order() -> None:
    notes: list[str] = ["earlier"]
    six = units_with(0.9, 0.1, 0.8, 0.7, 0.6, 0.5)
    kept = top_units(six, notes)
    assert [u.text for u in kept] == ["u0", "u2", "u3", "u4", "u5"]
    assert notes == ["earlier", "kept the 5 most important of 6 units"]


def test_ties_keep_the_earlier_units() -> None:
    notes: list[str] = []
    seven = units_with(0.5, 0.9, 0.5, 0.5, 0.5, 0.5, 0.5)
    assert [u.text for u in top_units(seven, notes)] == ["u0", "u1", "u2", "u3", "u4"]
    assert notes == ["kept the 5 most important of 7 units"]
