"""Engine factory: the one place where the database driver is chosen and configured.

SQLite is opened in WAL mode with foreign keys on and a busy timeout, following
SQLAlchemy's documented pysqlite recipe: the driver's own transaction handling is
switched off and we emit BEGIN ourselves.  Write transactions use BEGIN IMMEDIATE,
because a deferred transaction that reads and later writes fails at once with
SQLITE_BUSY when another connection wrote in between, whatever the busy timeout.
No ``mmap_size``: memory-mapped I/O is unsafe with several writing processes.

The driver is ``pysqlite3`` (its wheels bundle a SQLite with the WAL-reset fix, see
docs/sqlite.md) where installed, else the standard library's ``sqlite3``.  Every
connection memdesk makes to a store file goes through :data:`DRIVER`, so one process
never mixes two SQLite libraries on one file (their POSIX locks would not see each
other).  ``MEMDESK_SQLITE_DRIVER=sqlite3`` forces the fallback (tests, diagnosis).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from urllib.parse import quote

import platformdirs
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url

BUSY_TIMEOUT_S = 10.0
WRITE_OPTION = "memdesk_write"
# The WAL file is truncated back to this size whenever it is reset (after a complete
# checkpoint); see core/store/wal.py for when that happens.
JOURNAL_SIZE_LIMIT = 16 * 1024 * 1024
# Above this WAL size a connection going back to the pool tries a truncating
# checkpoint (at most one attempt every 0.25 s per engine, waiting at most
# WAL_CHECKPOINT_BUSY_MS).
WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024
WAL_CHECKPOINT_BUSY_MS = 250


def _load_driver() -> tuple[ModuleType, str]:
    if os.environ.get("MEMDESK_SQLITE_DRIVER", "") != "sqlite3":
        try:
            from pysqlite3 import dbapi2  # type: ignore[import-not-found]

            return dbapi2, "pysqlite3"
        except ImportError:  # no wheel for this platform: the stdlib build
            pass
    return sqlite3, "sqlite3"


DRIVER, DRIVER_NAME = _load_driver()

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
        _check_backend(text)
        return text
    return "sqlite:///" + str(Path(text).expanduser().resolve())


def _check_backend(url: str) -> None:
    """Refuse a URL of a database memdesk cannot keep a store in, naming only its
    scheme (the rest may hold a password)."""
    from sqlalchemy.exc import ArgumentError

    from memdesk.core.errors import ValidationError

    scheme = url.split("://", 1)[0]
    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError:
        raise ValidationError("db", f"not a database URL or a file path (scheme "
                                    f"{scheme!r})") from None
    if backend not in ("sqlite", "postgresql"):
        raise ValidationError("db", f"memdesk keeps stores in SQLite files or PostgreSQL "
                                    f"(postgresql://…), not {scheme!r}")


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL, or None for other databases and :memory:."""
    u = make_url(url)
    if not u.get_backend_name().startswith("sqlite"):
        return None
    if not u.database or u.database == ":memory:":
        return None
    return Path(u.database)


def read_only_uri(path: Path) -> str:
    """A SQLite URI opening ``path`` read-only: the file is never written or created."""
    return "file:" + quote(str(path)) + "?mode=ro"


def connect_raw(path: Path, *, read_only: bool = True, timeout: float = BUSY_TIMEOUT_S):  # type: ignore[no-untyped-def]
    """A plain driver connection (autocommit), read-only unless asked; for checks and backups."""
    if read_only:
        conn = DRIVER.connect(read_only_uri(path), uri=True, timeout=timeout,
                              check_same_thread=False)
    else:
        conn = DRIVER.connect(str(path), timeout=timeout, check_same_thread=False)
    conn.isolation_level = None
    return conn


def make_engine(
    url: str, *, busy_timeout: float = BUSY_TIMEOUT_S, read_only: bool = False,
    keep_journal: bool = False,
) -> Engine:
    """Create the engine for ``url``; SQLite gets the concurrency settings above.

    ``read_only``: connections use ``mode=ro`` and change nothing (no journal mode
    switch): for stores not yet identified, damaged ones, and ones needing an upgrade.
    ``keep_journal``: writable, but the file keeps its journal mode (no switch to WAL):
    for migrating an older store, so a migration that fails and rolls back leaves the
    file byte-identical.
    """
    u = make_url(url)
    if u.get_backend_name() == "postgresql":
        return _postgres_engine(u)
    if not u.get_backend_name().startswith("sqlite"):
        return create_engine(u, pool_pre_ping=True)

    path = sqlite_path(url)
    kwargs: dict = {"module": DRIVER, "connect_args": {"timeout": busy_timeout}}
    if read_only and path is not None:
        kwargs["creator"] = lambda: DRIVER.connect(
            read_only_uri(path), uri=True, timeout=busy_timeout, check_same_thread=False
        )
    engine = create_engine(u, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        # Driver-level autocommit: pysqlite must not issue its own BEGINs.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        cur.execute("PRAGMA foreign_keys = ON")
        if path is not None and not read_only and not keep_journal:
            cur.execute("PRAGMA journal_mode = WAL")
            cur.execute("PRAGMA synchronous = NORMAL")
            cur.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
        cur.close()

    if path is not None and not read_only:
        _bound_wal(engine, path, busy_timeout)

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


def _bound_wal(engine: Engine, path: Path, busy_timeout: float) -> None:
    """Keep the WAL bounded under steady load from several processes.

    SQLite's automatic checkpoint is PASSIVE: while some reader is always inside
    the WAL it never reaches the end, the WAL never restarts, and the file grows
    without bound (221 MB against a 28 MB store in 20 s of 4 writers + 1 reader).
    So when a connection goes back to the pool (no transaction open) and the WAL is
    over WAL_CHECKPOINT_BYTES, it runs a TRUNCATE checkpoint that waits at most
    WAL_CHECKPOINT_BUSY_MS for readers to move to the newest snapshot, then resets
    the file.  One os.stat per check-in otherwise; at most one attempt every 0.25 s.
    """
    import time

    wal = str(path) + "-wal"
    state = {"next": 0.0}

    @event.listens_for(engine, "checkin")
    def _on_checkin(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
        if dbapi_conn is None:
            return
        now = time.monotonic()
        if now < state["next"]:
            return
        try:
            if os.stat(wal).st_size < WAL_CHECKPOINT_BYTES:
                return
        except OSError:
            return
        state["next"] = now + 0.25
        try:
            dbapi_conn.execute(f"PRAGMA busy_timeout = {WAL_CHECKPOINT_BUSY_MS}")
            dbapi_conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except DRIVER.Error:
            pass  # busy or read-only: the next check-in tries again
        finally:
            with contextlib.suppress(DRIVER.Error):
                dbapi_conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")


def writer(engine: Engine) -> Engine:
    """An engine view whose transactions start with BEGIN IMMEDIATE on SQLite."""
    return engine.execution_options(**{WRITE_OPTION: True})


@dataclass(frozen=True)
class SqliteInfo:
    """Which SQLite library runs, and whether it has the WAL-reset bug."""

    library_version: str
    wal_reset_bug: bool
    driver: str = DRIVER_NAME

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
    lib = DRIVER.sqlite_version
    version = tuple(int(p) for p in lib.split("."))
    return SqliteInfo(lib, (3, 7, 0) <= version < WAL_RESET_FIXED, DRIVER_NAME)
