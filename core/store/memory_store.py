"""MemoryStore: the service API over the memories table.

Every mutation runs in one write transaction (``write()``: BEGIN IMMEDIATE on SQLite,
driver errors turned into store errors) that also appends audit rows holding exactly
the fields it changed (``memdesk.core.store.audit``).  Reads page with the keyset
paging of ``memdesk.core.store.browse``; field values are checked by the table in
``memdesk.core.store.validation``.  Undo of one event or of a whole action group (memory,
sweep, contradiction and delta-memory actions alike) is ``memdesk.core.undo.generic``; the
store undoes its own (memory) rows, dispatched by their declared actions
(``memdesk.core.store.actions``, ``memdesk.core.store.undo``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Engine, Select, Table, func, insert, select, update
from sqlalchemy.exc import DatabaseError, OperationalError

from memdesk.core import taxonomy as tx
from memdesk.core.errors import EditConflictError, NotFoundError, ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.routing import route_values  # every insert gets a layer
from memdesk.core.store import actions as acts
from memdesk.core.store import audit
from memdesk.core.store.browse import fetch_records
from memdesk.core.store.db import writer
from memdesk.core.store.erased import not_found_message
from memdesk.core.store.models import EDITABLE_FIELDS, Memory
from memdesk.core.store.query import MemoryFilter, Status, active_belief_state, status_expression
from memdesk.core.store.records import (
    MEMORY_EDIT,
    RECORD_COLUMNS,
    AddedRecord,
    Changed,
    Changes,
    EventRecord,
    MemoryRecord,
    encode_values,
)
from memdesk.core.store.schema import OpenReport, open_engine, translate
from memdesk.core.store.undo import MEMORY_HANDLERS, undo_events_in
from memdesk.core.store.validation import validate_fields
from memdesk.core.store.vectors import (
    add_vector_in,
    clear_vector_of_id_in,
    record_columns,
    write_vectors_by_id_in,
)

if TYPE_CHECKING:
    from memdesk.core.store.records import AnyRow

__all__ = ["MemoryStore", "new_id", "utcnow", "validate_fields"]

# Declarative types __table__ as a FromClause; Memory maps a plain Table.
MT = cast(Table, Memory.__table__)
ET = audit.ET
M = MT.c

# A very deep ``page(offset=…)`` reads this many rows at a time while it skips.
_SKIP_CHUNK = 5000


class MemoryStore:
    """The store service.  Cheap to construct; one per open store file."""

    def __init__(self, engine: Engine, report: OpenReport | None = None) -> None:
        self.engine = engine
        self.report = report
        self._writer = writer(engine)
        self.dialect = engine.dialect.name
        # Services that keep background work on this store (the retrieval recorder)
        # register here, so close() lets them finish before the engine goes away.
        self._close_hooks: list[Callable[[], None]] = []

    # -- opening --------------------------------------------------------------
    @classmethod
    def open(
        cls,
        db: str | Path | None = None,
        *,
        create: bool = True,
        allow_upgrade: bool = False,
        busy_timeout: float | None = None,
        **options: Any,
    ) -> MemoryStore:
        """Open a store (see schema.open_engine).  Only ``db upgrade`` and the GUI,
        after asking, pass ``allow_upgrade``: everything else refuses an older store."""
        engine, report = open_engine(
            db, create=create, allow_upgrade=allow_upgrade, busy_timeout=busy_timeout,
            **options,
        )
        return cls(engine, report)

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    def on_close(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` when the store is closed, before its connections are dropped."""
        self._close_hooks.append(hook)

    def close(self) -> None:
        # Hooks first: a background writer flushing after dispose() would open a
        # connection that nobody closes.
        hooks, self._close_hooks = self._close_hooks, []
        for hook in hooks:
            hook()
        self.engine.dispose()

    def checkpoint(self) -> None:
        """Fold the WAL into the main file (SQLite); must run outside a transaction."""
        if self.dialect != "sqlite":
            return
        raw = self.engine.raw_connection()
        try:
            driver = raw.driver_connection
            assert driver is not None  # None only once detached; this one was just checked out
            driver.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read connection (deferred transaction); driver errors become store errors."""
        try:
            with self.engine.connect() as conn:
                yield conn
        except (OperationalError, DatabaseError) as exc:
            raise translate(exc, self.url) from exc

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """The one transaction helper: a write transaction (BEGIN IMMEDIATE on SQLite)
        that commits on success, rolls back on any error, and turns driver errors
        (locked, corrupt, read-only) into store errors with a clear message."""
        try:
            with self._writer.begin() as conn:
                yield conn
        except (OperationalError, DatabaseError) as exc:
            raise translate(exc, self.url) from exc

    # -- reading --------------------------------------------------------------
    @staticmethod
    def _record(row: AnyRow) -> MemoryRecord:
        return MemoryRecord(**{k: row._mapping[k] for k in RECORD_COLUMNS})

    def _select(self) -> Select[Any]:
        return select(*record_columns(RECORD_COLUMNS))

    def get(self, memory_id: str, conn: Connection | None = None, *,
            lock: bool = False) -> MemoryRecord:
        """One memory.  ``lock`` (inside a write transaction): the row is locked until
        the transaction ends, so a decision taken on what was read holds when written
        (SELECT … FOR UPDATE on PostgreSQL; SQLite's BEGIN IMMEDIATE already holds the
        whole store, and its dialect renders no FOR UPDATE)."""
        if conn is None:
            with self.read() as c:
                return self.get(memory_id, c)
        stmt = self._select().where(M.id == memory_id)
        if lock:
            stmt = stmt.with_for_update(of=MT)
        row = conn.execute(stmt).first()
        if row is None:
            raise NotFoundError(not_found_message(conn, memory_id))
        return self._record(row)

    def lock_in(self, conn: Connection, ids: Iterable[str]) -> None:
        """Lock the rows of ``ids`` until ``conn``'s transaction ends (PostgreSQL; a
        no-op on SQLite, see ``get``).  In id order, so two bulk writers locking
        overlapping sets wait for each other instead of deadlocking."""
        if self.dialect != "postgresql":
            return
        ordered = sorted(set(ids))
        for i in range(0, len(ordered), 500):
            conn.execute(select(M.id).where(M.id.in_(ordered[i : i + 500]))
                         .order_by(M.id).with_for_update()).all()

    def get_many(self, ids: Sequence[str]) -> list[MemoryRecord]:
        out: dict[str, MemoryRecord] = {}
        with self.read() as conn:
            for i in range(0, len(ids), 500):
                chunk = list(ids[i : i + 500])
                for row in conn.execute(self._select().where(M.id.in_(chunk))):
                    rec = self._record(row)
                    out[rec.id] = rec
        return [out[i] for i in ids if i in out]

    def page(
        self,
        flt: MemoryFilter | None = None,
        *,
        order_by: str = "created_at",
        descending: bool = True,
        offset: int = 0,
        limit: int | None = 100,
    ) -> list[MemoryRecord]:
        """Records in ``ORDER BY order_by, seq`` order: the browser's keyset paging
        (``browse.fetch_records``), which callers that page on should use directly."""
        if limit is not None and limit <= 0:
            return []
        out: list[MemoryRecord] = []
        cursor = None
        skip = max(0, offset)
        while True:
            want = _SKIP_CHUNK if limit is None else min(_SKIP_CHUNK, skip + limit - len(out))
            rows, cursor = fetch_records(self, flt, order_by=order_by, descending=descending,
                                         after=cursor, limit=want)
            if skip:
                dropped = min(skip, len(rows))
                rows, skip = rows[dropped:], skip - dropped
            out.extend(rows)
            if cursor is None or (limit is not None and len(out) >= limit):
                return out if limit is None else out[:limit]

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
        if column not in ("user_id", "topic", "source_session", "type", "layer", "entity",
                          "agent_id", "run_id"):
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
    def events(self, memory_id: str | None = None, limit: int = 500) -> list[EventRecord]:
        with self.read() as conn:
            return audit.events(conn, memory_id, limit)

    def event(self, event_id: int, conn: Connection | None = None) -> EventRecord:
        if conn is None:
            with self.read() as c:
                return audit.event(c, event_id)
        return audit.event(conn, event_id)

    def group_events(self, group_id: str) -> list[EventRecord]:
        with self.read() as conn:
            return audit.group_events(conn, group_id)

    def log_in(
        self, conn: Connection, memory_id: str | None, actor: str, action: str | acts.Action,
        before: dict[str, Any], after: dict[str, Any], *, group_id: str | None = None,
        undoes: int | None = None, note: str | None = None,
        stream: str = acts.Stream.MEMORY, target: str | None = None,
    ) -> int:
        """Append one audit row in ``conn``'s transaction; returns its event id (a row
        about no memory passes None and its ``stream``: ``memdesk.core.store.audit``)."""
        return audit.log_in(conn, memory_id, actor, str(action), before, after,
                            group_id=group_id, undoes=undoes, note=note, stream=stream,
                            target=target)

    # -- writing --------------------------------------------------------------
    # The ``*_in`` methods are building blocks for services that write several rows in
    # one transaction (sweep decisions, contradiction resolutions): call them inside
    # ``with store.write() as conn``.
    def add(self, *, actor: str = "agent", note: str | None = None, **fields: Any) -> AddedRecord:
        """Direct synchronous insert (the agent client's ``store()``), audited.  The
        record carries the action's ``changes`` (its event: ``memdesk undo N``)."""
        values = validate_fields(fields, creating=True)
        with self.write() as conn:
            ev = self.add_in(conn, values, actor=actor, note=note)
            rec = self.get(values["id"], conn)
        changes = Changes((rec.id,), (ev,), None, MEMORY_EDIT, action=acts.ADD,
                          new_memory_ids=(rec.id,))
        return AddedRecord(**{k: getattr(rec, k) for k in RECORD_COLUMNS}, changes=changes)

    def add_in(
        self, conn: Connection, values: dict[str, Any], *, actor: str,
        note: str | None = None, group_id: str | None = None,
    ) -> int:
        """Insert one validated memory and audit it as "add"; returns the event id."""
        values = route_values(values)
        self._check_new_ids(conn, [values["id"]])
        self._check_ref(conn, values.get("superseded_by"), values["id"])
        row = {k: v for k, v in values.items() if k != "embedding"}
        key = conn.execute(insert(MT).values(**row)).inserted_primary_key
        assert key is not None  # a single-row insert always reports its key
        seq = key[0]
        if values.get("embedding") is not None:
            add_vector_in(conn, seq, values["embedding"])
        return self.log_in(conn, values["id"], actor, acts.ADD, {}, row,
                           group_id=group_id, note=note)

    def add_many(
        self, items: Iterable[dict[str, Any]], *, actor: str = "agent", audit: bool = True
    ) -> list[str]:  # ``audit`` shadows the module here: the module is not used inside
        """Validated bulk insert in one transaction; all or nothing."""
        rows = [route_values(validate_fields(dict(it), creating=True)) for it in items]
        if not rows:
            return []
        # Vectors go to their own table once the rows (and so their seqs) exist.
        vectors: list[tuple[str, bytes]] = []
        for r in rows:
            blob = r.pop("embedding", None)
            if blob is not None:
                vectors.append((r["id"], blob))

        # An executemany binds every row with the first row's keys, so a key that only
        # later rows carry (an entity, a topic) would be dropped silently: insert each
        # shape of row as its own batch, in the callers' order within a shape.
        shapes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for r in rows:
            shapes.setdefault(tuple(sorted(r)), []).append(r)
        with self.write() as conn:
            self._check_new_ids(conn, [r["id"] for r in rows])
            for batch in shapes.values():
                conn.execute(insert(MT), batch)
            write_vectors_by_id_in(conn, vectors)
            if audit:
                now = utcnow()
                conn.execute(insert(ET), [
                    dict(memory_id=r["id"], actor=str(tx.Actor(actor)), action=acts.ADD.name,
                         before="{}", at=now,
                         after=encode_values(r))
                    for r in rows
                ])
        return [r["id"] for r in rows]

    def _check_new_ids(self, conn: Connection, ids: list[str]) -> None:
        # A taken id would otherwise surface as the driver's IntegrityError, which
        # write() reports as a store that cannot be opened.
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
        action: str | acts.Action,
        group_id: str | None = None,
        note: str | None = None,
        undoes: int | None = None,
        expected_version: int | None = None,
    ) -> int | None:
        """Set ``values`` on one memory and audit exactly what changed (None: no change).

        ``expected_version``: the version the caller read; if the row changed since,
        EditConflictError (optimistic concurrency: nothing is written)."""
        # Locked: on PostgreSQL a concurrent editor waits here until this transaction
        # ends, then reads the row this one wrote (and so sees the new version).
        current = self.get(memory_id, conn, lock=True)
        if expected_version is not None and current.version != expected_version:
            raise EditConflictError(memory_id, expected_version, current.version, current)
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
            # the next `memdesk embed` recomputes it, see core/write/embed.py).  Every
            # change bumps the row version (migration 0009: optimistic concurrency).
            # Compare-and-set on the version read above: 0 rows means someone else
            # changed the row in between, which is refused, never overwritten.
            hit = conn.execute(
                update(MT).where(M.id == memory_id, M.version == current.version)
                .values(**after, version=M.version + 1)
            ).rowcount
            if hit != 1:
                now = self.get(memory_id, conn)
                raise EditConflictError(memory_id, current.version, now.version, now)
            if "text" in after:
                clear_vector_of_id_in(conn, memory_id)
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
        action: str | acts.Action = acts.EDIT,
        expected_version: int | None = None,
        **fields: Any,
    ) -> Changes:
        """Edit one memory; ``expected_version`` (the version the caller saw) makes a
        stale edit fail with EditConflictError instead of overwriting a newer change."""
        bad = set(fields) - set(EDITABLE_FIELDS)
        if bad:
            raise ValidationError(sorted(bad)[0], "cannot be edited")
        values = validate_fields(fields, creating=False)
        with self.write() as conn:
            ev = self.apply_in(conn, memory_id, values, actor=actor, action=action,
                               group_id=group_id, note=note, expected_version=expected_version)
        return _edit((memory_id,), (ev,) if ev else (), group_id, action)

    def bulk_update(
        self, ids: Sequence[str], *, actor: str = "operator", note: str | None = None,
        action: str | acts.Action = acts.BULK_EDIT,
        expected_versions: dict[str, int] | None = None,
        **fields: Any,
    ) -> Changes:
        """One audited group: every row's change shares a group_id, undone together.
        ``expected_versions``: id → version the caller saw; any stale row aborts all."""
        bad = set(fields) - set(EDITABLE_FIELDS)
        if bad:
            raise ValidationError(sorted(bad)[0], "cannot be edited")
        values = validate_fields(fields, creating=False)
        group = new_id()

        events: list[int] = []
        with self.write() as conn:
            self.lock_in(conn, ids)
            for mid in ids:
                ev = self.apply_in(conn, mid, values, actor=actor, action=action,
                                   group_id=group, note=note,
                                   expected_version=(expected_versions or {}).get(mid))
                if ev:
                    events.append(ev)
        return _edit(tuple(ids), tuple(events), group, action)

    def record_access(self, memory_ids: Sequence[str], *, at: datetime | None = None) -> int:
        """Count one retrieval of each memory: ``access_count + 1`` in SQL, never a
        read-then-write, so concurrent readers lose no counts.  Not an edit: no audit
        row, no version bump (an operator's open edit stays valid).  Returns rows hit."""
        when = at or utcnow()
        n = 0
        with self.write() as conn:
            for i in range(0, len(memory_ids), 500):
                chunk = list(memory_ids[i : i + 500])
                n += conn.execute(
                    update(MT).where(M.id.in_(chunk))
                    .values(access_count=M.access_count + 1, last_accessed=when)
                ).rowcount
        return n

    def soft_delete(self, memory_id: str, *, actor: str = "operator", note: str | None = None,
                    group_id: str | None = None,
                    expected_version: int | None = None) -> Changes:
        return self.update(memory_id, actor=actor, note=note, group_id=group_id,
                           action=acts.DELETE, expected_version=expected_version,
                           deleted_at=utcnow())

    def bulk_delete(self, ids: Sequence[str], *, actor: str = "operator") -> Changes:
        return self.bulk_update(ids, actor=actor, action=acts.DELETE, deleted_at=utcnow())

    def supersede(
        self, old_id: str, new_id_: str, *, actor: str = "operator", note: str | None = None,
        group_id: str | None = None,
    ) -> Changes:
        """``old`` is replaced by ``new``: old.superseded_by = new, old.valid_until = now."""
        if old_id == new_id_:
            raise ValidationError("superseded_by", "a memory cannot supersede itself")

        with self.write() as conn:
            self.get(new_id_, conn)
            ev = self.supersede_in(conn, old_id, new_id_, actor=actor,
                                   group_id=group_id, note=note)
        return _edit((old_id, new_id_), (ev,) if ev else (), group_id, acts.SUPERSEDE)

    def bulk_supersede(self, old_ids: Sequence[str], new_id_: str, *,
                       actor: str = "operator") -> Changes:
        group = new_id()

        with self.write() as conn:
            self.get(new_id_, conn)
            self.lock_in(conn, old_ids)
            events = [
                ev for oid in old_ids if oid != new_id_
                if (ev := self.supersede_in(conn, oid, new_id_, actor=actor, group_id=group))
            ]
        return _edit((*old_ids, new_id_), tuple(events), group, acts.SUPERSEDE)

    def supersede_in(
        self, conn: Connection, old_id: str, new_id_: str, *, actor: str,
        action: str | acts.Action = acts.SUPERSEDE, group_id: str | None = None,
        note: str | None = None,
        at: datetime | None = None, expected_version: int | None = None,
    ) -> int | None:
        """``old`` is replaced by ``new`` inside ``conn``'s transaction (audited)."""
        return self.apply_in(
            conn, old_id, {"superseded_by": new_id_, "valid_until": at or utcnow()},
            actor=actor, action=action, group_id=group_id, note=note,
            expected_version=expected_version,
        )

    # -- undo -----------------------------------------------------------------
    def undo_in(self, conn: Connection, event_id: int, actor: str,
                group_id: str | None) -> int:
        """Undo one event inside ``conn``'s transaction; returns the new undo event's id."""
        return audit.undo_in(
            conn, event_id, actor, group_id,
            current=lambda mid: self.get(mid, conn, lock=True),
            apply=lambda mid, values, **kw: self.apply_in(conn, mid, values, **kw),
        )

    def undo(self, event_id: int, *, actor: str = "operator") -> Changes:
        """Restore the fields one event changed; the undo is itself an event (redo = undo it)."""
        with self.write() as conn:
            new_ev = self.undo_in(conn, event_id, actor, None)
            mid = audit.event(conn, new_ev).memory_id
            assert mid is not None  # the undo of a memory row names that memory
        return _edit((mid,), (new_ev,), None, acts.UNDO)

    def undo_group(self, group_id: str, *, actor: str = "operator") -> Changes:
        """Undo every memory change of one action group (a bulk edit, an import, a sweep
        decision, a contradiction resolution) in one transaction, as a new group (redo =
        undo it).  Groups of other streams (a job's cancel, a delta-memory review) are
        ``memdesk.core.undo.generic.undo_group``'s."""
        redo = new_id()
        with self.write() as conn:
            done = undo_events_in(self, conn, group_id, actor, redo, MEMORY_HANDLERS)
        if not done.found:
            raise NotFoundError(f"No action group {group_id!r}")
        return Changes(tuple(dict.fromkeys(done.memory_ids)), tuple(done.event_ids), redo,
                       done.kinds, action=acts.UNDO)


def _edit(memory_ids: tuple[str, ...], event_ids: tuple[int, ...],
          group_id: str | None = None, action: str | acts.Action | None = None) -> Changes:
    """The Changes of an edit: nothing changed when no event was written."""
    kinds = (Changed.MEMORIES | Changed.HISTORY) if event_ids else Changed.NOTHING
    declared = action if isinstance(action, acts.Action) else (
        acts.lookup(acts.Stream.MEMORY, action) or acts.EDIT if action else None)
    return Changes(memory_ids, event_ids, group_id, kinds, action=declared)
