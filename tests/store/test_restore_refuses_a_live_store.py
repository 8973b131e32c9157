"""``memdesk db restore`` while ``memdesk mcp`` writes to the store: refused, and no
acknowledged write is lost; once the server is gone the restore goes through and the
replaced store, with every write, is kept as a backup ``db backups`` lists.

The server is a real subprocess spoken to by the official SDK client over stdio; the
restore is a second real process, as an operator in a panic would run it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.mcp_stdio import MEMDESK, client, store_and_wait

LIMIT_S = 120


def memdesk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MEMDESK, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    s = MemoryStore.open(tmp_path / "store.db")
    s.add(user_id="alice", text="I live in Lisbon.", type="fact")
    s.close()
    return tmp_path / "store.db"


def test_restore_is_refused_while_mcp_writes_and_no_acknowledged_write_is_lost(
        db: Path, tmp_path: Path) -> None:
    made = memdesk("db", "backup", "--db", str(db))
    assert made.returncode == 0, made.stderr
    backup = made.stdout.split(" to ")[1].split(" (")[0]
    acknowledged: list[str] = []
    refusals: list[subprocess.CompletedProcess[str]] = []

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(db, tmp_path, name="restore-test") as s:
                for i in range(6):
                    st = await store_and_wait(s, f"I prefer tea number {i} in the morning.",
                                              user_id="alice")
                    assert st["status"] == "done", st
                    acknowledged.extend(st["memory_ids"])
                    if i % 2 == 0:  # an operator tries to restore meanwhile
                        refusals.append(await anyio.to_thread.run_sync(
                            lambda: memdesk("db", "restore", backup, "--db", str(db))))

    anyio.run(main)
    assert len(acknowledged) >= 6
    assert [r.returncode for r in refusals] == [3, 3, 3]
    assert all("open in another program" in r.stderr for r in refusals)
    s = MemoryStore.open(db)
    assert {r.id for r in s.get_many(acknowledged)} == set(acknowledged)
    s.close()

    done = memdesk("db", "restore", backup, "--db", str(db))
    assert done.returncode == 0, done.stderr
    s = MemoryStore.open(db)
    assert s.get_many(acknowledged) == [] and s.count() == 1  # the backup's one memory
    s.close()
    listed = memdesk("db", "backups", "--db", str(db), "--json")
    replaced = [b for b in json.loads(listed.stdout) if b["reason"] == "replaced"]
    assert len(replaced) == 1
    kept = MemoryStore.open(replaced[0]["path"])
    assert {r.id for r in kept.get_many(acknowledged)} == set(acknowledged)
    kept.close()
