"""The asynchronous store queue (the write-phase design's ``store_memory``): one row per turn in
``jobs``.

Life of a job: ``pending`` → ``running`` (claimed by one worker, with a lease) → ``done``
(with the ids of the memories it created) or ``failed`` (with the error).  A failed job
can be retried (back to ``pending``).  An operator can cancel a pending job
(``cancelled``: no worker ever claims it); the cancel is audited and undoable (undo puts
it back to ``pending``).  A running job cannot be cancelled: its worker may be writing.

Claiming happens in one write transaction (BEGIN IMMEDIATE on SQLite, ``FOR UPDATE SKIP
LOCKED`` on PostgreSQL), so two workers never take the same job.  Finishing is
conditional on still holding the lease and happens in the same transaction as the
memory inserts, so a job is done exactly once: a worker that was killed, or whose lease
ran out and was taken over, writes nothing.  A ``running`` job is taken over when its
lease has expired, or at once when its owner was a process on this machine that no
longer exists; after ``MAX_ATTEMPTS`` takeovers it is failed instead (a turn that kills
every worker must not be retried forever).
"""

from __future__ import annotations

import builtins
import dataclasses
import json
import os
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Row, Table, and_, func, insert, or_, select, update

from memdesk.core.errors import MemdeskError, NotFoundError, UndoConflictError, ValidationError
from memdesk.core.guard import SecretScreen, apply_policy
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store import audit
from memdesk.core.store.prefixes import resolve_id
from memdesk.core.store.records import Changes, EventRecord
from memdesk.core.write.models import Job
from memdesk.core.write.units import Turn

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.store.records import AnyRow

# Declarative types __table__ as a FromClause; Job maps a plain Table.
JT = cast(Table, Job.__table__)
J = JT.c
DEFAULT_LEASE_S = 300.0
MAX_ATTEMPTS = 3
LOG_LIMIT = 50  # entries kept per job


class JobStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


# The audit action of a cancel (declared in memdesk.core.store.actions, job stream).  Its
# event names the job in before/after; the registry's job handler below undoes it.
CANCEL_ACTION = acts.CANCEL_JOB.name


class JobStateError(MemdeskError):
    """The job's status does not allow the action (e.g. cancelling a running job)."""


class LeaseLost(Exception):
    """The job is no longer ours (taken over after the lease ran out); write nothing."""


