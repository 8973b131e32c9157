"""Restores and backups that cannot lose a write, through the CLI.

- ``db restore`` replaces only a memdesk (application id, or an older store's known
  revision and tables) or Recall store: another application's database with tables
  named ``alembic_version`` and ``memories``, a Recall-like ``memories`` table beside
  other tables, and a text file at a path memdesk once backed up are all refused,
  byte-identical;
- the ``replaced`` copy a restore keeps survives any number of newer backups, and
  ``db backups`` lists it apart with its size;
- ``db check`` with a temp folder too small for its private copy does not call a
  healthy store damaged;
- a named pipe where a store is expected is refused at once, not read forever.
"""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.cli import cli
from tests.helpers.raw_sql import sqlite_file
from tests.helpers.recall import RECALL_SCHEMA


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def store(tmp_path: Path, backups: Path) -> Path:
    path = tmp_path / "store.db"
    s = MemoryStore.open(path)
    s.add(user_id="u", text="I like tea.", type="preference")
    s.close()
    return path


def backup_of(store: Path) -> Path:
    code, out, err = cli("db", "backup", "--db", str(store))
    assert code == 0, err
    return Path(out.split(" to ")[1].split(" (")[0])


FOREIGN = {
    # Another application using Alembic, with a "memories" table of its own.
    "alembic-memories-hex": (
        "CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)",
        "INSERT INTO alembic_version VALUES ('ae1027a6acf2')",
        "CREATE TABLE memories (id INTEGER PRIMARY KEY, note TEXT)",
        "INSERT INTO memories (note) VALUES ('my diary')"),
    # ... even at a revision number memdesk also uses, with Recall's columns.
    "alembic-memories-0005": (
        "CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)",
        "INSERT INTO alembic_version VALUES ('0005')",
        RECALL_SCHEMA,
        "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)"),
    # Recall's memories table beside the application's other tables.
    "recall-beside-others": (
        RECALL_SCHEMA,
        "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)",
        "INSERT INTO invoices (total) VALUES (12.5)"),
}


@pytest.mark.parametrize("kind", sorted(FOREIGN))
def test_restore_never_replaces_another_applications_database(
        kind: str, store: Path, tmp_path: Path) -> None:
    backup = backup_of(store)
    target = sqlite_file(tmp_path / f"{kind}.db", *FOREIGN[kind])
    before = digest(target)
    code, out, err = cli("db", "restore", str(backup), "--db", str(target))
    assert code == 3, (out, err)
    assert "not a memdesk store" in err and "nothing was restored" in err
    assert digest(target) == before
    # ... and memdesk does not open it as a store either.
    code, _, err = cli("list", "--db", str(target), "--count")
    assert code == 3 and digest(target) == before


def test_restore_never_replaces_a_text_file_where_a_store_was_backed_up(
        store: Path) -> None:
    backup = backup_of(store)  # memdesk has backed up this path...
    store.unlink()
    store.write_text("my notes, written here after the store moved\n")  # ... now notes
    before = digest(store)
    code, out, err = cli("db", "restore", str(backup), "--db", str(store))
    assert code == 3, (out, err)
    assert "nothing was restored" in err and "--new" in err
    assert digest(store) == before


def test_a_store_made_by_an_older_memdesk_without_application_id_is_still_restored(
        store: Path) -> None:
    from memdesk.core.store.db import connect_raw

    backup = backup_of(store)
    c = connect_raw(store, read_only=False)
    c.execute("PRAGMA application_id = 0")
    c.close()
    code, out, err = cli("db", "restore", str(backup), "--db", str(store))
    assert code == 0, (out, err)


def test_the_replaced_copy_outlives_any_number_of_newer_backups(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDESK_BACKUP_KEEP", "3")
    backup = backup_of(store)
    s = MemoryStore.open(store)
    s.add(user_id="u", text="written after the backup", type="fact")
    s.close()
    code, out, err = cli("db", "restore", str(backup), "--db", str(store))
    assert code == 0, err
    replaced = Path(out.split("kept as ")[1].split(" (")[0])
    for _ in range(12):  # many more than the 3 kept, as hours of automatic ones would be
        backup_of(store)
    assert replaced.exists()
    code, out, _ = cli("db", "backups", "--db", str(store))
    rotated, _, apart = out.partition("Set aside by restores")
    assert str(replaced) not in rotated and str(replaced) in apart
    assert f"{replaced.stat().st_size:,}" in apart
    s = MemoryStore.open(replaced)  # the write made after the backup is in it
    try:
        assert "written after the backup" in {r.text for r in s.page(limit=None)}
    finally:
        s.close()


def _small_files(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_check_with_a_temp_folder_too_small_does_not_call_the_store_damaged(
        store: Path) -> None:
    s = MemoryStore.open(store)
    s.add_many({"user_id": "u", "text": f"memory number {i} " * 20, "type": "fact"}
               for i in range(400))
    s.close()
    assert store.stat().st_size > 256 * 1024
    assert cli("db", "check", "--db", str(store))[0] == 0
    got = subprocess.run([sys.executable, "-m", "memdesk.app.main", "db", "check", "--db",
                          str(store)], capture_output=True, text=True, timeout=120,
                         preexec_fn=lambda: _small_files(128 * 1024))
    assert got.returncode == 0, (got.stdout, got.stderr)
    assert "damaged" not in got.stdout and "restore" not in got.stdout
    assert "full-text index was not checked" in got.stdout


@pytest.mark.parametrize("args", [("list", "--count"), ("db", "check"), ("db", "restore")])
def test_a_named_pipe_is_refused_at_once(args: tuple[str, ...], store: Path,
                                         tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    extra = [str(backup_of(store))] if args[-1] == "restore" else []
    got = subprocess.run([sys.executable, "-m", "memdesk.app.main", *args, *extra, "--db",
                          str(fifo)], capture_output=True, text=True, timeout=60)
    assert got.returncode == 3, (got.stdout, got.stderr)
    assert "Traceback" not in got.stderr
