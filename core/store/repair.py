"""``db check --repair``: rebuild the full-text index, after a backup, with a record.

Only the full-text index is repaired: it is derived data (FTS5 rebuilds it from the
``memories`` text), so rebuilding loses nothing.  A dropped full-text table or sync
trigger is re-created first, exactly as the migrations create it.  Damaged pages, table indexes or a
WAL holding changes SQLite would drop are not repaired here — those need a backup
(``memdesk db restore``) — and the repair refuses to touch such a store.

Every repair first takes a backup (reason ``pre-repair``), then rebuilds in one
write transaction (other programs may keep the store open: they wait for it), then
checks again.  It is logged (logger ``memdesk.store``) and recorded, one line each,
in ``repairs.log`` in the store's backups folder, next to the backup it took.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memdesk.core.store.backup import BackupError, backup_dir, backup_store
from memdesk.core.store.check import CheckReport, check_file
from memdesk.core.store.db import BUSY_TIMEOUT_S, DRIVER, connect_raw

log = logging.getLogger("memdesk.store")
FTS_MARKS = ("full-text index", "fts5")


# A full-text table or one of its triggers dropped (core/store/schemacheck.py): the
# repair re-creates them as the migrations do, then rebuilds.
_FTS_MISSING = re.compile(r"^schema (table|trigger) (memories_fts(_ai|_ad|_au)?) is missing")


def is_fts_problem(problem: str) -> bool:
    return (any(mark in problem.lower() for mark in FTS_MARKS)
            or _FTS_MISSING.match(problem) is not None)


def _recreate_missing(conn: sqlite3.Connection, problems: tuple[str, ...]) -> list[str]:
    """Re-create the full-text table and sync triggers the check found missing."""
    from memdesk.core.store.migrations.versions.m0002_memdesk_v1 import FTS_TRIGGERS
    from memdesk.core.store.migrations.versions.m0007_fts_prefix_index import FTS_TABLE

    missing = {m.group(2) for p in problems if (m := _FTS_MISSING.match(p))}
    made = []
    if "memories_fts" in missing:
        conn.execute(FTS_TABLE)
        made.append("memories_fts")
    for stmt in FTS_TRIGGERS:
        name = stmt.split()[2]
        if name in missing:
            conn.execute(stmt)
            made.append(name)
    return made


@dataclass(frozen=True)
class RepairReport:
    """What the repair found, did and found afterwards."""

    before: CheckReport
    after: CheckReport
    rebuilt: tuple[str, ...]  # the full-text indexes rebuilt
    backup: Path | None


def repair(path: Path) -> RepairReport:
    """Rebuild ``path``'s full-text indexes when the check says only they are damaged."""
    before = check_file(path, level="full")
    if before.ok:
        return RepairReport(before, before, (), None)
    other = [p for p in before.problems if not is_fts_problem(p)]
    if other:
        raise BackupError(
            "Only a damaged full-text index can be repaired; this store has other damage "
            f"({'; '.join(other[:3])}). Nothing was changed. Restore a backup "
            "(`memdesk db backups`, `memdesk db restore`).")
    info = backup_store(path, reason="pre-repair")
    conn = connect_raw(path, read_only=False)
    rebuilt: list[str] = []
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%USING fts5%'")]
        conn.execute("BEGIN IMMEDIATE")
        try:
            made = _recreate_missing(conn, before.problems)
            if "memories_fts" in made:
                tables.append("memories_fts")
            for name in tables:
                conn.execute(f"INSERT INTO \"{name}\"(\"{name}\") VALUES ('rebuild')")
                rebuilt.append(name)
            rebuilt += [f"re-created {m}" for m in made if m != "memories_fts"]
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except DRIVER.Error as exc:
        raise BackupError(
            f"Rebuilding the full-text index failed ({exc}); the store is as it was. "
            f"A backup was taken first: {info.path}") from exc
    finally:
        conn.close()
    after = check_file(path, level="full")
    _record(path, f"rebuilt full-text index {', '.join(rebuilt)}; backup first: {info.path}; "
                  f"found: {'; '.join(before.problems[:3])}; after: {after.summary()}")
    return RepairReport(before, after, tuple(rebuilt), info.path)


def _record(path: Path, text: str) -> None:
    log.warning("repair of %s: %s", path, text)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        folder = backup_dir(path)
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "repairs.log").open("a", encoding="utf-8") as fh:
            fh.write(f"{stamp} {text}\n")
    except OSError as exc:  # the repair is done; the log line above still says so
        log.warning("could not write repairs.log: %s", exc)
