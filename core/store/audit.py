"""The memory audit log (``memory_events``) and undo of its events.

Every change to a memory appends one event holding exactly the fields it changed,
before and after, in the same transaction as the change.  Undo replays an event's
``before`` values as a new event (so an undo is itself undoable: redo is undoing the
undo) and refuses when those fields were changed again since: no silent clobbering.

These are building blocks that run inside a caller's write transaction; the store and
the curation services compose them, and ``memdesk.core.undo.generic`` undoes whole groups.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Table, insert, select, update

from memdesk.core import taxonomy as tx
from memdesk.core.errors import NotFoundError, UndoConflictError
from memdesk.core.ids import utcnow
from memdesk.core.store.actions import ADD, STORE_WIDE, UNDO, Stream, home_of
from memdesk.core.store.models import MemoryEvent
from memdesk.core.store.records import EventRecord, MemoryRecord, decode_values, encode_values

if TYPE_CHECKING:
    from memdesk.core.store.records import AnyRow

# Declarative types __table__ as a FromClause; these models map plain Tables.
ET = cast(Table, MemoryEvent.__table__)
E = ET.c

# Applies ``values`` to one memory and logs the change; returns the new event id.
Apply = Callable[..., "int | None"]


def event_record(row: AnyRow) -> EventRecord:
    m = row._mapping
    return EventRecord(
        id=m["id"], memory_id=m["memory_id"], actor=m["actor"], action=m["action"],
        before=decode_values(m["before"]), after=decode_values(m["after"]), at=m["at"],
        group_id=m["group_id"], undoes=m["undoes"], undone_by=m["undone_by"], note=m["note"],
        stream=m["stream"], target=m["target"],
    )


def log_in(
    conn: Connection, memory_id: str | None, actor: str, action: str,
    before: dict[str, Any], after: dict[str, Any], *,
    group_id: str | None = None, undoes: int | None = None, note: str | None = None,
    stream: str = Stream.MEMORY, target: str | None = None,
) -> int:
    """Append one audit row in ``conn``'s transaction; returns its event id.

    ``memory_id`` names the memory of a memory row; a job's or a store-wide row passes
    None and its ``stream`` (and, for a job, ``target``).  The old store-wide sentinel
    ``"*"`` is still taken from callers and filed where it belongs."""
    memory_id, stream, target = home_of(memory_id, stream, target, before, after)
    result = conn.execute(insert(ET).values(
        memory_id=memory_id, actor=str(tx.Actor(actor)), action=action,
        before=encode_values(before), after=encode_values(after), at=utcnow(),
        group_id=group_id, undoes=undoes, note=note, stream=str(stream), target=target,
    ))
    key = result.inserted_primary_key
    assert key is not None  # a single-row insert always reports its key
    return int(key[0])


def events(conn: Connection, memory_id: str | None = None, limit: int = 500
           ) -> list[EventRecord]:
    """Newest first, optionally of one memory (``"*"``: the rows about no memory)."""
    stmt = select(ET).order_by(E.id.desc()).limit(limit)
    if memory_id == STORE_WIDE:
        stmt = stmt.where(E.memory_id.is_(None))
    elif memory_id is not None:
        stmt = stmt.where(E.memory_id == memory_id)
    return [event_record(r) for r in conn.execute(stmt)]


def event(conn: Connection, event_id: int) -> EventRecord:
    row = conn.execute(select(ET).where(E.id == event_id)).first()
    if row is None:
        raise NotFoundError(f"No event with id {event_id}")
    return event_record(row)


def group_events(conn: Connection, group_id: str) -> list[EventRecord]:
    """The events of one action group, oldest first."""
    rows = conn.execute(select(ET).where(E.group_id == group_id).order_by(E.id)).all()
    return [event_record(r) for r in rows]


def is_undone(conn: Connection, undone_by: int | None) -> bool:
    """Whether an event with this ``undone_by`` is undone now.  Undo, redo (the undo
    undone), undo again… alternate along the chain of undo events."""
    undone = False
    seen: set[int] = set()
    # A chain that comes back to an event (raw SQL from another tool) ends the walk.
    while undone_by is not None and undone_by not in seen:
        seen.add(undone_by)
        undone = not undone
        undone_by = conn.execute(select(E.undone_by).where(E.id == undone_by)).scalar()
    return undone


def undo_in(
    conn: Connection, event_id: int, actor: str, group_id: str | None, *,
    current: Callable[[str], MemoryRecord], apply: Apply,
) -> int:
    """Undo one event inside ``conn``'s transaction; returns the new undo event's id.

    ``current`` reads a memory and ``apply`` writes audited field values (the store's
    ``get``/``apply_in`` bound to ``conn``): passed in so this module needs no store.
    """
    ev = event(conn, event_id)
    if ev.undone_by is not None:
        raise UndoConflictError(f"Action {event_id} was already undone.")
    if ev.memory_id is None:  # a job's or a store-wide row: as the store's get reports it
        raise NotFoundError(f"No memory with id {ev.memory_id!r}")
    now = current(ev.memory_id)
    if ev.action == ADD.name:
        target: dict[str, Any] = {"deleted_at": utcnow()}  # never hard-delete: hide it
        expect: dict[str, Any] = {"deleted_at": None}
    else:
        target, expect = ev.before, ev.after
    for k, v in expect.items():
        if getattr(now, k) != v:
            raise UndoConflictError(
                f"Cannot undo action {event_id} on memory {ev.memory_id}: its {k} "
                "was changed again since. Undo the later change first."
            )
    new_ev = apply(ev.memory_id, target, actor=actor, action=UNDO, undoes=event_id,
                   group_id=group_id)
    assert new_ev is not None  # undoes= always logs, even when nothing changed
    # Compare-and-set: of two undos of one event racing on PostgreSQL, the second
    # finds it undone here and rolls back instead of undoing it twice.
    if conn.execute(update(ET).where(E.id == event_id, E.undone_by.is_(None))
                    .values(undone_by=new_ev)).rowcount != 1:
        raise UndoConflictError(f"Action {event_id} was already undone.")
    return new_ev
