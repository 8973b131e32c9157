"""Store safety: identify before touching, only `db upgrade` migrates,
readable errors, no lost updates.  Each test names the finding it covers."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memdesk.core.errors import (
    EditConflictError,
    SchemaOutdatedError,
    StoreCorruptError,
    StoreForeignError,
    StoreOpenError,
    ValidationError,
)
from memdesk.core.store.db import DRIVER, DRIVER_NAME, sqlite_info
from memdesk.core.store.identity import APPLICATION_ID, StoreKind, identify
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.schema import HEAD
from tests.helpers.cli import cli
from tests.helpers.processes import run_workers
from tests.helpers.raw_sql import sqlite_file
from tests.helpers.recall import make_recall_store


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()




def cli_bytes(*args: bytes) -> subprocess.CompletedProcess:
    """A CLI call with raw bytes in argv (as a shell passes them)."""
    return subprocess.run(
        [sys.executable.encode(), b"-m", b"memdesk.app.main", *args], capture_output=True,
        timeout=120,
    )


# -- finding 7: SQLite with the fix -------------------------------------------------
def test_engine_uses_pysqlite3_with_the_wal_reset_fix(store: MemoryStore) -> None:
    pytest.importorskip("pysqlite3")
    info = sqlite_info()
    assert DRIVER_NAME == "pysqlite3" and not info.wal_reset_bug
    with store.read() as conn:
        runtime = conn.exec_driver_sql("SELECT sqlite_version()").scalar()
    assert runtime == info.library_version
    assert tuple(int(p) for p in runtime.split(".")) >= (3, 51, 3)


def test_db_info_names_the_library(store_path: Path) -> None:
    MemoryStore.open(store_path).close()
    r = cli("db", "info", "--db", str(store_path))
    assert r.returncode == 0
    assert f"sqlite_driver: {DRIVER_NAME}" in r.stdout
    assert f"sqlite_library_version: {DRIVER.sqlite_version}" in r.stdout


# -- finding 2: other applications' files are refused unchanged ---------------------
def _foreign_wal_db(path: Path) -> Path:
    return sqlite_file(path, "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)",
                       "INSERT INTO invoices (total) VALUES (12.5)")


def _foreign_memories_db(path: Path) -> Path:
    # An app with its own, different, memories table.
    return sqlite_file(path, "CREATE TABLE memories (id INTEGER PRIMARY KEY, content TEXT)",
                       "INSERT INTO memories (content) VALUES ('not ours')")


def _other_app_id_db(path: Path) -> Path:
    return sqlite_file(path, "PRAGMA application_id = 1234",
                       "CREATE TABLE memories (id TEXT, user_id TEXT, text TEXT, type TEXT, "
                       "importance REAL, confidence REAL, created_at TEXT)")


@pytest.mark.parametrize("make", [_foreign_wal_db, _foreign_memories_db, _other_app_id_db])
def test_foreign_databases_are_refused_byte_for_byte_unchanged(tmp_path: Path, make) -> None:
    path = make(tmp_path / "other.db")
    before = sha(path)
    with pytest.raises(StoreForeignError, match="not a memdesk or Recall store"):
        MemoryStore.open(path, allow_upgrade=True)
    for args in (["list"], ["db", "info"], ["add", "--user", "u", "--type", "note",
                                             "--text", "x"], ["db", "upgrade"]):
        r = cli(*args, "--db", str(path))
        assert r.returncode == 3 and "Traceback" not in r.stderr, (args, r.stderr)
    assert sha(path) == before
    assert not list(tmp_path.glob("*.bak"))
    with sqlite3.connect(path) as conn:  # still in its own journal mode
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_zero_byte_file_on_a_read_command_stays_empty(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    for args in (["list"], ["db", "info"], ["show", "x"], ["db", "upgrade"]):
        r = cli(*args, "--db", str(empty))
        assert r.returncode == 3 and "is empty" in r.stderr, (args, r.stderr)
    assert empty.stat().st_size == 0
    assert not Path(str(empty) + "-wal").exists()


def test_non_sqlite_file_is_refused_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"plain text, not a database\n" * 50)
    before = sha(path)
    for args in (["list"], ["add", "--user", "u", "--type", "note", "--text", "x"]):
        r = cli(*args, "--db", str(path))
        assert r.returncode == 3 and "not a readable memdesk store" in r.stderr
    assert sha(path) == before


def test_stores_we_create_and_upgrade_carry_our_application_id(tmp_path: Path) -> None:
    new = tmp_path / "new.db"
    MemoryStore.open(new).close()
    ident = identify(new)
    assert ident.kind is StoreKind.MEMDESK and ident.application_id == APPLICATION_ID
    assert ident.user_version == int(HEAD) and ident.revision == HEAD
    old = make_recall_store(tmp_path / "recall.db", rows=3)
    assert identify(old).kind is StoreKind.RECALL and identify(old).application_id == 0
    MemoryStore.open(old, allow_upgrade=True).close()
    assert identify(old).application_id == APPLICATION_ID
    assert identify(old).user_version == int(HEAD)


# -- finding 3: read commands never migrate; concurrent upgrades do not collide ------
def test_read_commands_refuse_an_older_store_unchanged(tmp_path: Path) -> None:
    path = make_recall_store(tmp_path / "recall.db", rows=5)
    before = sha(path)
    for args in (["list"], ["db", "info"], ["show", "r1"],
                 ["add", "--user", "u", "--type", "note", "--text", "x"]):
        r = cli(*args, "--db", str(path))
        assert r.returncode == 3 and "memdesk db upgrade" in r.stderr, (args, r.stderr)
    assert sha(path) == before
    with pytest.raises(SchemaOutdatedError):
        MemoryStore.open(path)
    r = cli("db", "upgrade", "--db", str(path))
    assert r.returncode == 0 and "Upgraded store schema from 0001" in r.stdout
    assert cli("list", "--db", str(path), "--count").stdout.strip() == "5"


def _open_with_upgrade(path: str, q) -> None:  # type: ignore[no-untyped-def]
    try:
        store = MemoryStore.open(path, allow_upgrade=True)
        rep = store.report
        q.put(("ok", rep.upgraded_from if rep else None, store.count()))
        store.close()
    except Exception as exc:
        q.put(("error", repr(exc), 0))


def test_four_processes_opening_an_old_store_at_once_all_succeed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(tmp_path / "backups"))
    path = make_recall_store(tmp_path / "recall.db", rows=40)
    results = run_workers([(_open_with_upgrade, (str(path),))] * 4, timeout=120)
    assert [r for r in results if r[0] == "error"] == []
    assert all(r[2] == 40 for r in results)
    assert sorted(str(r[1]) for r in results) == ["0001", "None", "None", "None"]
    from memdesk.core.store.backup import list_backups

    assert len(list_backups(path)) == 1  # exactly one migration, one backup


# -- finding 5: readable errors on every path ---------------------------------------
def test_invalid_utf8_text_is_refused_naming_the_field(store_path: Path) -> None:
    MemoryStore.open(store_path).close()
    r = cli_bytes(b"add", b"--db", str(store_path).encode(), b"--user", b"u", b"--type",
                  b"note", b"--text", b"caf\xe9 latin-1")
    err = r.stderr.decode()
    assert r.returncode == 2 and "text" in err and "UTF-8" in err and "Traceback" not in err
    r = cli_bytes(b"add", b"--db", str(store_path).encode(), b"--user", b"u", b"--type",
                  b"note", b"--text", b"ok", b"--topic", b"\xff\xfe")
    assert r.returncode == 2 and "topic" in r.stderr.decode()
    with pytest.raises(ValidationError, match="entity"):
        MemoryStore.open(store_path).add(user_id="u", type="note", text="t", entity="a\udcff")
    assert cli("list", "--db", str(store_path), "--count").stdout.strip() == "0"


@pytest.mark.parametrize("sql, words", [
    ("UPDATE memories SET text = CAST(X'66ff6f' AS TEXT) WHERE seq = 1", "cannot read"),
    ("UPDATE memories SET created_at = 'yesterday-ish' WHERE seq = 1", "cannot read"),
])
def test_odd_rows_written_by_other_programs_give_exit_3(store_path: Path, sql, words) -> None:
    s = MemoryStore.open(store_path)
    rec = s.add(user_id="u", text="fine", type="note")
    s.close()
    sqlite_file(store_path, sql)
    for args in (["list"], ["list", "--json"], ["show", rec.id]):
        r = cli(*args, "--db", str(store_path))
        assert r.returncode == 3 and words in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_read_only_file_and_disk_full_are_readable(store_path: Path) -> None:
    s = MemoryStore.open(store_path)
    s.add(user_id="u", text="one", type="note")
    s.checkpoint()
    s.close()
    # disk full: SQLite's max_page_count makes the same error a full disk does
    from memdesk.core.errors import StoreFullError

    s = MemoryStore.open(store_path)
    with s.read() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
    from sqlalchemy import event

    @event.listens_for(s.engine, "connect")
    def _cap(dbapi_conn, _rec) -> None:  # type: ignore[no-untyped-def]
        dbapi_conn.execute(f"PRAGMA max_page_count = {pages}")

    s.engine.dispose()
    with pytest.raises(StoreFullError, match="full"):
        s.add(user_id="u", text="x" * 90_000, type="note")
    s.close()
    os.chmod(store_path, 0o444)
    try:
        if os.access(store_path, os.W_OK):
            pytest.skip("running as a user who can write read-only files")
        r = cli("add", "--db", str(store_path), "--user", "u", "--type", "note", "--text", "x")
        assert r.returncode == 3 and "read-only" in r.stderr and "Traceback" not in r.stderr
    finally:
        os.chmod(store_path, 0o644)


# -- finding 6: no lost updates ------------------------------------------------------
def test_stale_edit_raises_a_conflict_with_both_versions(store: MemoryStore) -> None:
    rec = store.add(user_id="u", text="original", type="note")
    seen = store.get(rec.id)
    store.update(rec.id, actor="agent", text="agent's change")  # someone else, meanwhile
    with pytest.raises(EditConflictError) as info:
        store.update(rec.id, text="operator's change", expected_version=seen.version)
    exc = info.value
    assert (exc.expected, exc.actual) == (seen.version, seen.version + 1)
    assert exc.current.text == "agent's change"
    assert store.get(rec.id).text == "agent's change"  # nothing overwritten
    ch = store.update(rec.id, text="operator's change", expected_version=exc.actual)
    assert ch.event_ids and store.get(rec.id).version == seen.version + 2
    with pytest.raises(EditConflictError):
        store.bulk_update([rec.id], topic="t", expected_versions={rec.id: seen.version})
    assert store.get(rec.id).topic is None


def test_undo_and_bulk_changes_bump_the_version(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="a", type="note")
    ch = store.bulk_update([a.id], topic="x")
    v = store.get(a.id).version
    store.undo_group(ch.group_id)
    assert store.get(a.id).version == v + 1


def _increment(path: str, memory_id: str, n: int, atomic: bool, q) -> None:  # type: ignore[no-untyped-def]
    try:
        store = MemoryStore.open(path)
        retries = 0
        for _ in range(n):
            if atomic:
                store.record_access([memory_id])
                continue
            while True:  # get-then-update, optimistic: retry on conflict
                rec = store.get(memory_id)
                try:
                    store.update(memory_id, actor="agent", access_count=rec.access_count + 1,
                                 expected_version=rec.version)
                    break
                except EditConflictError:
                    retries += 1
        store.close()
        q.put(("ok", retries))
    except Exception as exc:
        q.put(("error", repr(exc)))


@pytest.mark.parametrize("atomic", [True, False], ids=["record_access", "optimistic"])
def test_three_processes_incrementing_lose_nothing(store_path: Path, atomic: bool) -> None:
    s = MemoryStore.open(store_path)
    rec = s.add(user_id="u", text="counted", type="note")
    s.close()
    n = 120
    results = run_workers([(_increment, (str(store_path), rec.id, n, atomic))] * 3,
                          timeout=150)
    assert [r for r in results if r[0] == "error"] == []
    s = MemoryStore.open(store_path)
    assert s.get(rec.id).access_count == 3 * n
    s.close()


def test_cli_reports_a_conflict(store_path: Path) -> None:
    """The CLI's mapping: EditConflictError → exit 5 with both versions named."""
    import argparse

    from memdesk.app.cli.main import report_error

    exc = EditConflictError("m1", 3, 5)
    assert report_error(exc, argparse.Namespace(db=str(store_path))) == 5
    assert "version 3" in str(exc) and "version 5" in str(exc)


