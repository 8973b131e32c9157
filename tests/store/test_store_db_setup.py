"""core/store/db.py: URLs and paths, the driver choice, connection pragmas, BEGIN IMMEDIATE,
the WAL bound on check-in, and the WAL-reset warning.

Expected pragma values come from the module's constants and docstring (WAL, synchronous
NORMAL, foreign keys on, busy timeout in ms, journal_size_limit 16 MiB).
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

import platformdirs
import pytest

from memdesk.core.store import db
from memdesk.core.store.db import (
    DRIVER,
    SqliteInfo,
    connect_raw,
    display_url,
    make_engine,
    read_only_uri,
    sqlite_path,
    to_url,
    writer,
)


def _pragmas(engine) -> dict[str, object]:  # type: ignore[no-untyped-def]
    with engine.connect() as c:
        return {p: c.exec_driver_sql(f"PRAGMA {p}").scalar()
                for p in ("busy_timeout", "foreign_keys", "journal_mode", "synchronous",
                          "journal_size_limit")}


# --- URLs and paths --------------------------------------------------------------------


def test_default_store_path() -> None:
    p = db.default_store_path()
    assert p == Path(platformdirs.user_data_dir("memdesk", appauthor=False)) / "memories.db"


def test_to_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert to_url("postgresql://u@h/db") == "postgresql://u@h/db"
    assert to_url("sqlite:///x.db") == "sqlite:///x.db"
    assert to_url("a.db") == f"sqlite:///{tmp_path.resolve() / 'a.db'}"
    assert to_url(tmp_path / "sub" / ".." / "b.db") == f"sqlite:///{tmp_path.resolve() / 'b.db'}"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert to_url("~/c.db") == f"sqlite:///{tmp_path.resolve() / 'c.db'}"
    assert to_url(None) == f"sqlite:///{db.default_store_path().expanduser().resolve()}"


def test_sqlite_path() -> None:
    assert sqlite_path("sqlite:////data/s.db") == Path("/data/s.db")
    assert sqlite_path("sqlite+pysqlite:////data/s.db") == Path("/data/s.db")
    assert sqlite_path("sqlite://") is None
    assert sqlite_path("sqlite:///:memory:") is None
    assert sqlite_path("postgresql://u@h/s.db") is None


def test_read_only_uri_quotes_the_path() -> None:
    assert read_only_uri(Path("/data/a b#c?.db")) == "file:/data/a%20b%23c%3F.db?mode=ro"


def test_display_url_masks_passwords() -> None:
    assert display_url("postgresql://u:secret@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert display_url("sqlite:////data/s.db") == "sqlite:////data/s.db"
    assert display_url("not a url at all") == "not a url at all"


# --- the driver -------------------------------------------------------------------------


def _driver_in_a_new_process(**env: str) -> str:
    """The driver a fresh interpreter's store uses (chosen once, at import)."""
    import os
    import subprocess
    import sys

    environ = {k: v for k, v in os.environ.items() if k != "MEMDESK_SQLITE_DRIVER"}
    out = subprocess.run(
        [sys.executable, "-c", "from memdesk.core.store.db import sqlite_info; "
         "print(sqlite_info().driver)"],
        env={**environ, **env}, capture_output=True, text=True, check=True, timeout=60)
    return out.stdout.strip()


def test_driver_choice() -> None:
    assert _driver_in_a_new_process(MEMDESK_SQLITE_DRIVER="sqlite3") == "sqlite3"
    pytest.importorskip("pysqlite3.dbapi2")
    assert _driver_in_a_new_process() == "pysqlite3"
    assert _driver_in_a_new_process(MEMDESK_SQLITE_DRIVER="other") == "pysqlite3"


@pytest.mark.parametrize(("version", "bug"), [
    ("3.6.23", False), ("3.7.0", True), ("3.40.1", True), ("3.51.2", True),
    ("3.51.3", False), ("3.53.4", False), ("4.0.0", False),
])
def test_wal_reset_bug_range(monkeypatch: pytest.MonkeyPatch, version: str, bug: bool) -> None:
    monkeypatch.setattr(db, "DRIVER", SimpleNamespace(sqlite_version=version))
    info = db.sqlite_info()
    assert info == SqliteInfo(version, bug, db.DRIVER_NAME)


