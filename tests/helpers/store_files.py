"""Real store files built fast: a copy of one empty store (made once per process) with
rows and planted changes, for tests that need many small stores.

A file merely shaped like a store (a version table and a ``memories`` table) is not a
memdesk store: memdesk identifies its stores by their application id and schema, so
tests of backups, restores and opening start from the real thing.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from memdesk.core.store.db import connect_raw
from memdesk.core.store.memory_store import MemoryStore


@lru_cache(maxsize=1)
def _template() -> Path:
    path = Path(tempfile.mkdtemp(prefix="memdesk-template-")) / "empty.db"
    MemoryStore.open(path).close()
    c = connect_raw(path, read_only=False)
    try:  # a single file, as the tests' raw files were: no -wal beside each copy
        c.execute("PRAGMA journal_mode = DELETE")
    finally:
        c.close()
    return path


def real_store_file(path: Path, *sql: str | Callable[[Path], None], rows: int = 3,
                    revision: str | None = None) -> Path:
    """A store at ``path`` holding ``rows`` memories with texts m0, m1…, its version
    table set to ``revision`` when given, then ``sql`` run (a callable gets the path)."""
    shutil.copyfile(_template(), path)
    c = connect_raw(path, read_only=False)
    try:
        c.execute("BEGIN")
        c.executemany(
            "INSERT INTO memories(id, user_id, text, type, created_at) "
            "VALUES (?, 'u', ?, 'fact', '2026-01-01 00:00:00.000000')",
            [(f"id{n}", f"m{n}") for n in range(rows)])
        if revision is not None:
            c.execute("UPDATE alembic_version SET version_num = ?", (revision,))
        c.execute("COMMIT")
    finally:
        c.close()
    c = connect_raw(path, read_only=False)
    try:
        for step in sql:
            if callable(step):
                step(path)
            else:
                c.execute(step)
    finally:
        c.close()
    return path


def null_in_not_null_column(path: Path) -> None:
    """Damage ``quick_check`` sees: a row holding NULL in ``memories.text`` (NOT NULL),
    written while the declaration was briefly edited away."""
    def schema_sql(old: str, new: str) -> None:
        c = connect_raw(path, read_only=False)
        try:
            version = int(c.execute("PRAGMA schema_version").fetchone()[0])
            c.execute("PRAGMA writable_schema = ON")
            c.execute("UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = 'memories'",
                      (old, new))
            c.execute(f"PRAGMA schema_version = {version + 1}")
        finally:
            c.close()

    schema_sql("text TEXT NOT NULL", "text TEXT")
    c = connect_raw(path, read_only=False)
    try:
        c.execute("INSERT INTO memories(id, user_id, text, type, created_at) "
                  "VALUES ('nul', 'u', NULL, 'fact', '2026-01-01 00:00:00.000000')")
    finally:
        c.close()
    schema_sql("text TEXT,", "text TEXT NOT NULL,")