@dataclass(frozen=True)
class JobRecord:
    id: str
    status: str
    user_id: str
    session_id: str | None
    topic: str | None
    text: str
    created_at: datetime
    updated_at: datetime
    attempts: int
    lease_owner: str | None
    lease_until: datetime | None
    finished_at: datetime | None
    extractor: str | None
    model: str | None
    memory_ids: tuple[str, ...]
    error: str | None
    log: tuple[dict[str, str], ...]
    agent_id: str | None = None
    run_id: str | None = None
    speaker: str | None = None
    said_at: datetime | None = None

    @property
    def turn(self) -> Turn:
        return Turn(self.text, self.user_id, self.session_id, self.topic, self.agent_id,
                    self.run_id, self.speaker, self.said_at)

    def to_json(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        for k, v in out.items():
            if isinstance(v, datetime):
                out[k] = v.isoformat()
        out["memory_ids"] = list(self.memory_ids)
        out["log"] = list(self.log)
        return out


def _record(row: AnyRow) -> JobRecord:
    m = dict(row._mapping)
    m["memory_ids"] = tuple(json.loads(m["memory_ids"])) if m["memory_ids"] else ()
    m["log"] = tuple(json.loads(m["log"])) if m["log"] else ()
    return JobRecord(**m)


def worker_identity() -> str:
    """``host:pid:token``: unique per worker, and says which process to check for life."""
    return f"{socket.gethostname()}:{os.getpid()}:{new_id()[:8]}"


def _owner_is_gone(owner: str | None) -> bool:
    """True only when ``owner`` was a process on this host that no longer exists."""
    if not owner or sys.platform == "win32":  # os.kill(pid, 0) would terminate on Windows
        return False
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, not ours to signal
        return False
    return False


def _append_log(current: str | None, *messages: str) -> str:
    entries = json.loads(current) if current else []
    now = utcnow().isoformat(timespec="seconds")
    entries.extend({"at": now, "msg": m} for m in messages)
    return json.dumps(entries[-LOG_LIMIT:], ensure_ascii=False)


def _owned_running(conn: Connection, job_id: str, owner: str) -> Row[str | None] | None:
    """The job's log row if it is running under ``owner``'s lease (None: not ours)."""
    return conn.execute(select(J.log).where(
        J.id == job_id, J.status == JobStatus.RUNNING, J.lease_owner == owner)).first()


class JobQueue:
    """The write-path job queue over one store: the public surface of ``jobs`` (the
    jobs view, ``memdesk jobs``, the MCP tools and the worker use it).  Cheap; construct
    one per store.  Its one operator action, :meth:`cancel`, returns ``Changes``."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    # -- agents -----------------------------------------------------------------
    def enqueue(self, turn: Turn) -> str:
        """Persist ``turn`` as a pending job and return its id at once (the write-phase
        design's ``store_memory`` contract: the agent never waits for extraction)."""
        with self.store.write() as conn:
            return self.enqueue_in(conn, turn)

    def enqueue_in(self, conn: Connection, turn: Turn) -> str:
        """``enqueue`` inside ``conn``'s transaction (the MCP server records the job's
        agent origin in the same one: core/guard/origin.py)."""
        return self.enqueue_screened_in(conn, turn)[0]

    def enqueue_screened_in(self, conn: Connection, turn: Turn) -> tuple[str, SecretScreen]:
        """``enqueue_in`` that also says what the secrets lane found: the turn is kept
        masked where the store's policy masks (read after the session's turn before it,
        which may have announced the secret), so the queue never holds those values."""
        # Here, not at the top: the settings bring the duplicate scan (numpy) with them,
        # which `memdesk store` and `jobs` need not load.
        from memdesk.core.write import settings

        screened = apply_policy(turn.text, settings.secret_policy_in(conn),
                                self.preceding_text_in(conn, turn))
        job_id = self._insert_in(conn, dataclasses.replace(turn, text=screened.text))
        return job_id, screened

    def preceding_text_in(self, conn: Connection, turn: Turn,
                          before: datetime | None = None) -> str | None:
        """The text of the session's turn queued before this one (before ``before``, or
        the newest), or None outside a session."""
        if turn.session_id is None:
            return None
        stmt = select(J.text).where(J.user_id == turn.user_id, J.session_id == turn.session_id)
        if before is not None:
            stmt = stmt.where(J.created_at < before)
        row = conn.execute(stmt.order_by(J.created_at.desc()).limit(1)).first()
        return None if row is None else str(row[0])

    def mask_text_in(self, conn: Connection, job_id: str, text: str) -> None:
        """Keep a job's turn as the worker masked it (the policy changed since the job
        was queued: no copy of a masked value stays in the queue)."""
        conn.execute(update(JT).where(J.id == job_id).values(text=text))

    def _insert_in(self, conn: Connection, turn: Turn) -> str:
        job_id = new_id()
        now = utcnow()
        conn.execute(insert(JT).values(
            id=job_id, status=JobStatus.PENDING.value, user_id=turn.user_id,
            session_id=turn.session_id, topic=turn.topic, text=turn.text,
            agent_id=turn.agent_id, run_id=turn.run_id, speaker=turn.speaker,
            said_at=turn.said_at, created_at=now, updated_at=now, attempts=0,
        ))
        return job_id

    # -- reading ----------------------------------------------------------------
    def get(self, job_id: str, conn: Connection | None = None) -> JobRecord:
        if conn is None:
            with self.store.read() as c:
                return self.get(job_id, c)
        row = conn.execute(select(JT).where(J.id == job_id)).first()
        if row is None:
            raise NotFoundError(f"No job with id {job_id!r}")
        return _record(row)

    def list(self, statuses: tuple[str, ...] = (),
             limit: int = 500) -> builtins.list[JobRecord]:
        for s in statuses:
            JobStatus(s)
        stmt = select(JT).order_by(J.created_at.desc(), J.id).limit(limit)
        if statuses:
            stmt = stmt.where(J.status.in_(statuses))
        with self.store.read() as conn:
            return [_record(r) for r in conn.execute(stmt)]

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in JobStatus}
        with self.store.read() as conn:
            for status, n in conn.execute(select(J.status, func.count()).group_by(J.status)):
                out[status] = int(n)
        return out

    # -- workers ----------------------------------------------------------------
    # (``builtins.list`` from here on: the ``list`` method above shadows the builtin.)
    def claim(self, owner: str, lease_s: float = DEFAULT_LEASE_S) -> JobRecord | None:
        """Take the oldest pending (or abandoned) job, or None when there is none."""
        jobs = self.claim_many(owner, lease_s, 1)
        return jobs[0] if jobs else None

    def claim_many(self, owner: str, lease_s: float = DEFAULT_LEASE_S,
                   limit: int = 1) -> builtins.list[JobRecord]:
        """Take up to ``limit`` of the oldest claimable jobs in one transaction (a worker
        encodes their units together); each keeps its own lease and is finished alone."""
        # Idle workers poll: a read first, so an empty queue never takes the write lock.
        with self.store.read() as conn:
            waiting = conn.execute(select(J.id).where(
                J.status.in_((JobStatus.PENDING, JobStatus.RUNNING))).limit(1)).first()
        if waiting is None:
            return []
        with self.store.write() as conn:
            return self._claim_in(conn, owner, lease_s, max(1, limit))

    def _claim_in(self, conn: Connection, owner: str, lease_s: float,
                  limit: int) -> builtins.list[JobRecord]:
        now = utcnow()
        # Abandoned: lease expired, or its owner process on this host is gone.
        running = conn.execute(
            select(J.id, J.lease_owner, J.lease_until).where(J.status == JobStatus.RUNNING)
        ).all()
        abandoned = [r.id for r in running
                     if (r.lease_until is not None and r.lease_until < now)
                     or _owner_is_gone(r.lease_owner)]

        def oldest() -> AnyRow | None:
            # ``abandoned`` shrinks as jobs are taken: a job claimed in this loop is
            # running under our lease now and must not match again.
            return conn.execute(
                select(JT)
                .where(or_(J.status == JobStatus.PENDING,
                           and_(J.status == JobStatus.RUNNING, J.id.in_(abandoned))))
                .order_by(J.created_at, J.id)
                .limit(1)
                .with_for_update(skip_locked=True)
            ).first()

        claimed: builtins.list[JobRecord] = []
        while len(claimed) < limit and (row := oldest()) is not None:
            job = _record(row)
            if job.id in abandoned:
                abandoned.remove(job.id)
            messages = []
            if job.status == JobStatus.RUNNING:
                messages.append(f"taken over from {job.lease_owner}: its worker stopped "
                                "or its lease ran out; nothing it did was kept")
                if job.attempts >= MAX_ATTEMPTS:
                    error = (f"a worker stopped while processing this job {job.attempts} "
                             "times; retry it once the cause is fixed")
                    conn.execute(update(JT).where(J.id == job.id).values(
                        status=JobStatus.FAILED, error=error, lease_owner=None,
                        lease_until=None, updated_at=now, finished_at=now,
                        log=_append_log(row.log, *messages, error)))
                    continue
            conn.execute(update(JT).where(J.id == job.id).values(
                status=JobStatus.RUNNING, lease_owner=owner,
                lease_until=now + timedelta(seconds=lease_s), attempts=J.attempts + 1,
                updated_at=now, error=None,
                log=_append_log(row.log, *messages, f"claimed by {owner}")))
            claimed.append(self.get(job.id, conn))
        return claimed

    def release(self, job_id: str, owner: str) -> bool:
        """Give a claimed job back unprocessed (the worker is stopping before it got to
        it): pending again, the claim not counted as an attempt.  False if not ours."""
        with self.store.write() as conn:
            current = _owned_running(conn, job_id, owner)
            if current is None:
                return False
            conn.execute(update(JT).where(J.id == job_id).values(
                status=JobStatus.PENDING, lease_owner=None, lease_until=None,
                attempts=J.attempts - 1, updated_at=utcnow(),
                log=_append_log(current.log, f"released unprocessed by {owner} (stopping)")))
            return True

    def complete_in(self, conn: Connection, job_id: str, owner: str,
                    memory_ids: builtins.list[str], extractor: str | None, model: str | None,
                    notes: Sequence[str]) -> None:
        """Mark the job done inside the transaction that inserted its memories."""
        current = _owned_running(conn, job_id, owner)
        if current is None:
            raise LeaseLost(job_id)
        now = utcnow()
        done = f"done: {len(memory_ids)} memories"
        conn.execute(update(JT).where(J.id == job_id).values(
            status=JobStatus.DONE, memory_ids=json.dumps(list(memory_ids)), extractor=extractor,
            model=model, lease_owner=None, lease_until=None, updated_at=now, finished_at=now,
            error=None, log=_append_log(current.log, *notes, done)))

    def fail(self, job_id: str, owner: str, error: str, notes: Sequence[str] = ()) -> bool:
        """Mark the job failed (if still ours); returns whether it was."""
        with self.store.write() as conn:
            current = _owned_running(conn, job_id, owner)
            if current is None:
                return False
            now = utcnow()
            conn.execute(update(JT).where(J.id == job_id).values(
                status=JobStatus.FAILED, error=error, lease_owner=None, lease_until=None,
                updated_at=now, finished_at=now,
                log=_append_log(current.log, *notes, f"failed: {error}")))
            return True

    def retry(self, job_id: str) -> JobRecord:
        """Put a failed job back in the queue."""
        with self.store.write() as conn:
            job = self.get(job_id, conn)
            if job.status != JobStatus.FAILED:
                raise ValidationError(
                    "status", f"job {job_id} is {job.status}; only failed jobs are retried")
            conn.execute(update(JT).where(J.id == job_id).values(
                status=JobStatus.PENDING, error=None, finished_at=None, attempts=0,
                updated_at=utcnow(), log=_append_log(
                    conn.execute(select(J.log).where(J.id == job_id)).scalar(),
                    f"retry requested (last error: {job.error})")))
            return self.get(job_id, conn)

    def resolve(self, ref: str) -> str:
        """The job id ``ref`` names (the id or a unique prefix of it)."""
        with self.store.read() as conn:
            return resolve_id(conn, J.id, ref, "job")

    def cancel(self, job_id: str, *, actor: str = "operator") -> Changes:
        """Cancel a pending job: no worker will claim it.  Audited as one action group,
        so ``memdesk.core.undo.generic.undo_changes`` puts it back to pending."""
        group = new_id()
        with self.store.write() as conn:
            job = self.get(job_id, conn)
            if job.status != JobStatus.PENDING:
                raise JobStateError(_why_not_cancellable(job))
            before = {"job_id": job.id, "status": JobStatus.PENDING.value}
            after = {"job_id": job.id, "status": JobStatus.CANCELLED.value}
            event = audit.log_in(conn, None, actor, acts.CANCEL_JOB.name, before, after,
                                 group_id=group, note=f"job {job.id} cancelled",
                                 stream=acts.Stream.JOB, target=job.id)
            _set_status_in(conn, job.id, JobStatus.CANCELLED,
                           f"cancelled by the {actor} (event {event})")
        return Changes(event_ids=(event,), group_id=group, kinds=acts.CANCEL_JOB.kinds,
                       action=acts.CANCEL_JOB)


def _set_status_in(conn: Connection, job_id: str, status: JobStatus, message: str) -> None:
    now = utcnow()
    log = conn.execute(select(J.log).where(J.id == job_id)).scalar()
    conn.execute(update(JT).where(J.id == job_id).values(
        status=status, updated_at=now, lease_owner=None, lease_until=None,
        finished_at=now if status == JobStatus.CANCELLED else None,
        log=_append_log(log, message)))


def _why_not_cancellable(job: JobRecord) -> str:
    if job.status == JobStatus.RUNNING:
        return (f"job {job.id} is running: a worker is processing it now and may be "
                "writing its memories, so it cannot be cancelled. Wait for it to finish "
                "(then undo or delete what it wrote), or stop that worker.")
    if job.status == JobStatus.CANCELLED:
        return f"job {job.id} is already cancelled"
    return f"job {job.id} is {job.status}; only pending jobs can be cancelled"


def _undo_job_event_in(conn: Connection, ev: EventRecord, actor: str,
                      group_id: str | None) -> int:
    """Undo a job status event inside ``conn``'s transaction: the job goes back to its
    ``before`` status, if it still has its ``after`` one (a job a worker claimed since
    is not pulled from under it).  Returns the new undo event's id."""
    if ev.undone_by is not None:
        raise UndoConflictError(f"Action {ev.id} was already undone.")
    job_id = str(ev.before["job_id"])
    status = conn.execute(select(J.status).where(J.id == job_id)).scalar()
    if status is None:
        raise NotFoundError(f"No job with id {job_id!r}")
    if status != ev.after["status"]:
        raise UndoConflictError(
            f"Cannot undo action {ev.id} on job {job_id}: it is {status} now, not "
            f"{ev.after['status']}. A worker may have claimed it since.")
    new_ev = audit.log_in(conn, None, actor, acts.UNDO_JOB.name, dict(ev.after),
                          dict(ev.before), group_id=group_id, undoes=ev.id,
                          note=f"job {job_id} back to {ev.before['status']}",
                          stream=acts.Stream.JOB, target=job_id)
    conn.execute(update(audit.ET).where(audit.E.id == ev.id).values(undone_by=new_ev))
    _set_status_in(conn, job_id, JobStatus(ev.before["status"]),
                   f"{ev.before['status']} again: the {actor} undid event {ev.id}")
    return new_ev


def undo_job_event(store: MemoryStore, conn: Connection, ev: EventRecord, actor: str,
                   group_id: str | None) -> int:
    """The job stream's undo handler (bound in ``memdesk.core.undo.registry``)."""
    return _undo_job_event_in(conn, ev, actor, group_id)