def test_wal_reset_warning_text() -> None:
    assert SqliteInfo("3.40.1", False).warning is None
    assert SqliteInfo("3.40.1", True).warning == (
        "SQLite 3.40.1 is inside the WAL-reset bug range (3.7.0 to 3.51.2, fixed in 3.51.3). "
        "Several processes writing the same store can, rarely, corrupt it; keep backups or "
        "use a newer SQLite.")
    assert SqliteInfo("3.40.1", True).driver == db.DRIVER_NAME


# --- raw connections ---------------------------------------------------------------------


def test_connect_raw_read_only_never_creates_or_writes(tmp_path: Path) -> None:
    p = tmp_path / "s.db"
    with pytest.raises(DRIVER.OperationalError):
        connect_raw(p).execute("SELECT 1 FROM sqlite_master").fetchall()
    assert not p.exists()
    w = connect_raw(p, read_only=False)
    assert w.isolation_level is None
    w.execute("CREATE TABLE t(x)")
    assert w.in_transaction is False  # autocommit: no implicit BEGIN left open
    w.close()
    r = connect_raw(p)
    assert r.isolation_level is None
    with pytest.raises(DRIVER.OperationalError) as ei:
        r.execute("INSERT INTO t VALUES (1)")
    assert str(ei.value) == "attempt to write a readonly database"
    out: list = []
    t = threading.Thread(target=lambda: out.append(r.execute("SELECT count(*) FROM t").fetchone()))
    t.start()
    t.join()
    assert out == [(0,)]  # usable from another thread
    r.close()


# --- engines ---------------------------------------------------------------------------


def test_file_engine_pragmas(tmp_path: Path) -> None:
    eng = make_engine(f"sqlite:///{tmp_path / 's.db'}", busy_timeout=2.5)
    try:
        assert _pragmas(eng) == {"busy_timeout": 2500, "foreign_keys": 1, "journal_mode": "wal",
                                 "synchronous": 1, "journal_size_limit": 16 * 1024 * 1024}
        with eng.connect() as c:
            assert c.connection.dbapi_connection.isolation_level is None
    finally:
        eng.dispose()


def test_default_busy_timeout_is_ten_seconds(tmp_path: Path) -> None:
    eng = make_engine(f"sqlite:///{tmp_path / 's.db'}")
    try:
        assert _pragmas(eng)["busy_timeout"] == 10_000
    finally:
        eng.dispose()


def test_memory_engine_keeps_its_journal(tmp_path: Path) -> None:
    eng = make_engine("sqlite://")
    try:
        got = _pragmas(eng)
        assert (got["journal_mode"], got["foreign_keys"], got["busy_timeout"]) == \
            ("memory", 1, 10_000)
        assert got["synchronous"] == 2  # SQLite's default FULL: not switched
    finally:
        eng.dispose()


def test_read_only_engine_changes_nothing(tmp_path: Path) -> None:
    p = tmp_path / "s.db"
    c = connect_raw(p, read_only=False)
    c.execute("CREATE TABLE t(x)")
    c.close()
    before = p.read_bytes()
    eng = make_engine(f"sqlite:///{p}", read_only=True, busy_timeout=1.0)
    try:
        got = _pragmas(eng)
        assert (got["journal_mode"], got["foreign_keys"], got["busy_timeout"]) == \
            ("delete", 1, 1000)
        with pytest.raises(Exception) as ei, eng.begin() as conn:
            conn.exec_driver_sql("INSERT INTO t VALUES (1)")
        assert "attempt to write a readonly database" in str(ei.value)
    finally:
        eng.dispose()
    assert p.read_bytes() == before
    assert not Path(f"{p}-wal").exists()