def test_damaged_store_refused_before_any_write(store_path: Path) -> None:
    s = MemoryStore.open(store_path)
    for i in range(200):
        s.add(user_id="u", text=f"row {i} " + "x" * 200, type="note")
    s.checkpoint()
    s.close()
    with DRIVER.connect(store_path) as conn:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='memories'").fetchone()
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(store_path.read_bytes())
    at = (root[0] - 1) * page_size
    data[at + 8 : at + 40] = b"\xa5" * 32  # garble the table's root page cell pointers
    store_path.write_bytes(bytes(data))
    before = sha(store_path)
    with pytest.raises(StoreCorruptError, match="damaged"):
        MemoryStore.open(store_path)
    r = cli("add", "--db", str(store_path), "--user", "u", "--type", "note", "--text", "x")
    assert r.returncode == 3 and "damaged" in r.stderr and "Traceback" not in r.stderr
    assert sha(store_path) == before
    ro = MemoryStore.open(store_path, if_damaged="read_only")
    assert ro.report is not None and ro.report.read_only and ro.report.health.damaged
    with pytest.raises(StoreOpenError):
        ro.add(user_id="u", text="nope", type="note")
    ro.close()
    assert sha(store_path) == before


# -- backups: --to, rotation, automatic policy -----------------------------------------
def test_backup_to_a_path_and_refusals(store_path: Path, tmp_path: Path) -> None:
    s = MemoryStore.open(store_path)
    s.add(user_id="u", text="kept", type="note")
    s.close()
    dest = tmp_path / "copy.db"
    r = cli("db", "backup", "--db", str(store_path), "--to", str(dest))
    assert r.returncode == 0 and dest.exists()
    assert cli("list", "--db", str(dest), "--count").stdout.strip() == "1"
    before = sha(dest)
    r = cli("db", "backup", "--db", str(store_path), "--to", str(dest))
    assert r.returncode == 3 and "exists" in r.stderr and sha(dest) == before
    r = cli("db", "restore", str(tmp_path / "nope.db"), "--db", str(store_path))
    assert r.returncode == 4
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"x" * 4096)
    r = cli("db", "restore", str(garbage), "--db", str(store_path))
    assert r.returncode == 3
    assert cli("list", "--db", str(store_path), "--count").stdout.strip() == "1"


