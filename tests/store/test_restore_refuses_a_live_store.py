"""``memdesk db restore`` while ``memdesk mcp`` writes to the store: refused, and no
acknowledged write is lost; once the server is gone the restore goes through and the
replaced store, with every write, is kept as a backup ``db backups`` lists.

The server is a real subprocess spoken to by the official SDK client over stdio; the
restore is a second real process, as an operator in a panic would run it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memdesk.core.store.memory_store import MemoryStore

MEMDESK = str(Path(sys.executable).with_name("memdesk"))
LIMIT_S = 120


def memdesk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MEMDESK, *args], capture_output=True, text=True, timeout=120)


async def call(s: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    r = await s.call_tool(tool, args)
    assert not r.is_error, r.content[0].text
    return json.loads(r.content[0].text)


async def store_and_wait(s: ClientSession, text: str) -> list[str]:
    job = await call(s, "store_memory", text=text, user_id="alice")
    while True:
        st = await call(s, "job_status", job_id=job["job_id"])
        if st["status"] == "done":
            return list(st["memory_ids"])
        assert st["status"] != "failed", st
        await anyio.sleep(0.05)


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
    params = StdioServerParameters(
        command=MEMDESK, args=["mcp", "--db", str(db), "--no-vectors", "--offline"],
        env={"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")})

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with stdio_client(params, errlog=sys.stderr) as (read, write, *_):
                info = types.Implementation(name="restore-test", version="0.1")
                async with ClientSession(read, write, client_info=info,
                                         read_timeout_seconds=60) as s:
                    await s.initialize()
                    for i in range(6):
                        acknowledged.extend(await store_and_wait(
                            s, f"I prefer tea number {i} in the morning."))
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
