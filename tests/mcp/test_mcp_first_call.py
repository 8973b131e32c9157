"""A server answers before its model has loaded: the first retrieve, sent as soon as the
session is up, comes back from the keyword and graph channels with a note instead of
waiting for the model; once loaded, retrieve runs every channel; a pending job says how
long it has waited.  (The packaged MiniLM model; nothing is downloaded.)"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import anyio

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.mcp_stdio import LIMIT_S, MEMDESK, call, client

LOADING = "still loading"


def test_the_first_retrieve_does_not_wait_for_the_model(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = MemoryStore.open(path)
    store.add(user_id="alice", text="alice prefers green tea", type="preference")
    store.close()

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            # On PyTorch the model takes seconds to load (on ONNX Runtime it may be
            # ready before the first call: tests/mcp/test_mcp_cold_start.py).
            async with client(path, tmp_path, "--user", "alice", vectors=True,
                              env={"MEMDESK_MCP_READY_WAIT_S": "0",
                                   "MEMDESK_EMBED_RUNTIME": "torch"}) as s:
                t = time.perf_counter()
                first = await call(s, "retrieve", query="green tea")
                assert time.perf_counter() - t < 3.0
                assert any(LOADING in n for n in first["notes"]), first["notes"]
                assert [h["text"] for h in first["results"]] == ["alice prefers green tea"]
                while True:  # the model finishes loading in the background
                    later = await call(s, "retrieve", query="green tea")
                    if not any(LOADING in n for n in later["notes"]):
                        break
                    await anyio.sleep(0.2)
                assert [h["text"] for h in later["results"]] == ["alice prefers green tea"]

    anyio.run(main)


def test_a_pending_job_says_how_long_it_has_waited(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    MemoryStore.open(path).close()

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(path, tmp_path, "--user", "alice") as s:
                job = await call(s, "store_memory", text="I live in Oslo.")
                first = await call(s, "job_status", job_id=job["job_id"])
                await anyio.sleep(0.2)
                st = await call(s, "job_status", job_id=job["job_id"])
                assert first["waited_s"] >= 0
                if st["status"] in ("pending", "running"):  # still waiting for its result
                    assert st["waited_s"] >= 0.2
                else:  # done: how long it took, fixed from then on
                    assert st["finished_at"] and st["waited_s"] < 60

    anyio.run(main)


def test_bad_user_flags_are_refused_before_serving(tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    for args, words in ((["--users-from", str(tmp_path / "missing.txt")], "missing.txt"),
                        (["--user", " "], "1-200 printable")):
        r = subprocess.run([MEMDESK, "mcp", "--db", db, "--no-vectors", *args],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr
    empty = tmp_path / "empty.txt"
    empty.write_text("# nobody\n", encoding="utf-8")
    r = subprocess.run([MEMDESK, "mcp", "--db", db, "--users-from", str(empty)],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "lists no user" in r.stderr
