"""Writing episodes: every turn the write path takes is kept as said.

The extractor keeps what it can type (facts, preferences, decisions…); what it does not
recognise would otherwise leave nothing, and "what happened, and when" is the episodic
layer's job (the memory-types decision record: "conversation turns, events, decisions").
So the worker writes the turn itself as an episode in the job's transaction, before its
units, and each unit names it (``memory_provenance.episode_id``).

- The episode passes the poisoning guard like the units: a held turn is no episode
  until the operator approves it (it is stored quarantined, as a held unit is).
- An identical turn (same user, session, speaker and text) is stored once: an agent
  that retries ``store_memory`` gets the first episode back, and its units link to it.
- Importance is low and fixed (a turn is evidence, not a judgement); the operator's
  sweeps and the decay's own half-life for episodes (core/read/config.py) do the rest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import date, datetime, time
from typing import Any

from sqlalchemy import Connection, insert, select, update

from memdesk.core.store.episodes import EPISODE_TYPE, ET
from memdesk.core.store.episodes import E as EC
from memdesk.core.store.models import Memory
from memdesk.core.store.validation import validate_fields
from memdesk.core.taxonomy import Layer
from memdesk.core.write.units import Turn
from memdesk.core.write.when import EventDate

M = Memory.__table__.c
# The provenance of an episode: not extracted, kept as said (the detail pane's
# "Extracted by", and how the guard finds which agent's job a held turn came from).
VERBATIM = "verbatim"
EPISODE_IMPORTANCE = 0.3
# A turn is certainly what was said; whether it is true is another matter, which is why
# the units extracted from it carry their own confidence.
EPISODE_CONFIDENCE = 0.9


# (text, said_at) -> when what the turn tells of happened, or None and why not
# (core/write/when.py's ``episode_dates``).
DateResolver = Callable[[str, datetime | None], tuple[EventDate | None, str | None]]


def no_dates(text: str, said_at: datetime | None) -> tuple[EventDate | None, str | None]:
    """A resolver that reads no time: the episode keeps its session time only."""
    return None, None


def _day(d: date | None) -> datetime | None:
    return None if d is None else datetime.combine(d, time())


def dedup_key(turn: Turn) -> str:
    """The identity of a turn: user, session, speaker and the exact text."""
    parts = (turn.user_id, turn.session_id or "", turn.speaker or "", turn.text)
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def episode_values(turn: Turn, blob: bytes | None = None) -> dict[str, Any]:
    """The ``memories`` row of ``turn``'s episode (validated; a new id)."""
    values = validate_fields({
        "user_id": turn.user_id, "text": turn.text, "type": EPISODE_TYPE,
        "layer": Layer.EPISODIC.value, "topic": turn.topic,
        "source_session": turn.session_id,
        **({"agent_id": turn.agent_id} if turn.agent_id else {}),
        **({"run_id": turn.run_id} if turn.run_id else {}),
        "importance": EPISODE_IMPORTANCE, "confidence": EPISODE_CONFIDENCE,
    }, creating=True)
    values["embedding"] = blob
    return values


def existing_episode_in(conn: Connection, turn: Turn) -> str | None:
    """The stored, not deleted episode of an identical turn, if there is one.

    A deleted one gives up its key, so the operator's delete is not undone by an agent
    saying the same thing again: the new turn gets a new episode."""
    key = dedup_key(turn)
    row = conn.execute(select(EC.memory_id, M.deleted_at)
                       .join(Memory.__table__, M.id == EC.memory_id)
                       .where(EC.dedup_key == key)).first()
    if row is None:
        return None
    if row.deleted_at is not None:
        conn.execute(update(ET).where(EC.memory_id == row.memory_id).values(dedup_key=None))
        return None
    return str(row.memory_id)


def record_episode_in(conn: Connection, memory_id: str, turn: Turn, job_id: str | None,
                      event: EventDate | None, date_note: str | None) -> None:
    """The side row of a just-inserted episode memory."""
    conn.execute(insert(ET).values(
        memory_id=memory_id, user_id=turn.user_id, session_id=turn.session_id,
        speaker=turn.speaker, said_at=turn.said_at,
        event_start=_day(event.start) if event else None,
        event_end=_day(event.end) if event else None,
        event_granularity=event.granularity if event else None,
        event_phrase=event.phrase if event else None,
        date_note=(event.note if event and event.note else date_note),
        dedup_key=dedup_key(turn), job_id=job_id,
    ))
