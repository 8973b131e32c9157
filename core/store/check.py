"""Damage detection: SQLite's own checks, bounded in time, on a read-only connection.

On open a store gets ``PRAGMA integrity_check`` when it is small (it also compares
every index with its table, which is where most flipped bytes show) and the cheaper
``PRAGMA quick_check`` under a time budget when it is large; a check cut short by
the budget says so (``complete=False``) rather than pretending.  Every check of a
file also reads its WAL (core/store/walcheck.py): committed changes SQLite would drop
are damage, reported before anything opens the store read-write.

``db check`` and File → Check store run everything with no budget: ``integrity_check``,
``foreign_key_check`` and FTS5's own ``integrity-check``.  FTS5's check is an INSERT
(a command, not a row) that a read-only connection refuses, and the store itself must
not be opened read-write by a check (that would discard a damaged WAL's frames).  So
it runs on a private copy made with SQLite's backup API (a consistent snapshot, even
while others write), with ``rank = 1``: for an external-content index that also
compares the index with the ``memories`` text, which is how text changed behind the
index ("stale") shows.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.store.db import DRIVER, connect_raw
from memdesk.core.store.schemacheck import schema_problems
from memdesk.core.store.walcheck import wal_problems

# Below this size the full integrity_check runs on every open (tens of ms per MB).
FULL_CHECK_ON_OPEN_BYTES = 48 * 1024 * 1024
OPEN_CHECK_BUDGET_S = 1.0
MAX_PROBLEMS = 20


@dataclass(frozen=True)
class CheckReport:
    """The outcome of one check: problems found (empty: none) and how far it got."""

    level: str  # "quick", "integrity" or "full"
    problems: tuple[str, ...] = ()
    complete: bool = True
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def damaged(self) -> bool:
        return bool(self.problems)

    def summary(self) -> str:
        if self.problems:
            shown = "; ".join(self.problems[:5])
            more = f" (and {len(self.problems) - 5} more)" if len(self.problems) > 5 else ""
            return f"the store is damaged: {shown}{more}"
        if not self.complete:
            why = self.notes[0] if self.notes else f"{self.level} check cut short"
            return f"no damage found in the part checked ({why})"
        return f"no damage found ({self.level} check)"


class _Deadline:
    """A progress handler that interrupts SQLite when the budget is spent."""

    def __init__(self, budget_s: float | None) -> None:
        self.until = None if budget_s is None else time.monotonic() + budget_s
        self.hit = False

    def __call__(self) -> int:
        if self.until is not None and time.monotonic() > self.until:
            self.hit = True
            return 1
        return 0


# Connections here are plain driver connections (db.connect_raw): sqlite3's, or
# pysqlite3's, which have the same interface.
def _pragma_rows(conn: sqlite3.Connection, sql: str, deadline: _Deadline) -> list[str] | None:
    """Rows of a checking PRAGMA as text; None when the deadline interrupted it."""
    conn.set_progress_handler(deadline, 2000)
    try:
        return [" ".join(str(c) for c in row) for row in conn.execute(sql).fetchall()]
    except DRIVER.OperationalError as exc:
        if deadline.hit or "interrupt" in str(exc).lower():
            return None
        raise
    finally:
        conn.set_progress_handler(None, 0)


def check_connection(conn: sqlite3.Connection, *, level: str,
                     budget_s: float | None = None, schema: bool = True) -> CheckReport:
    """Run the checks of ``level`` on a raw driver connection (read-only is enough).

    ``schema``: compare the schema objects with the revision's too (a backup's copy
    check does not: a faithful copy of a store missing a trigger is still faithful)."""
    start = time.monotonic()
    deadline = _Deadline(budget_s)
    problems: list[str] = []
    complete = True
    try:
        pragma = "quick_check" if level == "quick" else "integrity_check"
        rows = _pragma_rows(conn, f"PRAGMA {pragma}({MAX_PROBLEMS})", deadline)
        if rows is None:
            complete = False
        else:
            problems += [r for r in rows if r != "ok"]
            if schema and not problems:  # a damaged schema table cannot be compared
                problems += schema_problems(conn)
        if level == "full" and complete:
            fk = _pragma_rows(conn, "PRAGMA foreign_key_check", deadline) or []
            problems += [f"foreign key broken: {r}" for r in fk[:MAX_PROBLEMS]]
            problems += _fts_check(conn)
    except DRIVER.DatabaseError as exc:
        problems.append(str(exc))
    return CheckReport(level, tuple(problems), complete, time.monotonic() - start)


def _fts_check(conn: sqlite3.Connection) -> list[str]:
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%USING fts5%'"
    )]
    out: list[str] = []
    for name in tables:
        try:
            # FTS5's check writes nothing (the INSERT is a command, not a row) but
            # still needs a writable connection; run it in a savepoint and roll back.
            conn.execute("SAVEPOINT fts_check")
            try:
                # rank = 1: an external-content index is compared with its table too.
                conn.execute(f"INSERT INTO \"{name}\"(\"{name}\", rank) "
                             "VALUES ('integrity-check', 1)")
            finally:
                conn.execute("ROLLBACK TO fts_check")
                conn.execute("RELEASE fts_check")
        except DRIVER.OperationalError as exc:
            if "readonly" in str(exc).lower() or "read-only" in str(exc).lower():
                continue  # a read-only connection: integrity_check covers FTS5 already
            out.append(f"full-text index {name}: {exc}")
        except DRIVER.DatabaseError as exc:
            out.append(f"full-text index {name}: {exc}")
    return out


class CopyFailed(Exception):
    """The private copy for FTS5's check could not be made (no room, no folder)."""


