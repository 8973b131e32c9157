"""Stored recall checks: the ``recall_checks`` rows, their audited add and removal, the
undo of both (the ``check`` stream's handler) and the latest run's verdict.

A check is a user, a query and the memory ids the agents' default retrieval must
return (``expect``) and must not (``expect_not``).  Running one is the read path's
(``memdesk.core.read.checks``); what is kept here is what the store must keep, low
enough that the import (``memdesk.core.transfer``), the read path and the undo
registry can all use it.

Audit: an add writes one ``check`` row (``target`` = the check's id, ``after`` = its
fields); a removal writes ``{"removed": false}`` → ``{"removed": true}`` and keeps the
row (``removed_at``), so undo brings it back.  Undo of an add removes the check; undo
of a removal restores it; each refuses when the check was removed or restored again
since, as a memory's undo refuses a field changed again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Table, insert, select, update

from memdesk.core import taxonomy as tx
from memdesk.core.errors import MemdeskError, NotFoundError, UndoConflictError, ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store import audit
from memdesk.core.store.models import RecallCheck
from memdesk.core.store.prefixes import resolve_id
from memdesk.core.store.records import Changes, EventRecord

if TYPE_CHECKING:
    from memdesk.core.store.records import AnyRow

CT = cast(Table, RecallCheck.__table__)
C = CT.c

# The retriever refuses longer queries (memdesk.core.read.terms.MAX_QUERY_CHARS); a
# check is refused at the door rather than failing at every run.
MAX_QUERY_CHARS = 10_000
MAX_IDS = 100  # per list: a check names what one top-k can hold, and some more
MAX_ID_CHARS = 64  # the memories.id column


class CheckStateError(MemdeskError):
    """The check's state refuses the action (already removed); nothing changed."""


@dataclass(frozen=True)
class CheckRecord:
    """One stored check, with its latest run's verdict (None: never run)."""

    id: str
    user_id: str
    query: str
    expect: tuple[str, ...]
    expect_not: tuple[str, ...]
    note: str | None
    created_at: datetime
    created_by: str
    removed_at: datetime | None = None
    last_run_at: datetime | None = None
    last_passed: bool | None = None
    last_result: dict[str, Any] | None = None

    @property
    def removed(self) -> bool:
        return self.removed_at is not None

    def definition(self) -> dict[str, Any]:
        """What defines the check (what an export writes and an import reads back)."""
        return {"id": self.id, "user_id": self.user_id, "query": self.query,
                "expect": list(self.expect), "expect_not": list(self.expect_not),
                "note": self.note, "created_at": self.created_at,
                "created_by": self.created_by}

    def to_json(self) -> dict[str, Any]:
        out = self.definition()
        out["created_at"] = self.created_at.isoformat()
        out["removed_at"] = self.removed_at.isoformat() if self.removed_at else None
        out["last_run_at"] = self.last_run_at.isoformat() if self.last_run_at else None
        out["last_passed"] = self.last_passed
        return out


@dataclass(frozen=True)
class CheckValues:
    """A check's definition, checked: what ``add_in`` writes."""

    user_id: str
    query: str
    expect: tuple[str, ...]
    expect_not: tuple[str, ...]
    note: str | None = None


def _ids(name: str, values: Iterable[object] | None) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str | bytes):
        raise ValidationError(name, "must be a list of memory ids, not one string")
    out: list[str] = []
    for v in values:
        if not isinstance(v, str):
            raise ValidationError(name, f"memory ids are text, got {type(v).__name__}")
        v = v.strip()
        if not v:
            raise ValidationError(name, "an empty memory id")
        tx.check_optional_str(name, v, MAX_ID_CHARS)
        if any(not ch.isprintable() for ch in v):
            raise ValidationError(name, f"the memory id {v!r} holds a control character")
        out.append(v)
    out = list(dict.fromkeys(out))
    if len(out) > MAX_IDS:
        raise ValidationError(name, f"names {len(out)} memories; the limit is {MAX_IDS}")
    return tuple(out)


def check_values(user_id: object, query: object, expect: Iterable[object] | None,
                 expect_not: Iterable[object] | None = None,
                 note: object = None) -> CheckValues:
    """A check's definition validated: a user, a query the retriever takes, at least one
    expected id, and no id both expected and forbidden.  ValidationError otherwise."""
    user = tx.check_optional_str("user_id", user_id, 200)
    if not user:
        raise ValidationError("user_id", "a check needs the user whose memories it asks")
    if not isinstance(query, str):
        raise ValidationError("query", f"must be text, got {type(query).__name__}")
    q = tx.check_optional_str("query", query, MAX_QUERY_CHARS)
    if not q:
        raise ValidationError("query", "is empty")
    want, avoid = _ids("expect", expect), _ids("expect_not", expect_not)
    if not want:
        raise ValidationError("expect", "a check needs at least one memory it must return")
    both = sorted(set(want) & set(avoid))
    if both:
        raise ValidationError("expect_not", f"{both[0]} is both expected and forbidden")
    text = tx.check_optional_str("note", note, 2000)
    return CheckValues(user, q.strip(), want, avoid, text)


def _record(row: AnyRow) -> CheckRecord:
    m = row._mapping
    last = m["last_result"]
    return CheckRecord(
        id=m["id"], user_id=m["user_id"], query=m["query"],
        expect=tuple(json.loads(m["expect"])), expect_not=tuple(json.loads(m["expect_not"])),
        note=m["note"], created_at=m["created_at"], created_by=m["created_by"],
        removed_at=m["removed_at"], last_run_at=m["last_run_at"],
        last_passed=None if m["last_passed"] is None else bool(m["last_passed"]),
        last_result=json.loads(last) if last else None)


def exists_in(conn: Connection, check_id: str) -> bool:
    return conn.execute(select(C.id).where(C.id == check_id)).first() is not None


