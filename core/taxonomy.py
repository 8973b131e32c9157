"""The memory type and layer taxonomies, and write-time validation of field values.

The designs disagree on types: Recall (the write-phase design) has
preference/fact/decision/procedure,
the dispositional-memory seed (000) adds correction/error/note/reasoning.  ``type``
accepts the union.  The layers of the memory-types decision record are a separate axis, ``layer``.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

from memdesk.core.errors import ValidationError


class MemoryType(StrEnum):
    PREFERENCE = "preference"
    FACT = "fact"
    DECISION = "decision"
    PROCEDURE = "procedure"
    CORRECTION = "correction"
    ERROR = "error"
    NOTE = "note"
    REASONING = "reasoning"
    # A conversation turn kept as said (the episodic layer of the memory-types decision
    # record: "what happened"); the typed units extracted from it link to it.
    EPISODE = "episode"


RECALL_TYPES = (MemoryType.PREFERENCE, MemoryType.FACT, MemoryType.DECISION, MemoryType.PROCEDURE)
DISPOSITIONAL_TYPES = (
    MemoryType.PREFERENCE,
    MemoryType.DECISION,
    MemoryType.CORRECTION,
    MemoryType.ERROR,
    MemoryType.NOTE,
    MemoryType.REASONING,
)


class Layer(StrEnum):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    WORKING = "working"


class Actor(StrEnum):
    OPERATOR = "operator"
    AGENT = "agent"
    WORKER = "worker"
    # Imports (memdesk import, File > Import): an operator action, but kept apart in the
    # audit log so "what did that import bring in" is one filter.
    IMPORT = "import"


# Per-type half-lives in days (the dispositional-memory design); types it does not name get the
# fact default.
HALF_LIFE_DAYS: dict[str, float] = {
    "preference": 120.0,
    "decision": 90.0,
    "correction": 60.0,
    "error": 30.0,
    "note": 14.0,
    "episode": 30.0,
}

# How a memory was said (``memories.framing``).  None: stated as a belief.
# "hypothetical": a supposition, role-play or "what if" -- kept, but never an active
# belief; the write-phase design caps its confidence.
HYPOTHETICAL = "hypothetical"
FRAMINGS = (HYPOTHETICAL,)
HYPOTHETICAL_MAX_CONFIDENCE = 0.3

MAX_TEXT_CHARS = 100_000
LOW_CONFIDENCE = 0.4  # the write-phase design's retrieval threshold


def check_type(value: Any) -> str:
    try:
        return MemoryType(str(value).strip().lower()).value
    except ValueError:
        allowed = ", ".join(t.value for t in MemoryType)
        raise ValidationError(
            "type", f"unknown type {value!r}; expected one of {allowed}"
        ) from None


def check_layer(value: Any) -> str | None:
    if value is None or value == "":
        return None
    try:
        return Layer(str(value).strip().lower()).value
    except ValueError:
        allowed = ", ".join(x.value for x in Layer)
        raise ValidationError(
            "layer", f"unknown layer {value!r}; expected one of {allowed}"
        ) from None


def check_framing(field: str, value: Any) -> str | None:
    """None (a belief) or one of FRAMINGS; empty text counts as None."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str) or value.strip().lower() not in FRAMINGS:
        raise ValidationError(field, f"unknown framing {value!r}; expected nothing (a "
                                     "belief) or one of " + ", ".join(FRAMINGS))
    return value.strip().lower()


def check_unit(field: str, value: Any) -> float:
    """A score in [0, 1]; rejects NaN, infinities, booleans and non-numbers."""
    if isinstance(value, bool):
        raise ValidationError(field, f"must be a number in [0, 1], got {value!r}")
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ValidationError(field, f"must be a number in [0, 1], got {value!r}") from None
    if math.isnan(f) or math.isinf(f):
        raise ValidationError(field, f"must be a number in [0, 1], got {value!r}")
    if not 0.0 <= f <= 1.0:
        raise ValidationError(field, f"must be in [0, 1], got {f}")
    return f


def _check_encodable(field: str, value: str) -> None:
    """Refuse text SQLite cannot store as UTF-8: lone surrogates, which is what
    undecodable bytes in a command-line argument become (surrogateescape)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(
            field, "is not valid UTF-8 text (it holds bytes that are not characters)"
        ) from None


def check_text(value: Any, field: str = "text") -> str:
    if not isinstance(value, str):
        raise ValidationError(field, f"must be text, got {type(value).__name__}")
    _check_encodable(field, value)
    if "\x00" in value:
        raise ValidationError(field, "contains a NUL character")
    if not value.strip():
        raise ValidationError(field, "must not be empty")
    if len(value) > MAX_TEXT_CHARS:
        raise ValidationError(field, f"is {len(value)} characters; the limit is {MAX_TEXT_CHARS}")
    return value


def check_optional_str(field: str, value: Any, limit: int = 1000) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(field, f"must be text, got {type(value).__name__}")
    _check_encodable(field, value)
    if "\x00" in value:
        raise ValidationError(field, "contains a NUL character")
    if len(value) > limit:
        raise ValidationError(field, f"is {len(value)} characters; the limit is {limit}")
    return value if value.strip() else None


# Counts are INTEGER columns: 32-bit on PostgreSQL, which refuses anything larger with
# a driver error.  The same limit on SQLite keeps every store movable to PostgreSQL.
COUNT_MAX = 2**31 - 1


def check_count(field: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError(field, f"must be a non-negative integer, got {value!r}")
    if value > COUNT_MAX:
        raise ValidationError(field, f"must be at most {COUNT_MAX:,}, got {value:,}")
    return value