def test_writer_begins_immediate(tmp_path: Path) -> None:
    p = tmp_path / "s.db"
    eng = make_engine(f"sqlite:///{p}")
    other = connect_raw(p, read_only=False, timeout=0)
    try:
        with eng.begin() as c:  # deferred: takes no lock until it writes
            c.exec_driver_sql("SELECT 1").fetchall()
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
        with writer(eng).begin() as c:
            c.exec_driver_sql("SELECT 1").fetchall()
            with pytest.raises(DRIVER.OperationalError) as ei:
                other.execute("BEGIN IMMEDIATE")
            assert str(ei.value) == "database is locked"
    finally:
        other.close()
        eng.dispose()


def test_big_wal_is_truncated_when_a_connection_goes_back(tmp_path: Path) -> None:
    p = tmp_path / "s.db"
    eng = make_engine(f"sqlite:///{p}", busy_timeout=3.0)
    try:
        with writer(eng).begin() as c:
            c.exec_driver_sql("CREATE TABLE t(x)")
            c.exec_driver_sql("INSERT INTO t VALUES (zeroblob(5 * 1024 * 1024))")
        # Check-in of the connection: the WAL (> 4 MiB) was checkpointed and truncated.
        assert Path(f"{p}-wal").stat().st_size == 0
        # The connection's own busy timeout is back after the short checkpoint one.
        assert _pragmas(eng)["busy_timeout"] == 3000
    finally:
        eng.dispose()


def test_small_wal_is_left_alone(tmp_path: Path) -> None:
    p = tmp_path / "s.db"
    eng = make_engine(f"sqlite:///{p}")
    try:
        with writer(eng).begin() as c:
            c.exec_driver_sql("CREATE TABLE t(x)")
            c.exec_driver_sql("INSERT INTO t VALUES (zeroblob(10000))")
        assert Path(f"{p}-wal").stat().st_size > 10000
    finally:
        eng.dispose()


def test_first_big_wal_is_truncated_whatever_the_clock_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # time.monotonic's reference point is undefined (Python docs): a clock that reads
    # 0.0 at the first check-in is legal, and that check-in must still checkpoint.  Later
    # attempts are spaced out (at most one every 0.25 s), so
    # a second big WAL 0.1 s later waits and one 1.5 s later is truncated.
    now = [0.0]
    monkeypatch.setattr("time.monotonic", lambda: now[0])
    p = tmp_path / "s.db"
    wal = Path(f"{p}-wal")
    eng = make_engine(f"sqlite:///{p}")
    try:
        with writer(eng).begin() as c:
            c.exec_driver_sql("CREATE TABLE t(x)")
            c.exec_driver_sql("INSERT INTO t VALUES (zeroblob(5 * 1024 * 1024))")
        assert wal.stat().st_size == 0
        now[0] = 0.1
        with writer(eng).begin() as c:
            c.exec_driver_sql("INSERT INTO t VALUES (zeroblob(5 * 1024 * 1024))")
        assert wal.stat().st_size > db.WAL_CHECKPOINT_BYTES
        now[0] = 1.5
        with eng.connect() as c:
            c.exec_driver_sql("SELECT 1").fetchall()
        assert wal.stat().st_size == 0
    finally:
        eng.dispose()


def test_pg_url_means_psycopg() -> None:
    pytest.importorskip("psycopg")
    eng = make_engine("postgresql://u:p@localhost:1/db")
    try:
        assert (eng.dialect.name, eng.dialect.driver) == ("postgresql", "psycopg")
    finally:
        eng.dispose()
    eng = make_engine("postgresql+psycopg://u:p@localhost:1/db")
    try:
        assert eng.dialect.driver == "psycopg"
    finally:
        eng.dispose()


def test_a_postgresql_connection_dropped_by_the_server_is_replaced(pg_server) -> None:
    # The pool checks a connection before handing it out, so a server restart or an
    # idle timeout costs no failed query.
    url = pg_server.new_database()
    eng = make_engine(url)
    try:
        with eng.connect() as c:
            pid = c.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        killer = make_engine(url)
        try:
            with killer.connect() as k:
                assert k.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})").scalar()
        finally:
            killer.dispose()
        with eng.connect() as c:  # the pool's connection is dead: a new one is made
            assert c.exec_driver_sql("SELECT pg_backend_pid()").scalar() != pid
    finally:
        eng.dispose()
        pg_server.drop_database(url)
