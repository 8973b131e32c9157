"""MemoryStore: the service API over the memories table, with an audit log and undo.

Every mutation runs in one write transaction (BEGIN IMMEDIATE on SQLite) that also
appends a row to ``memory_events`` holding exactly the fields it changed, before and
after.  Undo replays an event's ``before`` values as a new, itself undoable, event;
it refuses when those fields were changed again since (no silent clobbering).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, select, update
from sqlalchemy.exc import DatabaseError, OperationalError

from memdesk.core import taxonomy as tx
from memdesk.core.errors import NotFoundError, UndoConflictError, ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store.db import writer
from memdesk.core.store.models import EDITABLE_FIELDS, Memory, MemoryEvent
from memdesk.core.store.query import (
    SORTABLE,
    MemoryFilter,
    Status,
    active_belief_state,
    status_expression,
)
from memdesk.core.store.records import (
    RECORD_COLUMNS,
    Changes,
    EventRecord,
    MemoryRecord,
    decode_values,
    encode_values,
)
from memdesk.core.store.schema import OpenReport, open_engine, translate
from memdesk.core.write.router import route_values  # every insert gets a layer (issue 8)

MT = Memory.__table__
ET = MemoryEvent.__table__
M = MT.c
E = ET.c


def _as_naive_utc(field: str, value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ValidationError(field, f"not an ISO-8601 time: {value!r}") from None
    if not isinstance(value, datetime):
        raise ValidationError(field, f"must be a time, got {type(value).__name__}")
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def validate_fields(values: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    """Check and normalise field values; raises ValidationError naming the field."""
    out: dict[str, Any] = {}
    for key, val in values.items():
        if key == "text":
            out[key] = tx.check_text(val)
        elif key == "type":
            out[key] = tx.check_type(val)
        elif key == "layer":
            out[key] = tx.check_layer(val)
        elif key in ("importance", "confidence"):
            out[key] = tx.check_unit(key, val)
        elif key == "decay_score":
            out[key] = None if val is None else tx.check_unit(key, val)
        elif key == "user_id":
            v = tx.check_optional_str(key, val, 200)
            if v is None:
                raise ValidationError(key, "must not be empty")
            out[key] = v
        elif key in ("topic", "source_session", "entity", "attribute"):
            out[key] = tx.check_optional_str(key, val, 200)
        elif key == "value":
            out[key] = tx.check_optional_str(key, val, 10_000)
        elif key in ("created_at", "last_accessed", "valid_until", "deleted_at"):
            out[key] = _as_naive_utc(key, val)
        elif key == "access_count":
            out[key] = tx.check_count(key, val)
        elif key == "superseded_by":
            out[key] = tx.check_optional_str(key, val, 64)
        elif key == "embedding":
            if val is not None and not isinstance(val, bytes | bytearray | memoryview):
                raise ValidationError(key, "must be bytes (float32 little-endian) or None")
            out[key] = bytes(val) if val is not None else None
        elif key == "id":
            out[key] = tx.check_optional_str(key, val, 64) or new_id()
        else:
            raise ValidationError(key, "is not a memory field")
    if creating:
        for required in ("text", "type", "user_id"):
            if required not in out:
                raise ValidationError(required, "is required")
        out.setdefault("id", new_id())
        out.setdefault("importance", 0.5)
        out.setdefault("confidence", 0.8)
        out.setdefault("access_count", 0)
        if out.get("created_at") is None:
            out["created_at"] = utcnow()
    return out


class MemoryStore:
    """The store service.  Cheap to construct; one per open store file."""

    def __init__(self, engine: Engine, report: OpenReport | None = None) -> None:
        self.engine = engine
        self.report = report
        self._writer = writer(engine)
        self.dialect = engine.dialect.name

    # -- opening --------------------------------------------------------------
    @classmethod
    def open(
        cls,
        db: str | Path | None = None,
        *,
        create: bool = True,
        allow_upgrade: bool = True,
        busy_timeout: float | None = None,
    ) -> MemoryStore:
        engine, report = open_engine(
            db, create=create, allow_upgrade=allow_upgrade, busy_timeout=busy_timeout
        )
        return cls(engine, report)

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        self.engine.dispose()

    def checkpoint(self) -> None:
        """Fold the WAL into the main file (SQLite); must run outside a transaction."""
        if self.dialect != "sqlite":
            return
        raw = self.engine.raw_connection()
        try:
            raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()

    def read(self) -> Connection:
        """A read connection (deferred transaction); use as a context manager."""
        return self.engine.connect()

    def write(self):  # type: ignore[no-untyped-def]
        """A write transaction (BEGIN IMMEDIATE on SQLite); use as a context manager."""
        return self._writer.begin()

    # -- reading --------------------------------------------------------------
    @staticmethod
    def _record(row: Any) -> MemoryRecord:
        return MemoryRecord(**{k: row._mapping[k] for k in RECORD_COLUMNS})

    def _select(self):  # type: ignore[no-untyped-def]
        return select(*(M[k] for k in RECORD_COLUMNS))

    def get(self, memory_id: str, conn: Connection | None = None) -> MemoryRecord:
        if conn is None:
            with self.read() as c:
                return self.get(memory_id, c)
        row = conn.execute(self._select().where(M.id == memory_id)).first()
        if row is None:
            raise NotFoundError(f"No memory with id {memory_id!r}")
        return self._record(row)

    def get_many(self, ids: Sequence[str]) -> list[MemoryRecord]:
        out: dict[str, MemoryRecord] = {}
        with self.read() as conn:
            for i in range(0, len(ids), 500):
                chunk = list(ids[i : i + 500])
                for row in conn.execute(self._select().where(M.id.in_(chunk))):
                    rec = self._record(row)
                    out[rec.id] = rec
        return [out[i] for i in ids if i in out]

    def _order(self, order_by: str, descending: bool):  # type: ignore[no-untyped-def]
        if order_by not in SORTABLE:
            raise ValidationError("order_by", f"cannot sort by {order_by!r}")
        col = status_expression() if order_by == "status" else SORTABLE[order_by]
        tiebreak = M.seq.desc() if descending else M.seq.asc()
        return [col.desc() if descending else col.asc(), tiebreak]

    def page(
        self,
        flt: MemoryFilter | None = None,
        *,
        order_by: str = "created_at",
        descending: bool = True,
        offset: int = 0,
        limit: int | None = 100,
    ) -> list[MemoryRecord]:
        flt = flt or MemoryFilter()
        stmt = self._select().where(*flt.clauses(self.dialect)).order_by(
            *self._order(order_by, descending)
        )
        if offset:
            stmt = stmt.offset(offset)
        if limit is not None:
            stmt = stmt.limit(limit)
        with self.read() as conn:
            return [self._record(r) for r in conn.execute(stmt)]

    def page_ids(
        self,
        flt: MemoryFilter | None = None,
        *,
        order_by: str = "created_at",
        descending: bool = True,
        offset: int = 0,
        limit: int | None = 100,
    ) -> list[str]:
        flt = flt or MemoryFilter()
        stmt = select(M.id).where(*flt.clauses(self.dialect)).order_by(
            *self._order(order_by, descending)
        )
        if offset:
            stmt = stmt.offset(offset)
        if limit is not None:
            stmt = stmt.limit(limit)
        with self.read() as conn:
            return list(conn.execute(stmt).scalars())

    def count(self, flt: MemoryFilter | None = None) -> int:
        flt = flt or MemoryFilter()
        stmt = select(func.count()).select_from(MT).where(*flt.clauses(self.dialect))
        with self.read() as conn:
            return int(conn.execute(stmt).scalar_one())

    def counts(self) -> dict[str, int]:
        """Rows by status, plus total (deleted rows included in total)."""
        expr = status_expression().label("status")
        with self.read() as conn:
            rows = conn.execute(select(expr, func.count()).group_by(expr)).all()
        out = {s.value: 0 for s in Status}
        for status, n in rows:
            out[status] = int(n)
        out["total"] = sum(out[s.value] for s in Status)
        return out

    def active(self, user_id: str | None = None, limit: int | None = None) -> list[MemoryRecord]:
        """The active belief state (optionally for one user)."""
        stmt = self._select().where(active_belief_state())
        if user_id is not None:
            stmt = stmt.where(M.user_id == user_id)
        stmt = stmt.order_by(M.importance.desc(), M.seq)
        if limit:
            stmt = stmt.limit(limit)
        with self.read() as conn:
            return [self._record(r) for r in conn.execute(stmt)]

    def distinct(self, column: str, limit: int = 1000) -> list[str]:
        """Distinct non-null values of a text column, for filter pickers."""
        if column not in ("user_id", "topic", "source_session", "type", "layer", "entity"):
            raise ValidationError("column", f"no distinct listing for {column!r}")
        col = M[column]
        stmt = select(col).where(col.is_not(None)).group_by(col).order_by(col).limit(limit)
        with self.read() as conn:
            return [v for v in conn.execute(stmt).scalars()]

    def chain(self, memory_id: str) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        """(what this memory replaced, newest last; what replaced it, in order)."""
        with self.read() as conn:
            me = self.get(memory_id, conn)
            newer: list[MemoryRecord] = []
            seen = {me.id}
            cur = me
            while cur.superseded_by and cur.superseded_by not in seen:
                try:
                    cur = self.get(cur.superseded_by, conn)
                except NotFoundError:
                    break
                seen.add(cur.id)
                newer.append(cur)
            older: list[MemoryRecord] = []
            frontier = [me.id]
            while frontier and len(older) < 1000:
                rows = conn.execute(
                    self._select().where(M.superseded_by.in_(frontier)).order_by(M.created_at)
                ).all()
                frontier = []
                for r in rows:
                    rec = self._record(r)
                    if rec.id not in seen:
                        seen.add(rec.id)
                        older.append(rec)
                        frontier.append(rec.id)
            older.sort(key=lambda r: r.created_at)
        return older, newer

    # -- events ---------------------------------------------------------------
    @staticmethod
    def _event(row: Any) -> EventRecord:
        m = row._mapping
        return EventRecord(
            id=m["id"],
            memory_id=m["memory_id"],
            actor=m["actor"],
            action=m["action"],
            before=decode_values(m["before"]),
            after=decode_values(m["after"]),
            at=m["at"],
            group_id=m["group_id"],
            undoes=m["undoes"],
            undone_by=m["undone_by"],
            note=m["note"],
        )

    def events(self, memory_id: str | None = None, limit: int = 500) -> list[EventRecord]:
        stmt = select(ET).order_by(E.id.desc()).limit(limit)
        if memory_id is not None:
            stmt = stmt.where(E.memory_id == memory_id)
        with self.read() as conn:
            return [self._event(r) for r in conn.execute(stmt)]

    def event(self, event_id: int, conn: Connection | None = None) -> EventRecord:
        if conn is None:
            with self.read() as c:
                return self.event(event_id, c)
        row = conn.execute(select(ET).where(E.id == event_id)).first()
        if row is None:
            raise NotFoundError(f"No event with id {event_id}")
        return self._event(row)

    def group_events(self, group_id: str) -> list[EventRecord]:
        with self.read() as conn:
            rows = conn.execute(select(ET).where(E.group_id == group_id).order_by(E.id)).all()
        return [self._event(r) for r in rows]

    def log_in(
        self,
        conn: Connection,
        memory_id: str,
        actor: str,
        action: str,
        before: dict[str, Any],
        after: dict[str, Any],
        *,
        group_id: str | None = None,
        undoes: int | None = None,
        note: str | None = None,
    ) -> int:
        """Append one audit row in ``conn``'s transaction; returns its event id."""
        result = conn.execute(
            insert(ET).values(
                memory_id=memory_id,
                actor=str(tx.Actor(actor)),
                action=action,
                before=encode_values(before),
                after=encode_values(after),
                at=utcnow(),
                group_id=group_id,
                undoes=undoes,
                note=note,
            )
        )
        return int(result.inserted_primary_key[0])

    # -- writing --------------------------------------------------------------
    # -- building blocks for services that write several rows in one transaction --
    # (sweep decisions, contradiction resolutions): use inside ``with store.write()``.
    def guarded(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        """Run ``fn``, turning driver errors (locked, corrupt) into store errors."""
        try:
            return fn(*args, **kwargs)
        except (OperationalError, DatabaseError) as exc:
            raise translate(exc, self.url) from exc

    def add(self, *, actor: str = "agent", note: str | None = None, **fields: Any) -> MemoryRecord:
        """Direct synchronous insert (seed 003's ``MemoryClient.store()``), audited."""
        values = validate_fields(fields, creating=True)

        def run() -> MemoryRecord:
            with self.write() as conn:
                self.add_in(conn, values, actor=actor, note=note)
                return self.get(values["id"], conn)

        return self.guarded(run)

    def add_in(
        self, conn: Connection, values: dict[str, Any], *, actor: str,
        note: str | None = None, group_id: str | None = None,
    ) -> int:
        """Insert one validated memory and audit it as "add"; returns the event id."""
        values = route_values(values)
        self._check_new_ids(conn, [values["id"]])
        self._check_ref(conn, values.get("superseded_by"), values["id"])
        conn.execute(insert(MT).values(**values))
        logged = {k: v for k, v in values.items() if k != "embedding"}
        return self.log_in(conn, values["id"], actor, "add", {}, logged,
                           group_id=group_id, note=note)

    def add_many(
        self, items: Iterable[dict[str, Any]], *, actor: str = "agent", audit: bool = True
    ) -> list[str]:
        """Validated bulk insert in one transaction; all or nothing."""
        rows = [route_values(validate_fields(dict(it), creating=True)) for it in items]
        if not rows:
            return []

        def run() -> list[str]:
            with self.write() as conn:
                self._check_new_ids(conn, [r["id"] for r in rows])
                conn.execute(insert(MT), rows)
                if audit:
                    now = utcnow()
                    conn.execute(
                        insert(ET),
                        [
                            dict(
                                memory_id=r["id"],
                                actor=str(tx.Actor(actor)),
                                action="add",
                                before="{}",
                                after=encode_values(
                                    {k: v for k, v in r.items() if k != "embedding"}
                                ),
                                at=now,
                            )
                            for r in rows
                        ],
                    )
            return [r["id"] for r in rows]

        return self.guarded(run)

    def _check_new_ids(self, conn: Connection, ids: list[str]) -> None:
        # A taken id would otherwise surface as the driver's IntegrityError, which
        # guarded() reports as a store that cannot be opened.
        seen: set[str] = set()
        for i in ids:
            if i in seen:
                raise ValidationError("id", f"{i!r} is given twice")
            seen.add(i)
        for k in range(0, len(ids), 500):
            taken = conn.execute(select(M.id).where(M.id.in_(ids[k : k + 500]))).first()
            if taken is not None:
                raise ValidationError("id", f"a memory with id {taken[0]!r} exists already")

    def _check_ref(self, conn: Connection, target: str | None, own_id: str) -> None:
        if target is None:
            return
        if target == own_id:
            raise ValidationError("superseded_by", "a memory cannot supersede itself")
        if conn.execute(select(M.id).where(M.id == target)).first() is None:
            raise ValidationError("superseded_by", f"no memory with id {target!r}")

    def apply_in(
        self,
        conn: Connection,
        memory_id: str,
        values: dict[str, Any],
        *,
        actor: str,
        action: str,
        group_id: str | None = None,
        note: str | None = None,
        undoes: int | None = None,
    ) -> int | None:
        """Set ``values`` on one memory and audit exactly what changed (None: no change)."""
        current = self.get(memory_id, conn)
        before: dict[str, Any] = {}
        after: dict[str, Any] = {}
        for k, v in values.items():
            old = getattr(current, k)
            if old != v:
                before[k] = old
                after[k] = v
        if "superseded_by" in after:
            self._check_ref(conn, after["superseded_by"], memory_id)
            self._check_no_cycle(conn, memory_id, after["superseded_by"])
        if not after and undoes is None:
            return None
        if after:
            # A vector is derived from the text: a new text makes it stale (not audited;
            # the next `memdesk embed` recomputes it, see core/write/embed.py).
            stale = {"embedding": None} if "text" in after else {}
            conn.execute(update(MT).where(M.id == memory_id).values(**after, **stale))
        return self.log_in(
            conn, memory_id, actor, action, before, after,
            group_id=group_id, note=note, undoes=undoes,
        )

    def _check_no_cycle(self, conn: Connection, memory_id: str, target: str | None) -> None:
        seen = {memory_id}
        cur = target
        while cur is not None:
            if cur in seen:
                raise ValidationError("superseded_by", "this would make a supersede cycle")
            seen.add(cur)
            cur = conn.execute(select(M.superseded_by).where(M.id == cur)).scalar()

    def update(
        self,
        memory_id: str,
        *,
        actor: str = "operator",
        note: str | None = None,
        group_id: str | None = None,
        action: str = "edit",
        **fields: Any,
    ) -> Changes:
        bad = set(fields) - set(EDITABLE_FIELDS)
        if bad:
            raise ValidationError(sorted(bad)[0], "cannot be edited")
        values = validate_fields(fields, creating=False)

        def run() -> Changes:
            with self.write() as conn:
                ev = self.apply_in(
                    conn, memory_id, values, actor=actor, action=action,
                    group_id=group_id, note=note,
                )
            return Changes((memory_id,), (ev,) if ev else (), group_id)

        return self.guarded(run)

    def bulk_update(
        self, ids: Sequence[str], *, actor: str = "operator", note: str | None = None,
        action: str = "bulk_edit", **fields: Any,
    ) -> Changes:
        """One audited group: every row's change shares a group_id, undone together."""
        bad = set(fields) - set(EDITABLE_FIELDS)
        if bad:
            raise ValidationError(sorted(bad)[0], "cannot be edited")
        values = validate_fields(fields, creating=False)
        group = new_id()

        def run() -> Changes:
            events: list[int] = []
            with self.write() as conn:
                for mid in ids:
                    ev = self.apply_in(
                        conn, mid, values, actor=actor, action=action, group_id=group, note=note
                    )
                    if ev:
                        events.append(ev)
            return Changes(tuple(ids), tuple(events), group)

        return self.guarded(run)

    def soft_delete(self, memory_id: str, *, actor: str = "operator", note: str | None = None,
                    group_id: str | None = None) -> Changes:
        return self.update(memory_id, actor=actor, note=note, group_id=group_id,
                           action="delete", deleted_at=utcnow())

    def bulk_delete(self, ids: Sequence[str], *, actor: str = "operator") -> Changes:
        return self.bulk_update(ids, actor=actor, action="delete", deleted_at=utcnow())

    def supersede(
        self, old_id: str, new_id_: str, *, actor: str = "operator", note: str | None = None,
        group_id: str | None = None,
    ) -> Changes:
        """``old`` is replaced by ``new``: old.superseded_by = new, old.valid_until = now."""
        if old_id == new_id_:
            raise ValidationError("superseded_by", "a memory cannot supersede itself")

        def run() -> Changes:
            with self.write() as conn:
                self.get(new_id_, conn)
                ev = self.supersede_in(conn, old_id, new_id_, actor=actor,
                                       group_id=group_id, note=note)
            return Changes((old_id, new_id_), (ev,) if ev else (), group_id)

        return self.guarded(run)

    def bulk_supersede(self, old_ids: Sequence[str], new_id_: str, *,
                       actor: str = "operator") -> Changes:
        group = new_id()

        def run() -> Changes:
            with self.write() as conn:
                self.get(new_id_, conn)
                events = [
                    ev for oid in old_ids if oid != new_id_
                    if (ev := self.supersede_in(conn, oid, new_id_, actor=actor, group_id=group))
                ]
            return Changes((*old_ids, new_id_), tuple(events), group)

        return self.guarded(run)

    def supersede_in(
        self, conn: Connection, old_id: str, new_id_: str, *, actor: str,
        action: str = "supersede", group_id: str | None = None, note: str | None = None,
        at: datetime | None = None,
    ) -> int | None:
        """``old`` is replaced by ``new`` inside ``conn``'s transaction (audited)."""
        return self.apply_in(
            conn, old_id, {"superseded_by": new_id_, "valid_until": at or utcnow()},
            actor=actor, action=action, group_id=group_id, note=note,
        )

    # -- undo -----------------------------------------------------------------
    def undo_in(self, conn: Connection, event_id: int, actor: str,
                 group_id: str | None) -> int:
        """Undo one event inside ``conn``'s transaction; returns the new undo event's id."""
        ev = self.event(event_id, conn)
        if ev.undone_by is not None:
            raise UndoConflictError(f"Action {event_id} was already undone.")
        current = self.get(ev.memory_id, conn)
        if ev.action == "add":
            target = {"deleted_at": utcnow()}  # never hard-delete: undoing an add hides it
            expect = {"deleted_at": None}
        else:
            target = ev.before
            expect = ev.after
        for k, v in expect.items():
            if getattr(current, k) != v:
                raise UndoConflictError(
                    f"Cannot undo action {event_id} on memory {ev.memory_id}: its {k} "
                    "was changed again since. Undo the later change first."
                )
        new_ev = self.apply_in(
            conn, ev.memory_id, target, actor=actor, action="undo",
            undoes=event_id, group_id=group_id,
        )
        assert new_ev is not None
        conn.execute(update(ET).where(E.id == event_id).values(undone_by=new_ev))
        return new_ev

    def undo(self, event_id: int, *, actor: str = "operator") -> Changes:
        """Restore the fields one event changed; the undo is itself an event (redo = undo it)."""
        def run() -> Changes:
            with self.write() as conn:
                new_ev = self.undo_in(conn, event_id, actor, None)
                mid = self.event(new_ev, conn).memory_id
            return Changes((mid,), (new_ev,))

        return self.guarded(run)

    def undo_group(self, group_id: str, *, actor: str = "operator") -> Changes:
        """Undo every event of a group (a bulk action), newest first, in one transaction."""
        redo_group = new_id()

        def run() -> Changes:
            with self.write() as conn:
                rows = conn.execute(
                    select(E.id, E.memory_id).where(E.group_id == group_id).order_by(E.id.desc())
                ).all()
                if not rows:
                    raise NotFoundError(f"No action group {group_id!r}")
                events = [self.undo_in(conn, r.id, actor, redo_group) for r in rows]
            return Changes(tuple(r.memory_id for r in rows), tuple(events), redo_group)

        return self.guarded(run)
