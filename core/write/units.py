"""The extraction contract: a conversation turn in, 0–5 validated memory units out.

A :class:`Unit` is the part of Recall's MemoryUnit (the write-phase design) an extractor decides:
text, type, importance, confidence and the entity–attribute–value triple.  Ids, times,
user and session come from the turn and the store.

:func:`validate_unit` is the one gate every extractor's output passes.  It rejects a
unit with a missing or out-of-range field and says why; it never clamps or guesses
(the write-phase design's provenance failure starts with a pipeline that fills in defaults).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from memdesk.core.errors import MemdeskError, ValidationError
from memdesk.core.taxonomy import MemoryType, check_optional_str, check_text
from memdesk.core.write.when import EventDate

MAX_UNITS = 5
MAX_UNIT_TEXT = 2_000  # "1–2 sentences": anything this long is not a memory unit
MAX_TURN_TEXT = 100_000
# What an extractor may say a unit is.  Not ``episode``: the write path keeps the turn
# itself as its episode, so an extractor's "episode" would be a second copy of it.
UNIT_TYPES = tuple(t.value for t in MemoryType if t is not MemoryType.EPISODE)
UNIT_FIELDS = ("text", "type", "importance", "confidence", "entity", "attribute", "value")
# How a unit was said.  None: stated as the user's belief.  "hypothetical": framed as a
# supposition, role-play or "what if" -- kept for the operator (the write-phase design
# caps its confidence at 0.3) but never an active belief.  Optional in an extractor's
# JSON, so an LLM that does not know the key still produces valid units.
FRAMINGS = ("hypothetical",)


class ExtractionError(MemdeskError):
    """The extractor could not produce an answer (server down, malformed reply, …)."""


class UnitRejected(ValueError):
    """One unit of an extractor's answer is invalid; ``str()`` is the reason."""


