"""Through the agents' own path over stdio: every turn is kept as said, with who said it
and when, and comes back from ``retrieve`` saying so; a unit names the turn it came
from; a bad session time is refused with the field's name."""

from __future__ import annotations

from pathlib import Path

import anyio

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.mcp_stdio import call, client, error, store_and_wait

LIMIT_S = 120


def test_turns_are_kept_as_said_and_retrieved_with_their_time(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    MemoryStore.open(db).close()

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(db, tmp_path, "--user", "mel") as s:
                event = await store_and_wait(
                    s, "I went to a LGBTQ support group yesterday and it was so powerful.",
                    session_id="s1", speaker="Caroline", said_at="2023-05-08T13:56:00Z")
                # the turn itself is kept, whatever the extractor made of it
                assert event["status"] == "done"
                assert event["episode_id"]
                fact = await store_and_wait(s, "I work at Siemens as a firmware engineer.",
                                            session_id="s2", speaker="Caroline",
                                            said_at="2023-06-01 09:00")
                assert fact["memory_ids"] and fact["episode_id"]
                got = await call(s, "retrieve", query="support group")
                [hit] = [h for h in got["results"] if h["id"] == event["episode_id"]]
                assert hit["type"] == "episode" and hit["speaker"] == "Caroline"
                assert hit["said_at"] == "2023-05-08T13:56:00" and hit["session"] == "s1"
                assert 0 < hit["relevance"] <= 1
                got = await call(s, "retrieve", query="Where does she work? Siemens")
                ids = [h["id"] for h in got["results"]]
                unit = ids.index(fact["memory_ids"][0])
                assert got["results"][unit]["episode"]["id"] == fact["episode_id"]
                assert got["results"][unit]["episode"]["said_at"] == "2023-06-01T09:00:00"
                if fact["episode_id"] in ids:
                    assert unit < ids.index(fact["episode_id"])
                message = await error(s, "store_memory", text="hello",
                                      said_at="the 45th of Smarch")
                assert "said_at" in message and "ISO 8601" in message

    anyio.run(main)
