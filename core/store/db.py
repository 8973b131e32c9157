"""Engine factory: the one place where the database driver is chosen and configured.

SQLite is opened in WAL mode with foreign keys on and a busy timeout, following
SQLAlchemy's documented pysqlite recipe: the driver's own transaction handling is
switched off and we emit BEGIN ourselves.  Write transactions use BEGIN IMMEDIATE,
because a deferred transaction that reads and later writes fails at once with
SQLITE_BUSY when another connection wrote in between, whatever the busy timeout.
No ``mmap_size``: memory-mapped I/O is unsafe with several writing processes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import platformdirs
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url

BUSY_TIMEOUT_S = 10.0
WRITE_OPTION = "memdesk_write"

# SQLite's WAL-reset bug (two connections writing/checkpointing the same WAL
# file can corrupt it) affects 3.7.0 through 3.51.2; fixed in 3.51.3.
WAL_RESET_FIXED = (3, 51, 3)


def default_store_path() -> Path:
    """The embedded default: a SQLite file in the user's data dir."""
    return Path(platformdirs.user_data_dir("memdesk", appauthor=False)) / "memories.db"


def to_url(db: str | Path | None) -> str:
    """Accept a SQLAlchemy URL or a plain file path; None means the default store."""
    if db is None:
        db = default_store_path()
    text = str(db)
    if "://" in text:
        return text
    return "sqlite:///" + str(Path(text).expanduser().resolve())


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL, or None for other databases and :memory:."""
    u = make_url(url)
    if not u.get_backend_name().startswith("sqlite"):
        return None
    if not u.database or u.database == ":memory:":
        return None
    return Path(u.database)


def make_engine(url: str, *, busy_timeout: float = BUSY_TIMEOUT_S) -> Engine:
    """Create the engine for ``url``; SQLite gets the concurrency settings above."""
    u = make_url(url)
    if u.get_backend_name() == "postgresql":
        return _postgres_engine(u)
    if not u.get_backend_name().startswith("sqlite"):
        return create_engine(u, pool_pre_ping=True)

    engine = create_engine(u, connect_args={"timeout": busy_timeout})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        # Driver-level autocommit: pysqlite must not issue its own BEGINs.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        cur.execute("PRAGMA foreign_keys = ON")
        if sqlite_path(url) is not None:
            cur.execute("PRAGMA journal_mode = WAL")
            cur.execute("PRAGMA synchronous = NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:  # type: ignore[no-untyped-def]
        if conn.get_execution_options().get(WRITE_OPTION):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")

    return engine


def display_url(url: str) -> str:
    """``url`` as messages show it: a password in a server URL is masked."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL at all: nothing to hide
        return url


def _postgres_engine(u: URL) -> Engine:
    """PostgreSQL through psycopg 3 (the ``postgres`` extra).

    A bare ``postgresql://`` URL means psycopg here, not SQLAlchemy's default psycopg2,
    which memdesk does not install.  No BEGIN IMMEDIATE equivalent is needed: row locks
    and ``SELECT … FOR UPDATE`` serialise writers, and the job queue's claim skips
    locked rows.
    """
    from memdesk.core.errors import StoreOpenError

    if u.drivername == "postgresql":
        u = u.set(drivername="postgresql+psycopg")
    try:
        return create_engine(u, pool_pre_ping=True)
    except ImportError as exc:
        raise StoreOpenError(
            "Opening a PostgreSQL store needs the psycopg driver: "
            "pip install 'memdesk[postgres]'."
        ) from exc


def writer(engine: Engine) -> Engine:
    """An engine view whose transactions start with BEGIN IMMEDIATE on SQLite."""
    return engine.execution_options(**{WRITE_OPTION: True})


@dataclass(frozen=True)
class SqliteInfo:
    library_version: str
    wal_reset_bug: bool

    @property
    def warning(self) -> str | None:
        if not self.wal_reset_bug:
            return None
        return (
            f"SQLite {self.library_version} is inside the WAL-reset bug range "
            "(3.7.0 to 3.51.2, fixed in 3.51.3). Several processes writing the same "
            "store can, rarely, corrupt it; keep backups or use a newer SQLite."
        )


def sqlite_info() -> SqliteInfo:
    version = tuple(int(p) for p in sqlite3.sqlite_version.split("."))
    return SqliteInfo(sqlite3.sqlite_version, (3, 7, 0) <= version < WAL_RESET_FIXED)
