"""The one generic undo: of an action group or one event, whatever stream wrote it.

Every undoable action writes its audit rows under one group id, in ``memory_events``
(memory and job streams) or ``delta_events`` (delta stream).  ``undo_group`` undoes all
of them, newest first, in one transaction, as a new group that is itself undoable
(redo = undo the undo).  Each row goes to the undo handler of its declared action's
stream, bound in ``memdesk.core.undo.registry``: nothing here knows an action by name, and
adding an action kind needs no edit here.  State derived from audit rows follows by
itself: a sweep item whose decision event is undone counts as undecided again, a
"keep both" dismissal whose audit rows are undone is lifted.

The returned ``Changes`` says which kinds of things changed, from the declared action
that started each chain of undos, so the views that show them refresh.
"""

from __future__ import annotations

from collections.abc import Sequence

from memdesk.core.errors import MemdeskError, NotFoundError, ValidationError
from memdesk.core.ids import new_id
from memdesk.core.store import actions as acts
from memdesk.core.store import audit
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed, Changes
from memdesk.core.store.undo import event_kinds, undo_events_in
from memdesk.core.undo.registry import EVENT_UNDO, GROUP_UNDO


def undo_group(store: MemoryStore, group_id: str, *, actor: str = "operator") -> Changes:
    """Undo every change of one action group; refuses (changing nothing) when any of
    them was changed again since or was already undone."""
    redo = new_id()
    kinds = Changed.NOTHING
    sources: list[str] = []
    diff_ids: list[int] = []
    with store.write() as conn:
        done = undo_events_in(store, conn, group_id, actor, redo, EVENT_UNDO)
        kinds |= done.kinds
        found = done.found
        for handler in GROUP_UNDO.values():
            other = handler(conn, group_id, actor, redo)
            if other is not None:
                found = True
                kinds |= other.kinds
                sources.extend(other.sources)
                diff_ids.extend(other.diff_ids)
        if not found:
            raise NotFoundError(f"No action group {group_id!r}")
    return Changes(tuple(dict.fromkeys(done.memory_ids)), tuple(done.event_ids), redo, kinds,
                   tuple(dict.fromkeys(sources)), tuple(dict.fromkeys(diff_ids)),
                   action=acts.UNDO)


def undo_groups(store: MemoryStore, group_ids: Sequence[str], *,
                actor: str = "operator") -> Changes:
    """Undo several action groups (in the order given: newest first) in one transaction,
    as one new group, so the whole of it is one step to redo (a finished sweep's
    decisions).  Refuses, changing nothing, as ``undo_group`` refuses any of them."""
    redo = new_id()
    kinds = Changed.NOTHING
    memory_ids: list[str] = []
    event_ids: list[int] = []
    with store.write() as conn:
        for gid in group_ids:
            done = undo_events_in(store, conn, gid, actor, redo, EVENT_UNDO)
            if not done.found:
                raise NotFoundError(f"No action group {gid!r}")
            kinds |= done.kinds
            memory_ids += done.memory_ids
            event_ids += done.event_ids
    return Changes(tuple(dict.fromkeys(memory_ids)), tuple(event_ids), redo, kinds,
                   action=acts.UNDO)


def undo_event(store: MemoryStore, event_id: int, *, actor: str = "operator") -> Changes:
    """Undo one audited event (``memdesk undo EVENT``) by its declared stream's handler."""
    with store.write() as conn:
        ev = audit.event(conn, event_id)
        action = acts.declared(ev)
        handler = EVENT_UNDO.get(action.stream) if action.undoable else None
        if handler is None:  # bad input (exit 2 in the CLI): nothing changed
            raise ValidationError(
                "event", f"{event_id} is a record in the store's history ({action.verb}), "
                "not an action that can be undone")
        kinds = event_kinds(conn, ev)
        new_ev = handler(store, conn, ev, actor, None)
    # A memory row always names its memory (the handler found it to undo it).
    memory_ids = ((ev.memory_id,) if action.stream is acts.Stream.MEMORY
                  and ev.memory_id is not None else ())
    return Changes(memory_ids, (new_ev,), None, kinds, action=acts.UNDO)


def undo_changes(store: MemoryStore, changes: Changes, *, actor: str = "operator") -> Changes:
    """Undo what one action did: its group, or its single event."""
    if changes.group_id is not None:
        return undo_group(store, changes.group_id, actor=actor)
    if len(changes.event_ids) != 1:
        raise MemdeskError("Nothing to undo: that action changed nothing.")
    return undo_event(store, changes.event_ids[0], actor=actor)
