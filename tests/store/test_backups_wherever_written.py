"""Automatic backups in every process that writes a store, not only the GUI: the
CLI's writing commands, ``memdesk worker`` and ``memdesk mcp`` take one at their first
write when the latest is older than the interval (and the store changed since), then
on the interval while they write; reading never backs up; retention is configurable.
All of them are listed by ``memdesk db backups``."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import anyio
import pytest

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.mcp_stdio import MEMDESK, call, client


def memdesk(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MEMDESK, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def cli(*args: str) -> int:
    """A CLI call in this process (the environment is the test's)."""
    import contextlib
    import io

    from memdesk.app.main import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(args))


def reasons(db: Path, **env: str) -> list[str]:
    """The reasons of ``db``'s backups, newest first (``env``: for the backups folder)."""
    from memdesk.core.store.backup import list_backups

    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        return [b.reason for b in list_backups(db)]


def new_store(tmp_path: Path) -> Path:
    s = MemoryStore.open(tmp_path / "store.db")
    s.add(user_id="u", text="I live in Lisbon.", type="fact")
    s.close()
    return tmp_path / "store.db"


def test_cli_writes_back_up_when_due_and_reads_never(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = new_store(tmp_path)
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(tmp_path / "backups"))
    for args in (("list",), ("db", "info"), ("review", "list")):
        cli(*args, "--db", str(db))
    assert reasons(db) == []  # reading never backs up
    add = ("add", "--db", str(db), "--user", "u", "--type", "fact", "--text")
    assert cli(*add, "I like tea.") == 0
    assert reasons(db) == ["open"]  # none yet: the first write takes one
    assert cli(*add, "I like coffee.") == 0
    assert reasons(db) == ["open"]  # the latest is younger than the interval
    monkeypatch.setenv("MEMDESK_BACKUP_INTERVAL_MIN", "0.0001")
    assert cli(*add, "I like cocoa.") == 0
    assert reasons(db) == ["open", "open"]  # older than a (tiny) interval
    cli("list", "--db", str(db))
    assert len(reasons(db)) == 2  # due, but only read
    monkeypatch.setenv("MEMDESK_BACKUP_INTERVAL_MIN", "0")
    assert cli(*add, "I like juice.") == 0
    assert len(reasons(db)) == 2  # 0 turns automatic backups off


def test_the_worker_backs_up_at_its_first_write(tmp_path: Path) -> None:
    db = new_store(tmp_path)
    env = {"MEMDESK_BACKUP_DIR": str(tmp_path / "backups")}
    queued = memdesk("store", "--db", str(db), "--user", "u", "I prefer green tea.",
                     MEMDESK_BACKUP_INTERVAL_MIN="0", **env)
    assert queued.returncode == 0 and reasons(db, **env) == []
    worked = memdesk("worker", "--db", str(db), "--offline", "--drain", "--no-embed", **env)
    assert worked.returncode == 0, worked.stderr
    assert reasons(db, **env) == ["open"]


def test_the_mcp_server_backs_up_at_open_and_on_the_interval(tmp_path: Path) -> None:
    db = new_store(tmp_path)
    env = {"MEMDESK_BACKUP_DIR": str(tmp_path / "backups"),
           "MEMDESK_BACKUP_INTERVAL_MIN": "0.05"}  # 3 s, asked every second

    async def main() -> None:
        with anyio.fail_after(120):
            async with client(db, tmp_path, name="backup-test", env=env) as s:
                end = time.monotonic() + 9
                i = 0
                while time.monotonic() < end:  # writing, on and off, for 9 s
                    await call(s, "store_memory", text=f"I prefer tea no. {i}.",
                               user_id="alice")
                    i += 1
                    await anyio.sleep(0.5)

    anyio.run(main)
    got = reasons(db, **env)
    assert got[-1] == "open" and "auto" in got, got


def test_retention_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = new_store(tmp_path)
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(tmp_path / "backups"))
    monkeypatch.setenv("MEMDESK_BACKUP_KEEP", "2")
    for _ in range(4):
        assert cli("db", "backup", "--db", str(db)) == 0
    assert reasons(db) == ["manual", "manual"]


def test_interval_zero_turns_the_guis_automatic_backups_off_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memdesk.core.store.backup import AutoBackup

    db = new_store(tmp_path)
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(tmp_path / "backups"))
    monkeypatch.setenv("MEMDESK_BACKUP_INTERVAL_MIN", "0")
    auto = AutoBackup(db)
    assert auto.maybe("open") is None and reasons(db) == []
    assert auto.before_risky("bulk") is not None  # before a risky action: still taken


def test_a_store_the_mcp_server_creates_is_backed_up_by_it(tmp_path: Path) -> None:
    """The issue's probe: `memdesk mcp` on a path with no store yet creates it, then
    writes for a while; it used to take 0 backups however long it ran."""
    db = tmp_path / "new.db"
    env = {"MEMDESK_BACKUP_DIR": str(tmp_path / "backups"),
           "MEMDESK_BACKUP_INTERVAL_MIN": "0.05"}  # 3 s, asked every second

    async def main() -> None:
        with anyio.fail_after(120):
            async with client(db, tmp_path, name="backup-new", env=env) as s:
                end = time.monotonic() + 6
                i = 0
                while time.monotonic() < end:
                    await call(s, "store_memory", text=f"I prefer tea no. {i}.",
                               user_id="alice")
                    i += 1
                    await anyio.sleep(0.5)

    assert not db.exists()
    anyio.run(main)
    got = reasons(db, **env)
    assert "open" in got and len(got) >= 2, got
