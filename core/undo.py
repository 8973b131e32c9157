"""The one generic undo: of an action group, whatever made it.

Every undoable action writes its audit rows under one group id, in ``memory_events``
(edits, sweep decisions, contradiction resolutions) or ``delta_events`` (delta-memory
source edits and drift reviews).  ``undo_group`` restores all of them, newest first, in
one transaction, as a new group that is itself undoable (redo = undo the undo).
State that is derived from audit rows follows by itself: a sweep item whose decision
event is undone counts as undecided again, a "keep both" dismissal whose audit rows
are undone is lifted.

The returned ``Changes`` says which kinds of things changed, found from the action
that started each chain of undos (``undoes`` links), so the views that show them
refresh.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from memdesk.core.delta import audit as delta_audit
from memdesk.core.errors import MemdeskError, NotFoundError
from memdesk.core.ids import new_id
from memdesk.core.store import audit
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed, Changes
from memdesk.core.write import jobs

SWEEP_ACTIONS = frozenset({"revalue", "review_keep", "review_skip"})
DELTA_KINDS = {"source": Changed.SOURCES, "review": Changed.REVIEWS}


def _root_action(conn: Connection, ev: audit.EventRecord) -> str:
    """The action an undo chain started from (an undo of an undo of a revalue: revalue)."""
    seen = 0
    while ev.action == "undo" and ev.undoes is not None and seen < 1000:
        ev = audit.event(conn, ev.undoes)
        seen += 1
    return ev.action


def _kind_of(action: str) -> Changed:
    if action in SWEEP_ACTIONS:
        return Changed.SWEEPS
    if action.startswith("resolve"):
        return Changed.CONTRADICTIONS
    if action == jobs.CANCEL_ACTION:
        return Changed.JOBS
    return Changed.NOTHING


def undo_group(store: MemoryStore, group_id: str, *, actor: str = "operator") -> Changes:
    """Undo every change of one action group; refuses (changing nothing) when any of
    them was changed again since or was already undone."""
    redo = new_id()
    kinds = Changed.NOTHING
    memory_ids: list[str] = []
    events: list[int] = []
    sources: list[str] = []
    diff_ids: list[int] = []
    with store.write() as conn:
        rows = conn.execute(
            select(audit.E.id).where(audit.E.group_id == group_id).order_by(audit.E.id.desc())
        ).scalars().all()
        for event_id in rows:
            ev = audit.event(conn, event_id)
            kinds |= Changed.HISTORY | _kind_of(_root_action(conn, ev))
            if jobs.is_job_event(ev):  # a job's status, not a memory's fields
                events.append(jobs.undo_job_event_in(conn, ev, actor, redo))
                continue
            if ev.after or ev.action == "add":
                kinds |= Changed.MEMORIES
            events.append(store.undo_in(conn, event_id, actor, redo))
            memory_ids.append(ev.memory_id)
        delta_rows = conn.execute(
            select(delta_audit.EV.c.kind, delta_audit.EV.c.target)
            .where(delta_audit.EV.c.group_id == group_id)
        ).all()
        if delta_rows:
            delta_audit.undo_group(conn, group_id, actor=actor, redo=redo)
            for kind, target in delta_rows:
                kinds |= DELTA_KINDS.get(kind, Changed.NOTHING)
                if kind == "source":
                    sources.append(target)
                elif kind == "review":
                    diff_ids.append(int(target))
        if not rows and not delta_rows:
            raise NotFoundError(f"No action group {group_id!r}")
    return Changes(tuple(dict.fromkeys(memory_ids)), tuple(events), redo, kinds,
                   tuple(dict.fromkeys(sources)), tuple(dict.fromkeys(diff_ids)))


def undo_event(store: MemoryStore, event_id: int, *, actor: str = "operator") -> Changes:
    """Undo one audited event (``memdesk undo EVENT``): a memory's, or a job's status."""
    with store.read() as conn:
        ev = audit.event(conn, event_id)
    if not jobs.is_job_event(ev):
        return store.undo(event_id, actor=actor)
    with store.write() as conn:
        new_ev = jobs.undo_job_event_in(conn, audit.event(conn, event_id), actor, None)
    return Changes(event_ids=(new_ev,), kinds=Changed.JOBS | Changed.HISTORY)


def undo_changes(store: MemoryStore, changes: Changes, *, actor: str = "operator") -> Changes:
    """Undo what one action did: its group, or its single event."""
    if changes.group_id is not None:
        return undo_group(store, changes.group_id, actor=actor)
    if len(changes.event_ids) != 1:
        raise MemdeskError("Nothing to undo: that action changed nothing.")
    return undo_event(store, changes.event_ids[0], actor=actor)

