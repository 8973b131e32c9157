"""Audit log and undo for delta-memory curation (source config edits, review actions).

Every change is a group of ``delta_events`` rows written in the same transaction as
the change.  Undo restores each row's ``before`` values, newest first, as a new group
(itself undoable), and refuses when a field was changed again since — the same rule
MemoryStore.undo follows for memories.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, insert, select, update

from memdesk.core.delta.models import DeltaEvent, DeltaSource, MemoryDiffRow
from memdesk.core.errors import NotFoundError, UndoConflictError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store.actions import UNDO_DELTA, GroupUndone, declared_delta
from memdesk.core.store.records import Changed, encode_values

# Declarative types __table__ as a FromClause; these models map plain Tables.
EV = cast(Table, DeltaEvent.__table__)
SRC = cast(Table, DeltaSource.__table__)
DIFF = cast(Table, MemoryDiffRow.__table__)

SOURCE_FIELDS = ("source_type", "weight", "enabled", "top_k", "confidence_threshold")
REVIEW_FIELDS = ("review", "review_note", "reviewed_at")


@dataclass(frozen=True)
class DeltaEventRecord:
    id: int
    kind: str
    target: str
    action: str
    before: dict[str, Any]
    after: dict[str, Any]
    at: datetime
    actor: str
    group_id: str
    undoes: str | None
    undone_by: str | None
    note: str | None


def _dec(raw: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(raw or "{}")
    if isinstance(data.get("reviewed_at"), str):
        data["reviewed_at"] = datetime.fromisoformat(data["reviewed_at"])
    return data


def log(conn: Connection, kind: str, target: str, action: str, before: dict[str, Any],
        after: dict[str, Any], group_id: str, *, actor: str = "operator",
        note: str | None = None, undoes: str | None = None) -> None:
    conn.execute(insert(EV).values(
        kind=kind, target=target, action=action,
        before=encode_values(before), after=encode_values(after),
        at=utcnow(), actor=actor, group_id=group_id, undoes=undoes, note=note,
    ))


def _current(conn: Connection, kind: str, target: str, keys: list[str]) -> dict[str, Any]:
    if kind == "source":
        row = conn.execute(select(SRC).where(SRC.c.name == target)).first()
    else:
        row = conn.execute(select(DIFF).where(DIFF.c.id == int(target))).first()
    if row is None:
        raise NotFoundError(f"No {kind} {target!r}")
    return {k: row._mapping[k] for k in keys}


def apply(conn: Connection, kind: str, target: str, values: dict[str, Any]) -> None:
    if kind == "source":
        conn.execute(update(SRC).where(SRC.c.name == target).values(**values, updated_at=utcnow()))
    else:
        conn.execute(update(DIFF).where(DIFF.c.id == int(target)).values(**values))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return abs(float(a) - float(b)) < 1e-12
        except (TypeError, ValueError):
            return False
    return bool(a == b)


def undo_group(conn: Connection, group_id: str, *, actor: str = "operator",
               redo: str | None = None) -> str:
    """Undo one group inside ``conn``'s transaction; returns the new (redo) group id
    (``redo`` when given: the generic undo shares one id with the memory events)."""
    rows = conn.execute(
        select(EV).where(EV.c.group_id == group_id).order_by(EV.c.id.desc())
    ).all()
    if not rows:
        raise NotFoundError(f"No delta-memory action {group_id!r}")
    if any(r.undone_by for r in rows):
        raise UndoConflictError("That action was already undone.")
    redo = redo or new_id()
    for r in rows:
        before, after = _dec(r.before), _dec(r.after)
        now = _current(conn, r.kind, r.target, list(after))
        for k, v in after.items():
            if not _same(now[k], v):
                raise UndoConflictError(
                    f"Cannot undo: {r.kind} {r.target}'s {k} was changed again since. "
                    "Undo the later change first."
                )
        apply(conn, r.kind, r.target, before)
        log(conn, r.kind, r.target, UNDO_DELTA.name, after, before, redo, actor=actor,
            undoes=group_id)
    conn.execute(update(EV).where(EV.c.group_id == group_id).values(undone_by=redo))
    return redo


# What a row's target is, as a change kind: a source's configuration or a diff's review.
TARGET_KINDS = {"source": Changed.SOURCES, "review": Changed.REVIEWS}


def undo_group_in(conn: Connection, group_id: str, actor: str,
                  redo: str) -> GroupUndone | None:
    """The delta stream's handler for the generic undo (``memdesk.core.undo.registry``): undo
    this group's ``delta_events`` rows as group ``redo``; None when it has none."""
    rows = conn.execute(
        select(EV.c.kind, EV.c.target, EV.c.action).where(EV.c.group_id == group_id)
    ).all()
    if not rows:
        return None
    undo_group(conn, group_id, actor=actor, redo=redo)
    kinds = Changed.NOTHING
    sources: list[str] = []
    diff_ids: list[int] = []
    for kind, target, action in rows:
        kinds |= TARGET_KINDS.get(kind, Changed.NOTHING)
        declared_delta(action)  # every stored name resolves (old ones to an edit)
        if kind == "source":
            sources.append(target)
        elif kind == "review":
            diff_ids.append(int(target))
    return GroupUndone(kinds, tuple(dict.fromkeys(sources)), tuple(dict.fromkeys(diff_ids)))


def events(conn: Connection, *, kind: str | None = None, target: str | None = None,
           limit: int = 200) -> list[DeltaEventRecord]:
    stmt = select(EV).order_by(EV.c.id.desc()).limit(limit)
    if kind is not None:
        stmt = stmt.where(EV.c.kind == kind)
    if target is not None:
        stmt = stmt.where(EV.c.target == target)
    return [
        DeltaEventRecord(r.id, r.kind, r.target, r.action, _dec(r.before), _dec(r.after), r.at,
                         r.actor, r.group_id, r.undoes, r.undone_by, r.note)
        for r in conn.execute(stmt)
    ]
