"""Recording retrievals off the hot path, and reading them back.

``retrieve`` hands a finished retrieval to a background writer and returns; the
writer, in one write transaction per batch, inserts the ``retrievals`` row and its
``retrieval_items``, reinforces what was returned (``access_count + 1`` and
``last_accessed`` in one UPDATE, an atomic increment), saves the rotation cursor, and
now and then deletes records older than the retention.  ``flush()`` waits for it
(the CLI calls it before exiting; an atexit hook does too).  A failing write is
logged and kept in ``last_error``, never raised into the caller's retrieval.
"""

from __future__ import annotations

import atexit
import json
import logging
import queue
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Engine, Table, delete, desc, func, insert, select, update

from memdesk.core.read.models import Retrieval, RetrievalItem
from memdesk.core.store.db import writer
from memdesk.core.store.faults import as_store_error, safe_message
from memdesk.core.store.models import Memory

if TYPE_CHECKING:
    from memdesk.core.read.result import RetrievalResult

log = logging.getLogger(__name__)
# Declarative types __table__ as a FromClause; these models map plain Tables.
MT = cast(Table, Memory.__table__)
RT = cast(Table, Retrieval.__table__)
RIT = cast(Table, RetrievalItem.__table__)
M = MT.c
R = RT.c
RI = RIT.c
PRUNE_EVERY = 200
IDLE_EXIT_S = 5.0  # the writer thread ends after this long without work
MAX_DROPPED_KEPT = 50

Job = Callable[[Connection], None]


def record_jobs(result: RetrievalResult, cursor_job: Job | None) -> Job:
    """One job that writes a retrieval's record, reinforcement and cursor."""
    now = result.at

    def job(conn: Connection) -> None:
        conn.execute(insert(RT).values(
            id=result.retrieval_id, at=now, user_id=result.user_id, query=result.query,
            channels=",".join(result.channels), k=result.k, injected=int(result.injected),
            duration_ms=result.duration_ms,
            dropped=json.dumps([d.to_json() for d in result.dropped[:MAX_DROPPED_KEPT]],
                               ensure_ascii=False),
            notes=json.dumps(result.notes, ensure_ascii=False),
        ))
        items = [
            dict(retrieval_id=result.retrieval_id, memory_id=h.id, kind="result", rank=i,
                 score=h.score, fts_rank=h.ranks.get("fts"),
                 vector_rank=h.ranks.get("vector"), graph_rank=h.ranks.get("graph"))
            for i, h in enumerate(result.results, 1)
        ] + [
            dict(retrieval_id=result.retrieval_id, memory_id=p.id, kind="preference", rank=i,
                 score=None, fts_rank=None, vector_rank=None, graph_rank=None)
            for i, p in enumerate(result.preferences, 1)
        ]
        if items:
            conn.execute(insert(RIT), items)
            ids = [it["memory_id"] for it in items]
            # One statement, incrementing in the database: concurrent retrievals never
            # lose a count to a read-modify-write race.
            conn.execute(update(MT).where(M.id.in_(ids))
                         .values(access_count=M.access_count + 1, last_accessed=now))
        if cursor_job is not None:
            cursor_job(conn)

    return job


def prune(conn: Connection, now: datetime, retention_days: float | None) -> int:
    """Delete retrieval records older than the retention (items go with them)."""
    if retention_days is None:
        return 0
    cutoff = now - timedelta(days=retention_days)
    old = select(R.id).where(R.at < cutoff)
    conn.execute(delete(RIT).where(RI.retrieval_id.in_(old)))
    return int(conn.execute(delete(RT).where(R.at < cutoff)).rowcount or 0)


_live: weakref.WeakSet[Recorder] = weakref.WeakSet()


@atexit.register
def _flush_all() -> None:
    for rec in list(_live):
        rec.flush()


