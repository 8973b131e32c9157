"""SQL from "another tool": a plain driver connection to a test's store, either backend.

Tests use it to write what memdesk itself never would (dangling links, cycles) or to
check that the database, not just memdesk, refuses a write.  On PostgreSQL the
connection can skip foreign-key checks (``session_replication_role = replica``, as a
superuser's bulk tool may), which is how a dangling link gets there.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

try:  # the PostgreSQL half needs psycopg; the SQLite half must not
    import psycopg

    DatabaseError: tuple[type[Exception], ...] = (sqlite3.DatabaseError, psycopg.DatabaseError)
except ImportError:  # pragma: no cover - psycopg is in the test extra
    DatabaseError = (sqlite3.DatabaseError,)


def _is_pg(store_path: Path | str) -> bool:
    return str(store_path).startswith("postgresql")


def connect(store_path: Path | str, *, foreign_keys: bool = True) -> Any:
    """An autocommit DB-API connection; ``?`` placeholders work on both backends."""
    if not _is_pg(store_path):
        raw = sqlite3.connect(store_path, isolation_level=None)  # FKs off: SQLite's default
        return raw
    url = str(store_path).replace("postgresql+psycopg://", "postgresql://", 1)
    conn = psycopg.connect(url, autocommit=True)
    if not foreign_keys:
        conn.execute("SET session_replication_role = replica")
    return _QmarkConnection(conn)


class _QmarkConnection:
    """psycopg with SQLite's ``?`` placeholders, so one test's SQL runs on both."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def execute(self, sql: str, args: tuple = ()) -> Any:
        return self._conn.execute(sql.replace("?", "%s"), args)

    def close(self) -> None:
        self._conn.close()


def raw_sql(store_path: Path | str, sql: str, *args: Any) -> None:
    """Run one statement without foreign-key checks (another tool's write)."""
    raw = connect(store_path, foreign_keys=False)
    try:
        raw.execute(sql, args)
    finally:
        raw.close()


def sqlite_file(path: Path, *statements: str) -> Path:
    """``path`` after running ``statements`` on it with plain ``sqlite3`` and committing:
    another application's file, or a store changed behind memdesk's back."""
    conn = sqlite3.connect(path)
    try:
        for sql in statements:
            conn.execute(sql)
        conn.commit()
    finally:
        conn.close()
    return path
