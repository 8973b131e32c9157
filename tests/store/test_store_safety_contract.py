"""Store-safety messages as an operator sees them: the WAL-reset warning for affected and
fixed SQLite versions, the backup ``db upgrade`` writes, a locked store (exit 3), and
stores memdesk must not touch (newer schema, foreign, corrupt) left byte-for-byte as
they were.  Only the user-visible contract is asserted: exit codes, messages, bytes."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.store import db as dbmod
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.raw_sql import sqlite_file


def _driver():  # type: ignore[no-untyped-def]
    """The SQLite module whose version memdesk reports (a pysqlite3 build or the stdlib)."""
    return getattr(dbmod, "DRIVER", sqlite3)


# (library version, inside the bug range 3.7.0 .. 3.51.2)
VERSIONS = [
    ("3.6.23", False), ("3.7.0", True), ("3.7.17", True), ("3.45.1", True),
    ("3.51.2", True), ("3.51.3", False), ("3.52.0", False), ("4.0.0", False),
]


@pytest.mark.parametrize(("version", "affected"), VERSIONS, ids=[v for v, _ in VERSIONS])
def test_wal_reset_warning_by_version(monkeypatch, version: str, affected: bool) -> None:
    monkeypatch.setattr(_driver(), "sqlite_version", version)
    info = dbmod.sqlite_info()
    assert info.library_version == version
    assert info.wal_reset_bug is affected
    if affected:
        assert info.warning is not None
        assert version in info.warning and "3.51.3" in info.warning
    else:
        assert info.warning is None


@pytest.mark.parametrize(("version", "affected"), [("3.45.1", True), ("3.51.3", False)])
def test_db_info_prints_the_warning_only_when_affected(tmp_path: Path, capsys, monkeypatch,
                                                       version: str, affected: bool) -> None:
    db = str(tmp_path / "s.db")
    MemoryStore.open(db).close()
    monkeypatch.setattr(_driver(), "sqlite_version", version)
    assert main(["db", "info", "--db", db]) == 0
    out = capsys.readouterr().out
    assert ("WAL-reset bug" in out) is affected
    assert main(["db", "info", "--db", db, "--json"]) == 0
    assert f'"sqlite_wal_reset_bug": {str(affected).lower()}' in capsys.readouterr().out


def test_db_upgrade_writes_a_backup_of_the_old_store(tmp_path: Path, capsys) -> None:
    from tests.helpers.recall import make_recall_store

    path = make_recall_store(tmp_path / "recall.db", rows=4)
    original = path.read_bytes()
    assert main(["db", "upgrade", "--db", str(path)]) == 0
    out = capsys.readouterr().out
    m = re.search(r"\(backup: (.+?)\)\s*$", out)
    assert "Upgraded store schema from 0001" in out and m, out
    backup = Path(m.group(1))
    assert backup.exists() and backup != path
    # The backup is the store as it was: the Recall schema and its rows, no memdesk tables.
    conn = sqlite3.connect(backup)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    rows = conn.execute("SELECT id, text FROM memories ORDER BY id").fetchall()
    conn.close()
    assert "alembic_version" not in tables and "memory_events" not in tables
    assert rows == [(f"r{i}", f"Recall memory number {i} about kayaks") for i in range(4)]
    assert path.read_bytes() != original  # the store itself was upgraded
    # A second upgrade has nothing to do and writes no second backup.
    assert main(["db", "upgrade", "--db", str(path)]) == 0
    assert "already up to date" in capsys.readouterr().out
    assert sorted(p for p in backup.parent.iterdir() if p.suffix == ".db") == [backup]


def test_a_locked_store_exits_3(tmp_path: Path) -> None:
    """A real lock held by another process outlasts the 10 s busy timeout: exit 3."""
    path = tmp_path / "locked.db"
    MemoryStore.open(path).close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys, time\n"
         "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "c.execute('PRAGMA journal_mode=DELETE')\n"
         "c.execute('BEGIN EXCLUSIVE')\n"
         "print('locked', flush=True)\n"
         "time.sleep(60)\n", str(path)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        r = subprocess.run([sys.executable, "-m", "memdesk.app.main", "list", "--db", str(path)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 3, r.stderr
        assert "locked" in r.stderr and "Traceback" not in r.stderr
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def _newer_schema_store(tmp_path: Path) -> Path:
    path = tmp_path / "newer.db"
    s = MemoryStore.open(path)
    s.add(user_id="u", text="t", type="fact")
    s.close()
    return sqlite_file(path, "UPDATE alembic_version SET version_num = '9999'")


def _foreign_store(tmp_path: Path) -> Path:
    return sqlite_file(tmp_path / "foreign.db", "CREATE TABLE invoices (id INTEGER, total REAL)",
                       "INSERT INTO invoices VALUES (1, 9.5)")


def _corrupt_store(tmp_path: Path) -> Path:
    path = tmp_path / "corrupt.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    return path


COMMANDS = [
    ["list"], ["add", "--user", "u", "--type", "fact", "--text", "x"], ["undo", "1"],
    ["db", "upgrade"], ["db", "info"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_a_newer_schema_store_is_refused_and_unchanged(tmp_path: Path, capsys,
                                                       command: list[str]) -> None:
    path = _newer_schema_store(tmp_path)
    before = path.read_bytes()
    assert main([*command, "--db", str(path)]) == 3
    err = capsys.readouterr().err
    assert "9999" in err and "Update memdesk" in err
    assert path.read_bytes() == before


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_a_corrupt_file_is_refused_and_unchanged(tmp_path: Path, capsys,
                                                 command: list[str]) -> None:
    path = _corrupt_store(tmp_path)
    before = path.read_bytes()
    assert main([*command, "--db", str(path)]) == 3
    assert "Traceback" not in capsys.readouterr().err
    assert path.read_bytes() == before


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_a_foreign_database_is_refused_and_unchanged(tmp_path: Path, capsys,
                                                     command: list[str]) -> None:
    path = _foreign_store(tmp_path)
    before = path.read_bytes()
    assert main([*command, "--db", str(path)]) == 3
    assert "not a memdesk or Recall store" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_a_foreign_database_is_refused_and_its_data_kept(tmp_path: Path, capsys) -> None:
    """What holds today as well: refused with exit 3, no table added, the data intact."""
    path = _foreign_store(tmp_path)
    for command in COMMANDS:
        assert main([*command, "--db", str(path)]) == 3
        assert "not a memdesk or Recall store" in capsys.readouterr().err
    conn = sqlite3.connect(path)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
    rows = conn.execute("SELECT * FROM invoices").fetchall()
    conn.close()
    assert tables == ["invoices"] and rows == [(1, 9.5)]