class Recorder:
    """A background writer for one engine: a thread started on demand, ended when idle."""

    def __init__(self, engine: Engine, retention_days: float | None = 90.0) -> None:
        self._writer = writer(engine)
        self._queue: queue.Queue[Job] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.retention_days = retention_days
        self.last_error: str | None = None
        # The failure as a store error (read-only, locked, full…), for a caller that
        # must report it; None after a write that worked.
        self.last_exception: Exception | None = None
        self._since_prune = PRUNE_EVERY  # prune on the first batch
        self._clock: Callable[[], datetime] | None = None

    def submit(self, job: Job, clock: Callable[[], datetime]) -> None:
        with self._lock:
            self._clock = clock
            self._queue.put(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memdesk-recorder",
                                                daemon=True)
                self._thread.start()
                _live.add(self)

    def flush(self) -> None:
        """Block until every submitted record is written."""
        self._queue.join()

    def _run(self) -> None:
        while True:
            try:
                first = self._queue.get(timeout=IDLE_EXIT_S)
            except queue.Empty:
                with self._lock:  # submit() holds it while queueing: no job is stranded
                    if self._queue.empty():
                        self._thread = None
                        return
                continue
            jobs: list[Job] = [first]
            while True:  # batch what queued up meanwhile into one transaction
                try:
                    jobs.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                with self._writer.begin() as conn:
                    for job in jobs:
                        job(conn)
                    self._since_prune += len(jobs)
                    if self._since_prune >= PRUNE_EVERY and self._clock is not None:
                        prune(conn, self._clock(), self.retention_days)
                        self._since_prune = 0
                self.last_error = None
                self.last_exception = None
            except Exception as exc:  # a record must never break an agent's retrieval
                # Translated: a driver error's text carries the SQL and its parameters,
                # i.e. the query and memory texts, which must never reach a log.
                mapped = as_store_error(exc, self._writer.url.render_as_string(hide_password=True))
                self.last_exception = mapped or exc
                self.last_error = (str(mapped) if mapped
                                   else f"{type(exc).__name__}: {safe_message(exc)}")
                log.warning("could not record a retrieval: %s", self.last_error)
            finally:
                for _ in jobs:
                    self._queue.task_done()


@dataclass(frozen=True)
class RecallEvent:
    """One retrieval that returned or injected a memory."""

    retrieval_id: str
    at: datetime
    user_id: str
    query: str
    kind: str
    rank: int
    score: float | None


@dataclass(frozen=True)
class RecallSummary:
    """How often and when a memory was recalled, from ``retrievals``."""

    count: int
    as_result: int
    as_preference: int
    first: datetime | None
    last: datetime | None
    recent: tuple[RecallEvent, ...]


def recall_summary(conn: Connection, memory_id: str, recent: int = 20) -> RecallSummary:
    """Which runs saw this memory (answers "why did the agent see this?")."""
    rows = conn.execute(
        select(RI.kind, func.count(), func.min(R.at), func.max(R.at))
        .select_from(RetrievalItem.__table__.join(Retrieval.__table__, R.id == RI.retrieval_id))
        .where(RI.memory_id == memory_id).group_by(RI.kind)
    ).all()
    by_kind = {r[0]: int(r[1]) for r in rows}
    firsts = [r[2] for r in rows if r[2] is not None]
    lasts = [r[3] for r in rows if r[3] is not None]
    events = conn.execute(
        select(R.id, R.at, R.user_id, R.query, RI.kind, RI.rank, RI.score)
        .select_from(RetrievalItem.__table__.join(Retrieval.__table__, R.id == RI.retrieval_id))
        .where(RI.memory_id == memory_id).order_by(desc(R.at)).limit(recent)
    ).all()
    return RecallSummary(
        count=sum(by_kind.values()), as_result=by_kind.get("result", 0),
        as_preference=by_kind.get("preference", 0),
        first=min(firsts) if firsts else None, last=max(lasts) if lasts else None,
        recent=tuple(RecallEvent(*e) for e in events),
    )


def recall_of(store: Any, memory_id: str) -> RecallSummary | None:
    """``recall_summary`` for one memory of ``store``; None when this store keeps no
    retrieval records (a store stamped while revision 0010 was an empty placeholder)."""
    from sqlalchemy.exc import DatabaseError

    try:
        with store.read() as conn:
            return recall_summary(conn, memory_id, recent=0)
    except DatabaseError:
        return None


def retrieval_record(conn: Connection, retrieval_id: str) -> dict[str, Any] | None:
    """A stored retrieval with its items, as JSON-safe data."""
    row = conn.execute(select(Retrieval.__table__).where(R.id == retrieval_id)).first()
    if row is None:
        return None
    items = conn.execute(select(RetrievalItem.__table__).where(RI.retrieval_id == retrieval_id)
                         .order_by(RI.kind, RI.rank)).all()
    m = row._mapping
    return {
        "id": m["id"], "at": m["at"].isoformat(), "user_id": m["user_id"],
        "query": m["query"], "channels": m["channels"].split(","), "k": m["k"],
        "injected": bool(m["injected"]), "duration_ms": m["duration_ms"],
        "dropped": json.loads(m["dropped"] or "[]"), "notes": json.loads(m["notes"] or "[]"),
        "items": [{k: it._mapping[k] for k in ("memory_id", "kind", "rank", "score",
                                               "fts_rank", "vector_rank", "graph_rank")}
                  for it in items],
    }
