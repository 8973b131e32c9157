"""Undo of ``memory_events`` groups, dispatched through the action registry.

A group's rows are undone newest first, each by the handler of its declared stream
(``memdesk.core.store.actions``): the store's own for memory rows, and whatever the
caller passes for the others.  ``MemoryStore.undo_group`` passes only the memory
handler (an import, a sweep decision, a resolution: all memory rows); the generic undo
across every stream, ``memdesk.core.undo.generic``, passes all of them
(``memdesk.core.undo.registry`` binds them).  Nothing here knows an action by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import Connection, select

from memdesk.core.errors import ValidationError
from memdesk.core.store import audit
from memdesk.core.store.actions import ADD, Action, EventUndo, Stream, declared
from memdesk.core.store.recall_checks import undo_check_event
from memdesk.core.store.records import Changed, EventRecord

if TYPE_CHECKING:  # the store imports this module
    from memdesk.core.store.memory_store import MemoryStore


def undo_memory_event_in(store: MemoryStore, conn: Connection, ev: EventRecord, actor: str,
                         group_id: str | None) -> int:
    """The memory stream's handler: restore the fields the event changed."""
    return store.undo_in(conn, ev.id, actor, group_id)


def root_action(conn: Connection, ev: EventRecord) -> Action:
    """The action an undo chain started from (an undo of an undo of a revalue: revalue):
    what it touched is what its undo touches."""
    seen = 0
    while ev.undoes is not None and seen < 1000:
        ev = audit.event(conn, ev.undoes)
        seen += 1
    return declared(ev)


def event_kinds(conn: Connection, ev: EventRecord) -> Changed:
    """The kinds undoing ``ev`` changes.  Memory rows change only when the event set
    fields (a keep decision or a keep-both row sets none), so MEMORIES comes from the
    row, the rest from the declared action."""
    root = root_action(conn, ev)
    kinds = Changed.HISTORY | (root.kinds & ~Changed.MEMORIES)
    if declared(ev).stream is Stream.MEMORY and (ev.after or root is ADD):
        kinds |= Changed.MEMORIES
    return kinds


@dataclass
class EventsUndone:
    """What undoing the ``memory_events`` rows of one group did."""

    kinds: Changed = Changed.NOTHING
    memory_ids: list[str] = field(default_factory=list)
    event_ids: list[int] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.event_ids)


def undo_events_in(store: MemoryStore, conn: Connection, group_id: str, actor: str, redo: str,
                   handlers: Mapping[Stream, EventUndo]) -> EventsUndone:
    """Undo every ``memory_events`` row of ``group_id`` (newest first) as group ``redo``."""
    out = EventsUndone()
    rows = conn.execute(
        select(audit.E.id).where(audit.E.group_id == group_id).order_by(audit.E.id.desc())
    ).scalars().all()
    for event_id in rows:
        ev = audit.event(conn, event_id)
        action = declared(ev)
        handler = handlers.get(action.stream) if action.undoable else None
        if handler is None:  # a store-wide record, or another stream's row
            raise ValidationError(
                "group", f"event {ev.id} ({action.verb}) cannot be undone here")
        out.kinds |= event_kinds(conn, ev)
        out.event_ids.append(handler(store, conn, ev, actor, redo))
        if action.stream is Stream.MEMORY:
            assert ev.memory_id is not None  # its handler found the memory to undo it
            out.memory_ids.append(ev.memory_id)
    return out


# An import's group holds the recall checks it brought besides its memories (both are
# the store's own rows), so `memdesk import --undo GROUP` takes both back.
MEMORY_HANDLERS: Mapping[Stream, EventUndo] = {Stream.MEMORY: undo_memory_event_in,
                                               Stream.CHECK: undo_check_event}