def parse_said_at(value: object) -> datetime | None:
    """When a turn's session took place, from what an agent or a file says: an ISO 8601
    date or date and time (with an offset, converted to UTC; without one, taken as UTC,
    as every time in the store is).  None or empty: not given."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, datetime):
        when = value
    elif isinstance(value, str):
        text = value.strip()
        try:
            when = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
        except ValueError:
            raise ValidationError("said_at", f"{value!r} is not an ISO 8601 date or time "
                                  "(for example 2023-05-08T13:56:00Z)") from None
    else:
        raise ValidationError("said_at", "must be an ISO 8601 date or time, got "
                              f"{type(value).__name__}")
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when


@dataclass(frozen=True)
class Turn:
    """One conversation turn handed over by an agent."""

    text: str
    user_id: str
    session_id: str | None = None
    topic: str | None = None
    agent_id: str | None = None  # which agent said it, and in which run (scoping)
    run_id: str | None = None
    # Who said it ("user", "assistant", a name) and when its session took place (UTC;
    # None: not given).  Kept on the turn's episode; relative dates are resolved from it.
    speaker: str | None = None
    said_at: datetime | None = None

    def __post_init__(self) -> None:
        check_text(self.text)
        if len(self.text) > MAX_TURN_TEXT:
            raise ValidationError("text", f"is {len(self.text)} characters; "
                                  f"the limit is {MAX_TURN_TEXT}")
        if check_optional_str("user_id", self.user_id, 200) is None:
            raise ValidationError("user_id", "must not be empty")
        check_optional_str("session_id", self.session_id, 200)
        check_optional_str("topic", self.topic, 200)
        check_optional_str("agent_id", self.agent_id, 200)
        check_optional_str("run_id", self.run_id, 200)
        check_optional_str("speaker", self.speaker, 200)
        if self.said_at is not None and not isinstance(self.said_at, datetime):
            raise ValidationError("said_at", "must be a date and time (ISO 8601), got "
                                  f"{type(self.said_at).__name__}")


@dataclass(frozen=True)
class Unit:
    """One validated memory unit (every score in [0, 1], a known type)."""

    text: str
    type: str
    importance: float
    confidence: float
    entity: str | None = None
    attribute: str | None = None
    value: str | None = None
    framing: str | None = None
    # When the event a unit tells of happened, read from its sentence ("last Saturday");
    # None when the sentence names no time.
    when: EventDate | None = None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        del out["when"]
        if self.when is not None:  # only when there is one: a reply without events is unchanged
            out["when"] = self.when.to_json()
        return out


@dataclass
class Extraction:
    """An extractor's answer: the units, who produced them, and what was noted on the way
    (rejected units, a fallback and its reason)."""

    units: list[Unit]
    extractor: str
    model: str | None = None
    notes: list[str] = field(default_factory=list)


class Extractor(Protocol):
    """Turns a turn into 0–5 units.  Raises ExtractionError when it cannot answer."""

    # Read-only here, so an extractor that always names its model (``model: str``)
    # is one too.
    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    def extract(self, turn: Turn) -> Extraction: ...


def _score(raw: dict[str, Any], key: str) -> float:
    v = raw[key]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise UnitRejected(f"{key} must be a number, got {v!r}")
    f = float(v)
    if math.isnan(f) or math.isinf(f):
        raise UnitRejected(f"{key} is {v!r}, not a number in [0, 1]")
    if not 0.0 <= f <= 1.0:
        raise UnitRejected(f"{key} {f} is outside [0, 1]")
    return f


def _opt_str(raw: dict[str, Any], key: str, limit: int) -> str | None:
    v = raw[key]
    if v is None:
        return None
    if not isinstance(v, str):
        raise UnitRejected(f"{key} must be text or null, got {type(v).__name__}")
    if "\x00" in v or len(v) > limit:
        raise UnitRejected(f"{key} is not usable text (NUL or longer than {limit})")
    return v.strip() or None


def validate_unit(raw: Any) -> Unit:
    """A Unit from an extractor's JSON object, or UnitRejected with the reason."""
    if not isinstance(raw, dict):
        raise UnitRejected(f"a unit must be an object, got {type(raw).__name__}")
    missing = [k for k in UNIT_FIELDS if k not in raw]
    if missing:
        raise UnitRejected("missing field(s): " + ", ".join(missing))
    text = raw["text"]
    if not isinstance(text, str) or not text.strip():
        raise UnitRejected("text must be non-empty text")
    if "\x00" in text or len(text) > MAX_UNIT_TEXT:
        raise UnitRejected(f"text is not a 1–2 sentence memory ({len(text)} characters)")
    typ = raw["type"]
    if not isinstance(typ, str) or typ.strip().lower() not in UNIT_TYPES:
        raise UnitRejected(f"type {typ!r} is not one of " + ", ".join(UNIT_TYPES))
    return Unit(
        text=text.strip(),
        type=typ.strip().lower(),
        importance=_score(raw, "importance"),
        confidence=_score(raw, "confidence"),
        entity=_opt_str(raw, "entity", 200),
        attribute=_opt_str(raw, "attribute", 200),
        value=_opt_str(raw, "value", 10_000),
        framing=_framing(raw.get("framing")),
        when=_when(raw.get("when")),
    )


def _when(v: Any) -> EventDate | None:
    if v is None:
        return None
    try:
        return EventDate.from_json(v)
    except ValueError as exc:
        raise UnitRejected(str(exc)) from None


def _framing(v: Any) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str) or v.strip().lower() not in FRAMINGS:
        raise UnitRejected(f"framing {v!r} is not one of: null, " + ", ".join(FRAMINGS))
    return v.strip().lower()


def top_units(units: list[Unit], notes: list[str]) -> list[Unit]:
    """At most MAX_UNITS: the most important ones, in their original order."""
    if len(units) <= MAX_UNITS:
        return units
    keep = sorted(range(len(units)), key=lambda i: -units[i].importance)[:MAX_UNITS]
    notes.append(f"kept the {MAX_UNITS} most important of {len(units)} units")
    return [units[i] for i in sorted(keep)]