def test_rotation_keeps_recent_then_daily_weekly_monthly_within_budget(tmp_path: Path) -> None:
    from datetime import datetime, timedelta

    from memdesk.core.store.backup import BackupInfo, thin

    now = datetime(2026, 11, 23, 12, 0)
    hourly = [BackupInfo(tmp_path / f"{h}.db", now - timedelta(hours=h), "auto", 10)
              for h in range(0, 24 * 400, 6)]  # every 6 h for 400 days
    drop = thin(hourly, now, budget=10**9)
    kept = sorted(set(hourly) - set(drop), key=lambda b: b.when, reverse=True)
    assert kept[:8] == hourly[:8]  # the 8 newest
    days = {b.when.date() for b in kept}
    assert len(days) >= 7 and len(kept) <= 8 + 7 + 4 + 12
    assert min(b.when for b in kept) < now - timedelta(days=300)  # monthly reach back
    small = thin(hourly, now, budget=35)  # 3.5 backups' worth: only the newest survive
    assert set(hourly) - set(small) == set(hourly[:3])


def test_automatic_backup_policy(store_path: Path, tmp_path: Path, monkeypatch) -> None:
    from datetime import timedelta

    from memdesk.core.ids import utcnow
    from memdesk.core.store.backup import AutoBackup, list_backups

    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(tmp_path / "backups"))
    s = MemoryStore.open(store_path)
    auto = AutoBackup(store_path)
    assert auto.due() and auto.maybe("open") is not None  # first open: always
    assert not auto.due(utcnow() + timedelta(hours=2))  # nothing changed since
    assert auto.before_risky("bulk") is None  # the backup of this state exists
    s.add(user_id="u", text="a change", type="note")
    assert not auto.due()  # changed, but 30 minutes have not passed
    assert auto.due(utcnow() + timedelta(minutes=31))
    assert auto.before_risky("bulk") is not None  # before a risky operation: at once
    s.close()
    assert [b.reason for b in list_backups(store_path)] == ["bulk", "open"]


def test_checkpoint_folds_the_wal_into_the_file(store_path: Path) -> None:
    s = MemoryStore.open(store_path)
    try:
        s.add_many([dict(user_id="u", text=f"row {i}", type="note") for i in range(200)])
        wal = Path(f"{store_path}-wal")
        assert wal.exists() and wal.stat().st_size > 0
        s.checkpoint()
        assert wal.stat().st_size == 0  # TRUNCATE: every page is in the main file now
    finally:
        s.close()


def test_open_passes_its_busy_timeout_to_every_connection(store_path: Path) -> None:
    from memdesk.core.store.db import BUSY_TIMEOUT_S

    s = MemoryStore.open(store_path, busy_timeout=0.25)
    try:
        with s.read() as conn:
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 250
    finally:
        s.close()
    default = MemoryStore.open(store_path)
    try:
        with default.read() as conn:
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == int(
                BUSY_TIMEOUT_S * 1000)
    finally:
        default.close()
