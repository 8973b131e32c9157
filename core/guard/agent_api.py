"""What agents may hand over and what they may see: the core of the MCP tools.

The MCP server (app/mcp/server.py) is protocol glue; the rules for agents live here so
every entry point applies the same ones:

- text from an agent must be well-formed: no NUL, no lone surrogates (JSON allows
  ``"\\ud800"``; SQLite's UTF-8 encoder does not), within the store's limits.  The
  stdio transport turns a lone surrogate into ``INVALID_MARK`` (U+FFFF, a noncharacter
  no valid text carries) before the SDK parses the line, so it reaches these checks;
- an agent sees memories without their vectors, never one that is held for review or
  deleted (a held memory is reported as held, its text withheld; a deleted one is gone);
- an agent's searches are always scoped to one user and to the statuses a belief can
  have (active, superseded, expired).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.records import MemoryRecord

AGENT_STATUSES = {
    "active": (Status.ACTIVE,),
    "superseded": (Status.SUPERSEDED,),
    "expired": (Status.EXPIRED,),
    "any": (Status.ACTIVE, Status.SUPERSEDED, Status.EXPIRED),
}
AGENT_FIELDS = (
    "id", "user_id", "text", "type", "layer", "topic", "importance", "confidence",
    "source_session", "agent_id", "run_id", "created_at", "last_accessed", "access_count",
    "entity", "attribute", "value", "superseded_by", "valid_until",
)


INVALID_MARK = "\uffff"


class HeldForReview(NotFoundError):
    """The memory exists but waits for an operator's review; agents cannot read it."""


def check_agent_text(field: str, value: str | None) -> str | None:
    """Reject text a store cannot hold faithfully (NUL, lone surrogates)."""
    if value is None:
        return None
    if "\x00" in value:
        raise ValidationError(field, "contains a NUL character")
    if INVALID_MARK in value:
        raise ValidationError(field, "is not valid Unicode (it holds a lone surrogate or "
                                     "the noncharacter U+FFFF)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(field, "is not valid Unicode (it holds a lone surrogate "
                                     "code point)") from None
    return value


def agent_view(rec: MemoryRecord) -> dict[str, Any]:
    """The memory as an agent sees it (no vector; status and chain kept)."""
    if rec.status is Status.DELETED:
        raise NotFoundError(f"No memory with id {rec.id!r}")
    if rec.status is Status.QUARANTINED:
        raise HeldForReview(f"Memory {rec.id} is held for an operator's review; it cannot "
                            "be read until it is approved")
    full = rec.to_json()
    out = {k: full[k] for k in AGENT_FIELDS}
    out["status"] = rec.status.value
    return out


def agent_filter(
    user_id: str, *, text: str = "", types: Sequence[str] = (), topics: Sequence[str] = (),
    layers: Sequence[str] = (), status: str = "active",
    importance: tuple[float, float] | None = None,
    confidence: tuple[float, float] | None = None,
    entity: str | None = None, attribute: str | None = None,
    agent_id: str | None = None, run_id: str | None = None,
) -> MemoryFilter:
    """A browse filter an agent may run: one user, belief statuses only."""
    if status not in AGENT_STATUSES:
        raise ValidationError("status", f"must be one of {', '.join(AGENT_STATUSES)}")
    for name, rng in (("importance", importance), ("confidence", confidence)):
        if rng is not None and rng[0] > rng[1]:
            raise ValidationError(name, f"minimum {rng[0]} is above maximum {rng[1]}")
    for name, v in (("user_id", user_id), ("text", text), ("entity", entity),
                    ("attribute", attribute), ("agent_id", agent_id), ("run_id", run_id),
                    *(("topics", t) for t in topics)):
        check_agent_text(name, v)
    if not user_id.strip():
        raise ValidationError("user_id", "must not be empty")
    return MemoryFilter(
        text=text, user_ids=(user_id,), types=tuple(types), topics=tuple(topics),
        layers=tuple(layers), statuses=AGENT_STATUSES[status], importance=importance,
        confidence=confidence, entity=entity, attribute=attribute,
        agent_ids=(agent_id,) if agent_id else (), run_ids=(run_id,) if run_id else (),
    )
