"""The MCP server's access log: one row per tool call, written off the call path.

Writes were already audited (``memory_events``, ``job_origins.token``); reads were not,
so an operator could not tell which token read whose memories.  Every tool call now
leaves a row in ``mcp_access``: when, who (the bearer token's name, ``local`` without
one), the transport, the tool, the user it acted for, how many memories it returned or
changed, the outcome (``ok``, ``refused``, ``paused``, ``error``) and how long it took.

Why its own table and not ``memory_events``: a read changes nothing, so it has no place
in a memory's history or in undo; and the snapshot cache and the desk's audit views
walk ``memory_events`` by id range, which a row per read would make grow with every
recall (an agent retrieves before every answer).

Cheap on the call path: :meth:`AccessLog.record` appends to a list under a lock (no
I/O); a background thread writes what accumulated in one transaction about once a
second (a hundred calls are one INSERT of a hundred rows), and prunes rows older than
the retention now and then.  A store that cannot be written (locked, read-only) never
fails a call: the rows wait for the next round, at most :data:`MAX_PENDING` of them
(the oldest are dropped, counted and logged, beyond that).
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Table, delete, func, insert, select

from memdesk.core.errors import MemdeskError
from memdesk.core.guard.models import McpAccess
from memdesk.core.ids import utcnow

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore

log = logging.getLogger(__name__)
# Declarative types __table__ as a FromClause; this model maps a plain Table.
AT = cast(Table, McpAccess.__table__)
A = AT.c
FLUSH_S = 1.0
MAX_PENDING = 100_000
PRUNE_EVERY_S = 3600.0
# "paused": refused because the operator paused the caller's token (core/guard/tokens.py).
OUTCOMES = ("ok", "refused", "paused", "error")


def retention_days(default: float = 30.0) -> float:
    """How long rows are kept (``MEMDESK_MCP_ACCESS_DAYS``; 30 days by default)."""
    try:
        value = float(os.environ.get("MEMDESK_MCP_ACCESS_DAYS", default))
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass(frozen=True)
class Access:
    """One tool call as the operator sees it."""

    at: datetime
    caller: str
    transport: str
    tool: str
    user_id: str | None
    results: int | None
    outcome: str
    ms: float | None

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at.isoformat(), "caller": self.caller,
                "transport": self.transport, "tool": self.tool, "user_id": self.user_id,
                "results": self.results, "outcome": self.outcome,
                "ms": None if self.ms is None else round(self.ms, 2)}


@dataclass(frozen=True)
class Usage:
    """One caller's use of the server: its last call, and its calls in the last 24
    hours (how many of them were refused, a paused token's refusals included)."""

    caller: str
    last_at: datetime | None
    day: int
    day_refused: int

    def to_json(self) -> dict[str, Any]:
        return {"caller": self.caller,
                "last_at": self.last_at.isoformat() if self.last_at else None,
                "calls_24h": self.day, "refused_24h": self.day_refused}


class AccessLog:
    """A batched, background writer of access rows for one store."""

    def __init__(self, store: MemoryStore, *, flush_s: float = FLUSH_S,
                 keep_days: float | None = None) -> None:
        self.store = store
        self.flush_s = flush_s
        self.keep_days = keep_days if keep_days is not None else retention_days()
        self.dropped = 0
        self._pending: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()  # one writer at a time (thread or flush())
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._pruned_at = 0.0
        self._thread: threading.Thread | None = None

    def record(self, *, caller: str, transport: str, tool: str, user_id: str | None,
               results: int | None, outcome: str, ms: float | None,
               at: datetime | None = None) -> None:
        """Queue one call's row (no I/O here)."""
        row = {"at": at or utcnow(), "caller": caller[:64], "transport": transport[:32],
               "tool": tool[:64], "user_id": user_id[:200] if user_id else None,
               "results": results, "outcome": outcome, "ms": ms}
        with self._lock:
            self._pending.append(row)
            if len(self._pending) > MAX_PENDING:
                over = len(self._pending) - MAX_PENDING
                del self._pending[:over]
                self.dropped += over
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="memdesk-mcp-access",
                                                daemon=True)
                self._thread.start()

    def flush(self) -> bool:
        """Write every queued row now; whether they were written."""
        with self._write_lock:
            with self._lock:
                rows, self._pending = self._pending, []
            if not rows:
                return True
            try:
                with self.store.write() as conn:
                    conn.execute(insert(AT), rows)
                    self._maybe_prune(conn)
            except MemdeskError as exc:  # locked or read-only: keep them for the next round
                log.warning("access log not written yet (%d rows wait): %s", len(rows), exc)
                with self._lock:
                    self._pending[:0] = rows
                return False
            if self.dropped:
                log.warning("access log: %d rows were dropped while the store could not "
                            "be written", self.dropped)
                self.dropped = 0
            return True

    def close(self) -> None:
        """Stop the writer and write what is left."""
        self._stop.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(10)
        self.flush()

    def _maybe_prune(self, conn: Connection) -> None:
        import time

        if time.monotonic() - self._pruned_at < PRUNE_EVERY_S:
            return
        self._pruned_at = time.monotonic()
        cutoff = utcnow() - timedelta(days=self.keep_days)
        conn.execute(delete(AT).where(A.at < cutoff))

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.flush_s)
            try:
                self.flush()
            except Exception:  # a log must never end the server; the rows are kept
                log.exception("access log writer failed")


def usage(store: MemoryStore, callers: list[str], now: datetime | None = None) -> dict[str, Usage]:
    """These callers' last call and last day's counts.  Index seeks per caller, so the
    cost follows the number of tokens and of the day's calls, not the log's size."""
    day = (now or utcnow()) - timedelta(days=1)
    out: dict[str, Usage] = {}
    with store.read() as conn:
        for c in callers:
            last = conn.execute(select(func.max(A.at)).where(A.caller == c)).scalar()
            counts = conn.execute(
                select(A.outcome, func.count()).where(A.caller == c, A.at >= day)
                .group_by(A.outcome)).all() if last is not None and last >= day else []
            by = {o: int(n) for o, n in counts}
            out[c] = Usage(c, last, sum(by.values()),
                           by.get("refused", 0) + by.get("paused", 0))
    return out


def recent_calls(store: MemoryStore, caller: str | None = None, limit: int = 200) -> list[Access]:
    """The latest calls, newest first (one caller's, or everyone's)."""
    q = select(A.at, A.caller, A.transport, A.tool, A.user_id, A.results, A.outcome, A.ms)
    if caller is not None:
        q = q.where(A.caller == caller)
    q = q.order_by(A.at.desc(), A.id.desc()).limit(max(1, min(limit, 10_000)))
    with store.read() as conn:
        return [Access(*r) for r in conn.execute(q).all()]
