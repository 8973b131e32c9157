"""Store safety at its edges: backup and restore messages and reports, the full check's
FTS rule and time budget, error translation, driver choice, damage messages, summary
layers, and the WAL checkpoints (busy, idle policy)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdesk.core.errors import StoreCorruptError, StoreOpenError
from memdesk.core.store.backup import (
    BackupError,
    backup_dir,
    backup_store,
    list_backups,
    restore,
)
from memdesk.core.store.check import CheckReport, check_connection, check_file
from memdesk.core.store.db import DRIVER, make_engine
from memdesk.core.store.faults import translate_driver_error
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.schema import damage_message
from memdesk.core.store.summary import summarize
from memdesk.core.store.wal import IdleCheckpointer, checkpoint


def make_store(path: Path, n: int = 3) -> Path:
    s = MemoryStore.open(path)
    for i in range(n):
        s.add(user_id="u", text=f"memory number {i}", type="fact")
    s.close()
    return path


def test_a_backup_folder_notes_which_store_it_belongs_to(tmp_path: Path) -> None:
    db = make_store(tmp_path / "notes.db")
    info = backup_store(db, reason="Before Merge!")
    folder = backup_dir(db)
    assert info.path.parent == folder and info.reason == "Before Merge!"
    assert info.path.name.endswith("-before-merge.db")  # reason made file-name safe
    # the note names the store by its full path, so a folder can be traced back
    assert (folder / "store.txt").read_text(encoding="utf-8") == f"{db.resolve()}\n"
    assert sorted(p.name for p in folder.iterdir()) == sorted([info.path.name, "store.txt"])


def test_backing_up_a_missing_store_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.db"
    with pytest.raises(StoreOpenError) as err:
        backup_store(missing)
    assert str(err.value) == f"There is no store at {missing}."


def test_restore_reports_what_went_where(tmp_path: Path) -> None:
    db = make_store(tmp_path / "live.db", n=2)
    info = backup_store(db)
    s = MemoryStore.open(db)
    s.add(user_id="u", text="written after the backup", type="fact")
    s.close()
    rep = restore(db, info.path)
    assert rep.backup == info.path and rep.store == db
    # The replaced store is kept as a backup that `db backups` lists.
    assert rep.set_aside is not None and rep.set_aside in [b.path for b in list_backups(db)]
    assert rep.check.ok and rep.check.level == "full"
    s = MemoryStore.open(db)
    assert s.count() == 2  # the memory written after the backup is gone
    s.close()
    kept = MemoryStore.open(rep.set_aside)
    assert kept.count() == 3  # ...but kept in the file set aside
    kept.close()


def test_restoring_a_store_onto_itself_is_refused(tmp_path: Path) -> None:
    db = make_store(tmp_path / "self.db", n=1)
    with pytest.raises(BackupError) as err:
        restore(db, tmp_path / "." / "self.db")
    assert str(err.value) == "The backup and the store are the same file."


class _FtsRefusing:
    """A raw connection whose FTS5 ``integrity-check`` command fails with ``message``."""

    def __init__(self, conn, message: str) -> None:  # type: ignore[no-untyped-def]
        self._conn, self._message = conn, message

    def execute(self, sql: str, *args):  # type: ignore[no-untyped-def]
        if "integrity-check" in sql:
            raise DRIVER.OperationalError(self._message)
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._conn, name)


def test_full_check_reports_an_fts_failure_unless_the_connection_is_read_only(
        tmp_path: Path) -> None:
    db = make_store(tmp_path / "fts.db", n=1)
    conn = DRIVER.connect(str(db))
    conn.isolation_level = None
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE sql LIKE '%USING fts5%'")]
        assert tables  # the store has a full-text index
        failing = check_connection(_FtsRefusing(conn, "no such module: fts5"), level="full")
        assert failing.problems == tuple(
            f"full-text index {t}: no such module: fts5" for t in tables)
        for message in ("attempt to write a readonly database", "the file is read-only"):
            # integrity_check already covered the index; a read-only refusal is no damage
            quiet = check_connection(_FtsRefusing(conn, message), level="full")
            assert quiet.problems == () and quiet.complete
    finally:
        conn.close()


def test_check_file_honours_its_time_budget(tmp_path: Path) -> None:
    db = make_store(tmp_path / "budget.db", n=60)
    # a budget already spent: the check is interrupted at SQLite's first progress call
    cut = check_file(db, level="full", budget_s=-1.0)
    assert not cut.complete and cut.problems == ()
    assert cut.summary() == "no damage found in the part checked (full check cut short)"
    whole = check_file(db, level="full")
    assert whole.complete and whole.summary() == "no damage found (full check)"


@pytest.mark.parametrize("raw", [
    "database disk image is malformed",
    "file is not a database",
    "fts5: corrupt structure record",
])
def test_damage_messages_become_store_corrupt_errors(raw: str) -> None:
    err = translate_driver_error(DRIVER.DatabaseError(raw), "sqlite:///x.db")
    assert isinstance(err, StoreCorruptError)
    assert str(err) == (
        f"The store sqlite:///x.db is damaged or not a SQLite database ({raw}). Nothing more "
        "was written. Run `memdesk db check` and restore a backup (`memdesk db backups`).")


@pytest.mark.parametrize("env, expected", [("sqlite3", "sqlite3"), ("", "pysqlite3")])
def test_the_sqlite_driver_can_be_forced_to_the_standard_library(
        env: str, expected: str) -> None:
    pytest.importorskip("pysqlite3")
    out = subprocess.run(
        [sys.executable, "-c",
         "from memdesk.core.store.db import DRIVER_NAME; print(DRIVER_NAME)"],
        env={**os.environ, "MEMDESK_SQLITE_DRIVER": env},
        capture_output=True, text=True, check=True)
    assert out.stdout.strip() == expected


def test_postgres_without_its_driver_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if not installed
    with pytest.raises(StoreOpenError) as err:
        make_engine("postgresql://someone@localhost/memories")
    assert str(err.value) == ("Opening a PostgreSQL store needs the psycopg driver: "
                              "pip install 'memdesk[postgres]'.")


def test_damage_message_without_a_file_or_a_backup(tmp_path: Path) -> None:
    health = CheckReport("quick", ("page 3 is broken",))
    assert damage_message("postgresql://db", None, health) == (
        "The store postgresql://db is damaged and was not changed: the store is damaged: "
        "page 3 is broken.\nNo backup of it was found; `memdesk db check` lists the damage.")
    db = make_store(tmp_path / "hurt.db", n=1)
    info = backup_store(db)
    assert damage_message("sqlite:///hurt", db, health) == (
        "The store sqlite:///hurt is damaged and was not changed: the store is damaged: "
        f"page 3 is broken.\nThe latest good backup is {info.path} "
        f"({info.when:%Y-%m-%d %H:%M} UTC). Restore it with: memdesk db restore {info.path} "
        f"--db {db}")


def test_summary_counts_live_memories_by_layer(tmp_path: Path) -> None:
    s = MemoryStore.open(tmp_path / "layers.db")
    try:
        for layer in ("semantic", "procedural", "semantic", "episodic"):
            s.add(user_id="u", text=f"a {layer} memory", type="fact", layer=layer)
        gone = s.add(user_id="u", text="deleted one", type="fact", layer="episodic")
        s.soft_delete(gone.id)
        summary = summarize(s)
        assert summary.by_layer == {"episodic": 1, "procedural": 1, "semantic": 2}
        assert summary.by_type == {"fact": 4}
    finally:
        s.close()


def wal_db(path: Path):  # type: ignore[no-untyped-def]
    """A WAL database with a few frames; the returned connection keeps the WAL alive."""
    conn = DRIVER.connect(str(path))
    conn.isolation_level = None
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    return conn


def test_a_checkpoint_blocked_by_an_exclusive_lock_reports_busy(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    conn = wal_db(path)
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        conn.execute("INSERT INTO t VALUES (2)")  # takes and keeps the exclusive lock
        result = checkpoint(path, "truncate", busy_ms=10)
        assert (result.mode, result.busy, result.wal_frames, result.checkpointed) == (
            "TRUNCATE", True, -1, -1)
        assert result.wal_bytes_after == os.stat(f"{path}-wal").st_size > 0
    finally:
        conn.close()


def test_idle_checkpointer_truncates_a_large_wal_and_skips_an_unchanged_one(
        tmp_path: Path) -> None:
    path = tmp_path / "idle.db"
    conn = wal_db(path)
    try:
        idle = IdleCheckpointer(path, truncate_above=1)
        result = idle.tick()
        assert result is not None
        assert (result.mode, result.busy, result.wal_bytes_after) == ("TRUNCATE", False, 0)
        assert idle.tick() is None  # no WAL left: nothing to do
    finally:
        conn.close()


def test_idle_checkpointer_stays_passive_while_a_reader_holds_old_frames(
        tmp_path: Path) -> None:
    path = tmp_path / "reader.db"
    conn = wal_db(path)
    reader = DRIVER.connect(str(path))
    reader.isolation_level = None
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM t").fetchone()  # pins the current snapshot
        conn.execute("INSERT INTO t VALUES (2)")  # frames the reader does not see
        idle = IdleCheckpointer(path)  # the WAL is far below the truncate size
        result = idle.tick()
        assert result is not None and result.mode == "PASSIVE" and not result.busy
        assert 0 <= result.checkpointed < result.wal_frames
        assert idle.tick() is None  # the WAL did not grow since: left alone
    finally:
        reader.close()
        conn.close()


def test_a_backup_is_one_self_contained_file_and_journal_modes_are_reported(
        tmp_path: Path) -> None:
    from memdesk.core.store.wal import journal_mode

    db = make_store(tmp_path / "modes.db", n=2)
    live = make_engine(f"sqlite:///{db}")
    try:
        assert journal_mode(live) == "wal"  # every store runs in WAL mode
    finally:
        live.dispose()
    info = backup_store(db)
    # the backup is switched out of WAL so the one file holds everything
    assert not Path(f"{info.path}-wal").exists()
    copy = make_engine(f"sqlite:///{info.path}", read_only=True)
    try:
        assert journal_mode(copy) == "delete"
    finally:
        copy.dispose()

    class _Other:  # any engine whose dialect is not SQLite
        class dialect:  # mirrors SQLAlchemy's engine.dialect.name
            name = "postgresql"

    assert journal_mode(_Other()) is None


def test_rotate_deletes_what_thinning_drops_and_keeps_the_rest(tmp_path: Path) -> None:
    from datetime import datetime, timedelta

    from memdesk.core.store.backup import list_backups, rotate

    db = make_store(tmp_path / "rot.db")
    folder = backup_dir(db)
    folder.mkdir(parents=True, exist_ok=True)
    first = datetime(2026, 11, 3, 8, 0, 0)
    # Ten small backups an hour apart on one day: the newest 8 are kept (and the
    # newest of that day, week and month is among them), the two oldest go.
    paths = []
    for i in range(10):
        p = folder / f"{(first + timedelta(hours=i)).strftime('%Y%m%dT%H%M%S-%f')}-auto.db"
        p.write_bytes(b"x" * 10)
        paths.append(p)
    gone = rotate(db, now=first + timedelta(days=1))
    assert sorted(gone) == sorted(paths[:2])
    assert [p.exists() for p in paths] == [False, False] + [True] * 8
    assert [b.path for b in list_backups(db)] == paths[:1:-1]  # newest first
    assert rotate(db, now=first + timedelta(days=1)) == []  # nothing more to thin
