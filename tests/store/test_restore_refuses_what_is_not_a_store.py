"""``memdesk db restore`` puts a backup only over a memdesk store: a text file, a folder,
another application's database and a missing path (without ``--new``) are refused and
left as they were; a damaged store — what a restore is for — is replaced, and kept."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.cli import cli
from tests.helpers.raw_sql import sqlite_file


def state(path: Path) -> str:
    if path.is_dir():
        return "dir:" + ",".join(sorted(p.name for p in path.iterdir()))
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "missing"


@pytest.fixture
def backup(tmp_path: Path) -> Path:
    s = MemoryStore.open(tmp_path / "store.db")
    s.add(user_id="u", text="I like tea.", type="preference")
    s.close()
    code, out, _ = cli("db", "backup", "--db", str(tmp_path / "store.db"))
    assert code == 0
    return Path(out.split(" to ")[1].split(" (")[0])


def make_target(kind: str, tmp_path: Path) -> Path:
    path = tmp_path / f"target-{kind}"
    if kind == "text":
        path.write_text("my notes, not a store\n")
    elif kind == "folder":
        path.mkdir()
        (path / "inside.txt").write_text("x")
    elif kind == "foreign":
        sqlite_file(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)",
                    "INSERT INTO photos (name) VALUES ('cat.jpg')")
    elif kind == "empty":
        path.write_bytes(b"")
    return path


@pytest.mark.parametrize("kind,words", [
    ("text", "not a memdesk store"), ("folder", "is a folder"),
    ("foreign", "not a memdesk store"), ("empty", "not a memdesk store"),
    ("missing", "--new"),
])
def test_a_target_that_is_not_a_store_is_refused_and_unchanged(
        kind: str, words: str, backup: Path, tmp_path: Path) -> None:
    target = make_target(kind, tmp_path)
    before = state(target)
    code, out, err = cli("db", "restore", str(backup), "--db", str(target))
    assert code == 3, (out, err)
    assert words in err and "nothing was restored" in err
    assert state(target) == before


def test_new_restores_into_a_new_file_only(backup: Path, tmp_path: Path) -> None:
    target = tmp_path / "fresh.db"
    code, out, _ = cli("db", "restore", str(backup), "--db", str(target), "--new")
    assert code == 0 and "restored" in out
    assert MemoryStore.open(target).count() == 1
    code, _, err = cli("db", "restore", str(backup), "--db", str(target), "--new")
    assert code == 3 and "exists already" in err


def test_a_damaged_store_is_replaced_and_kept_as_a_listed_backup(
        backup: Path, tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    s = MemoryStore.open(store)
    s.add(user_id="u", text="written after the backup", type="fact")
    s.close()
    data = bytearray(store.read_bytes())
    data[0:16] = b"garbage garbage!"  # the header is gone: no longer reads as SQLite
    store.write_bytes(bytes(data))
    damaged = state(store)
    code, out, err = cli("db", "restore", str(backup), "--db", str(store))
    assert code == 0, err
    assert cli("db", "check", "--db", str(store))[0] == 0
    code, out, _ = cli("db", "backups", "--db", str(store))
    replaced = [line.split()[-1] for line in out.splitlines() if " replaced " in line]
    assert len(replaced) == 1 and state(Path(replaced[0])) == damaged


def test_a_damaged_backup_is_refused_before_the_store_is_touched(
        backup: Path, tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    data = bytearray(backup.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page: page + 12] = b"\x00" * 12
    bad = tmp_path / "bad-backup.db"
    bad.write_bytes(bytes(data))
    before = state(store)
    code, _, err = cli("db", "restore", str(bad), "--db", str(store))
    assert code == 3 and "damaged" in err
    assert state(store) == before


def test_a_store_open_in_this_process_is_refused_until_closed(
        backup: Path, tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    s = MemoryStore.open(store)
    s.add(user_id="u", text="written while open", type="fact")
    before = state(store)
    code, _, err = cli("db", "restore", str(backup), "--db", str(store))
    assert code == 3 and "open in another program" in err
    assert state(store) == before and s.count() == 2  # still usable
    s.close()
    code, _, err = cli("db", "restore", str(backup), "--db", str(store))
    assert code == 0, err
    assert MemoryStore.open(store).count() == 1