def get_in(conn: Connection, ref: str) -> CheckRecord:
    """The check with this id or unique id prefix (NotFoundError, AmbiguousIdError)."""
    check_id = resolve_id(conn, C.id, ref, "recall check")
    row = conn.execute(select(CT).where(C.id == check_id)).first()
    assert row is not None  # resolve_id found it in this transaction
    return _record(row)


def list_in(conn: Connection, *, include_removed: bool = False,
            user_ids: Sequence[str] | None = None) -> list[CheckRecord]:
    """Checks in the order they were added (removed ones only when asked)."""
    stmt = select(CT).order_by(C.created_at, C.id)
    if not include_removed:
        stmt = stmt.where(C.removed_at.is_(None))
    if user_ids is not None:
        stmt = stmt.where(C.user_id.in_(list(user_ids)))
    return [_record(r) for r in conn.execute(stmt)]


def add_in(conn: Connection, values: CheckValues, *, actor: str = "operator",
           group_id: str | None = None, check_id: str | None = None,
           created_at: datetime | None = None, created_by: str | None = None,
           note: str | None = None) -> tuple[CheckRecord, int]:
    """Insert one check and its audit row in ``conn``'s transaction; (check, event id).
    ``check_id``/``created_*``: an import keeps the exported check's own."""
    actor = str(tx.Actor(actor))
    check_id = check_id or new_id()
    if len(check_id) > MAX_ID_CHARS or not check_id.strip():
        raise ValidationError("id", f"a check id is 1-{MAX_ID_CHARS} characters")
    if exists_in(conn, check_id):
        raise CheckStateError(f"A recall check {check_id} is already in the store.")
    row = {"id": check_id, "user_id": values.user_id, "query": values.query,
           "expect": json.dumps(list(values.expect)),
           "expect_not": json.dumps(list(values.expect_not)), "note": values.note,
           "created_at": created_at or utcnow(), "created_by": created_by or actor}
    conn.execute(insert(CT).values(**row))
    after = {"user_id": values.user_id, "query": values.query,
             "expect": list(values.expect), "expect_not": list(values.expect_not),
             "removed": False}
    ev = audit.log_in(conn, None, actor, acts.CHECK_ADD.name, {}, after, group_id=group_id,
                      note=note or f"recall check for {values.user_id}",
                      stream=acts.Stream.CHECK, target=check_id)
    return get_in(conn, check_id), ev


def remove_in(conn: Connection, ref: str, *, actor: str = "operator",
              group_id: str | None = None) -> tuple[CheckRecord, int]:
    """Remove one check (the row stays, for undo); (check as it was, event id)."""
    rec = get_in(conn, ref)
    if rec.removed:
        raise CheckStateError(f"The recall check {rec.id[:8]} is already removed.")
    conn.execute(update(CT).where(C.id == rec.id).values(removed_at=utcnow()))
    ev = audit.log_in(conn, None, str(tx.Actor(actor)), acts.CHECK_REMOVE.name,
                      {"removed": False}, {"removed": True}, group_id=group_id,
                      note=f"recall check for {rec.user_id}", stream=acts.Stream.CHECK,
                      target=rec.id)
    return rec, ev


def changes_of(action: acts.Action, events: Sequence[int], group_id: str | None) -> Changes:
    return Changes(event_ids=tuple(events), group_id=group_id, kinds=action.kinds,
                   action=action)


def record_results_in(conn: Connection,
                      verdicts: Iterable[tuple[str, bool, dict[str, Any]]],
                      at: datetime) -> None:
    """Keep each check's latest verdict (not audited: derived from a run, as the
    retrieval log is)."""
    for check_id, passed, result in verdicts:
        conn.execute(update(CT).where(C.id == check_id).values(
            last_run_at=at, last_passed=passed,
            last_result=json.dumps(result, ensure_ascii=False, sort_keys=True)))


def undo_check_event(store: Any, conn: Connection, ev: EventRecord, actor: str,
                     group_id: str | None) -> int:
    """The check stream's undo handler (bound in ``memdesk.core.undo.registry`` and, for
    an import's group, ``MemoryStore.undo_group``): an add is undone by removing the
    check, a removal by restoring it, an undo by doing its action again."""
    if ev.undone_by is not None:
        raise UndoConflictError(f"Action {ev.id} was already undone.")
    check_id = str(ev.target)
    row = conn.execute(select(C.removed_at).where(C.id == check_id)).first()
    if row is None:
        raise NotFoundError(f"No recall check {check_id!r}")
    removed_now = row.removed_at is not None
    if ev.action == acts.CHECK_ADD.name:
        goal, expected = True, False
    else:
        goal, expected = bool(ev.before.get("removed")), bool(ev.after.get("removed"))
    if removed_now != expected:
        raise UndoConflictError(
            f"Cannot undo action {ev.id}: the recall check {check_id[:8]} was "
            f"{'removed' if removed_now else 'restored'} again since. Undo the later "
            "change first.")
    conn.execute(update(CT).where(C.id == check_id).values(
        removed_at=utcnow() if goal else None))
    new_ev = audit.log_in(conn, None, actor, acts.UNDO_CHECK.name, {"removed": removed_now},
                          {"removed": goal}, group_id=group_id, undoes=ev.id,
                          note=f"recall check {'removed' if goal else 'restored'}",
                          stream=acts.Stream.CHECK, target=check_id)
    # Compare-and-set, as for a memory: of two racing undos the second rolls back.
    if conn.execute(update(audit.ET).where(audit.E.id == ev.id, audit.E.undone_by.is_(None))
                    .values(undone_by=new_ev)).rowcount != 1:
        raise UndoConflictError(f"Action {ev.id} was already undone.")
    return new_ev
