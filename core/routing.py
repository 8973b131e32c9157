"""The memory router (the memory-types decision record): which layer a memory belongs to.

One table decides by type: how a memory is *used* at read time follows from what kind of
thing it is.  Preferences and procedures describe how the user does things, so they are
procedural (always injected, not only found by similarity); facts are semantic ("what I
know"); decisions, corrections, errors, notes and reasoning are things that happened,
so episodic.  docs/write-path.md shows the same table.

``working`` is never a routing result for a stored memory: working memory is the
current session's context and is kept in process memory only
(:mod:`memdesk.core.write.working`).  :func:`is_session_scoped` spots extracted units
that only matter inside the current conversation ("for this task", "for now").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from memdesk.core.errors import ValidationError
from memdesk.core.taxonomy import Layer, MemoryType

ROUTES: Mapping[str, Layer] = {
    MemoryType.PREFERENCE: Layer.PROCEDURAL,
    MemoryType.PROCEDURE: Layer.PROCEDURAL,
    MemoryType.FACT: Layer.SEMANTIC,
    MemoryType.DECISION: Layer.EPISODIC,
    MemoryType.CORRECTION: Layer.EPISODIC,
    MemoryType.ERROR: Layer.EPISODIC,
    MemoryType.NOTE: Layer.EPISODIC,
    MemoryType.REASONING: Layer.EPISODIC,
    MemoryType.EPISODE: Layer.EPISODIC,
}

# Phrases that scope a statement to the conversation at hand (the write-phase design: "We decided to
# use Python for this task" is working memory, not cross-session belief state).
SESSION_SCOPE = re.compile(
    r"\b(?:for (?:this|the current) (?:task|session|conversation|chat|ticket|script|call)"
    r"|for now|in this (?:session|conversation|chat)|right now|for the moment"
    r"|just this once|for today)\b",
    re.IGNORECASE,
)

WORKING_NOT_STORED = (
    "working memory is session context and is never stored; "
    "give a stored layer (episodic, semantic, procedural) or leave the layer empty"
)


def route(memory_type: str) -> Layer:
    """The stored layer for a memory of ``memory_type`` (already validated)."""
    return ROUTES[MemoryType(memory_type)]


def is_session_scoped(text: str) -> bool:
    """True when ``text`` says it only holds for the current session or task."""
    return SESSION_SCOPE.search(text) is not None


def route_values(values: dict[str, Any]) -> dict[str, Any]:
    """The hook every insert goes through (``MemoryStore.add``/``add_many``).

    Fills an empty layer from the routing table and refuses ``working``: such a row
    would outlive its session, which is exactly what working memory must not do.
    ``values`` has been validated (type is a known type, layer a known layer or None).
    """
    layer = values.get("layer")
    if layer == Layer.WORKING:
        raise ValidationError("layer", WORKING_NOT_STORED)
    if not layer:
        values["layer"] = route(values["type"]).value
    return values
