"""The secrets lane over MCP (stdio, the SDK client): store_memory says a turn will be
held (and why, by category) or was masked, never echoing the value; job_status names the
categories held; retrieve, search, list and get_memory never return the held secret;
update_memory is held the same way."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.mcp_stdio import LIMIT_S, call, client, error, store_and_wait

PASSWORD = "Tr0ub4dor&3x"
EMAIL = "anna.keller@example.com"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    MemoryStore.open(tmp_path / "store.db").close()
    return tmp_path / "store.db"


def test_an_agent_is_told_and_never_shown(db: Path, tmp_path: Path) -> None:
    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(db, tmp_path, "--user", "alice") as s:
                job = await call(s, "store_memory",
                                 text=f"My password is {PASSWORD}. I like tea.")
                assert job["secrets"]["held_for_review"] == ["password"]
                assert "held for an operator's review" in job["secrets"]["note"]
                assert PASSWORD not in json.dumps(job)
                done = await store_and_wait(s, "I like green tea.")
                assert done["status"] == "done"
                while (st := await call(s, "job_status", job_id=job["job_id"]))[
                        "status"] != "done":
                    await anyio.sleep(0.1)
                assert st["held_secrets"] == ["password"] and st["held_for_review"] >= 1
                masked = await call(s, "store_memory", text=f"Mail me at {EMAIL}")
                assert masked["secrets"]["masked"] == ["email"]
                seen = json.dumps([
                    await call(s, "retrieve", query="password tea", floor=False),
                    await call(s, "search_memories", text="password"),
                    await call(s, "list_memories", status="any", limit=100)])
                assert PASSWORD not in seen and "tea" in seen
                page = await call(s, "list_memories", status="any", limit=100)
                old = page["items"][0]["id"]
                out = await call(s, "update_memory", memory_id=old,
                                 text=f"the wifi password is {PASSWORD}")
                assert out["status"] == "held_for_review"
                assert PASSWORD not in json.dumps(out)
                assert "held for an operator's review" in await error(
                    s, "get_memory", memory_id=out["correction_id"])

    anyio.run(main)