def fts_check_on_copy(conn: sqlite3.Connection) -> list[str]:
    """FTS5's integrity check on a private copy of the database behind ``conn``.

    Raises :class:`CopyFailed` when the copy cannot be written: that says nothing
    about the store (a temp folder too small for it), so it is not damage."""
    try:
        with tempfile.TemporaryDirectory(prefix="memdesk-check-") as tmp:
            copy = DRIVER.connect(str(Path(tmp) / "copy.db"), check_same_thread=False)
            try:
                copy.isolation_level = None
                try:
                    conn.backup(copy)
                except DRIVER.Error as exc:
                    raise CopyFailed(str(exc)) from exc
                return _fts_check(copy)
            finally:
                copy.close()
    except OSError as exc:
        raise CopyFailed(exc.strerror or str(exc)) from exc


def check_file(path: Path, *, level: str = "full", budget_s: float | None = None) -> CheckReport:
    """Check the store file at ``path`` without writing to it (its WAL included)."""
    start = time.monotonic()
    wal = wal_problems(path)  # before any connection: SQLite reads the WAL on open
    try:
        conn = connect_raw(path, read_only=True)
    except DRIVER.Error as exc:
        return CheckReport(level, (*wal, f"cannot open: {exc}"))
    notes: list[str] = []
    try:
        report = check_connection(conn, level=level, budget_s=budget_s)
        problems = [*wal, *report.problems]
        complete = report.complete
        if level == "full" and report.complete and not report.problems:
            try:
                problems += fts_check_on_copy(conn)
            except CopyFailed as exc:
                complete = False
                notes.append(
                    f"the full-text index was not checked: its check runs on a copy of the "
                    f"store in the temp folder ({tempfile.gettempdir()}), which could not be "
                    f"written ({exc}); set TMPDIR to a folder with room and check again")
    finally:
        conn.close()
    return CheckReport(level, tuple(problems), complete, time.monotonic() - start,
                       tuple(notes))


def open_check(conn: sqlite3.Connection, path: Path,
               budget_s: float | None = OPEN_CHECK_BUDGET_S) -> CheckReport:
    """The check every open runs: full integrity on small stores, bounded quick_check else."""
    size = path.stat().st_size
    level = "integrity" if size <= FULL_CHECK_ON_OPEN_BYTES else "quick"
    report = check_connection(conn, level=level, budget_s=budget_s)
    wal = wal_problems(path)  # the open that follows would make a WAL's loss permanent
    if not wal:
        return report
    return CheckReport(report.level, (*wal, *report.problems), report.complete, report.seconds)
