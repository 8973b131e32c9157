"""Write-time validation of memory fields: one rule per field, as a table.

The rules themselves (types, layers, score ranges, text limits) live in the taxonomy;
this table says which rule checks which field.  Adding a field to the schema means
adding one row here; an unknown field is refused, naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any

from memdesk.core import taxonomy as tx
from memdesk.core.errors import ValidationError
from memdesk.core.ids import new_id, utcnow

Rule = Callable[[str, Any], Any]

# Limits of the schema's VARCHAR columns (core/store/models.py).
SHORT_TEXT = 200
ID_CHARS = 64
VALUE_CHARS = 10_000


def _time(field: str, value: Any) -> datetime | None:
    """An aware or naive time, or ISO-8601 text, stored as naive UTC."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ValidationError(field, f"not an ISO-8601 time: {value!r}") from None
    if not isinstance(value, datetime):
        raise ValidationError(field, f"must be a time, got {type(value).__name__}")
    when: datetime = value
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when


def _short_text(limit: int, field: str, value: Any) -> str | None:
    """An optional text of at most ``limit`` characters.

    Bound to its limit with ``partial`` in FIELD_RULES rather than built by a factory
    at import: the check then runs here on every call, where mutation testing (which
    switches code per call, after import) can reach it.
    """
    return tx.check_optional_str(field, value, limit)


def _required_short(field: str, value: Any) -> str:
    out = tx.check_optional_str(field, value, SHORT_TEXT)
    if out is None:
        raise ValidationError(field, "must not be empty")
    return out


def _optional_unit(field: str, value: Any) -> float | None:
    return None if value is None else tx.check_unit(field, value)


def _embedding(field: str, value: Any) -> bytes | None:
    if value is not None and not isinstance(value, bytes | bytearray | memoryview):
        raise ValidationError(field, "must be bytes (float32 little-endian) or None")
    return bytes(value) if value is not None else None


def _id(field: str, value: Any) -> str:
    return tx.check_optional_str(field, value, ID_CHARS) or new_id()


FIELD_RULES: dict[str, Rule] = {
    "id": _id,
    "text": lambda field, value: tx.check_text(value, field),
    "type": lambda _field, value: tx.check_type(value),
    "layer": lambda _field, value: tx.check_layer(value),
    "importance": tx.check_unit,
    "confidence": tx.check_unit,
    "decay_score": _optional_unit,
    "user_id": _required_short,
    "topic": partial(_short_text, SHORT_TEXT),
    "source_session": partial(_short_text, SHORT_TEXT),
    "agent_id": partial(_short_text, SHORT_TEXT),
    "run_id": partial(_short_text, SHORT_TEXT),
    "entity": partial(_short_text, SHORT_TEXT),
    "attribute": partial(_short_text, SHORT_TEXT),
    "value": partial(_short_text, VALUE_CHARS),
    "created_at": _time,
    "last_accessed": _time,
    "valid_until": _time,
    "deleted_at": _time,
    # Set on insert by an import (a held memory stays held); never through update():
    # not in EDITABLE_FIELDS, only the review actions release it (core/guard/review.py).
    "quarantined_at": _time,
    # Likewise set on insert by an import (an archived memory stays archived); changed
    # only by archive and unarchive (core/store/archive.py), never through update().
    "archived_at": _time,
    "access_count": tx.check_count,
    "superseded_by": partial(_short_text, ID_CHARS),
    "embedding": _embedding,
    "framing": tx.check_framing,
}

REQUIRED = ("text", "type", "user_id")


def validate_fields(values: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    """Check and normalise field values; raises ValidationError naming the field.

    ``creating`` also requires text, type and user and fills the defaults a new memory
    gets (id, scores, access count, creation time).
    """
    out: dict[str, Any] = {}
    for key, val in values.items():
        rule = FIELD_RULES.get(key)
        if rule is None:
            raise ValidationError(key, "is not a memory field")
        out[key] = rule(key, val)
    if creating:
        for required in REQUIRED:
            if required not in out:
                raise ValidationError(required, "is required")
        out.setdefault("id", new_id())
        out.setdefault("importance", 0.5)
        out.setdefault("confidence", 0.8)
        out.setdefault("access_count", 0)
        if (out.get("framing") == tx.HYPOTHETICAL
                and out["confidence"] > tx.HYPOTHETICAL_MAX_CONFIDENCE):
            raise ValidationError("confidence", (
                f"is {out['confidence']}; a hypothetical is kept at confidence "
                f"{tx.HYPOTHETICAL_MAX_CONFIDENCE} or less"))
        if out.get("created_at") is None:
            out["created_at"] = utcnow()
    return out
