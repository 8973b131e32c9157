"""What a read-only token's ``retrieve`` writes, over a real ``memdesk mcp --http``: the
reinforcement the decay model counts on (``access_count`` + 1, ``last_accessed``; the
dispositional-memory design's "retrieved three times since") and the retrieval record;
never the memory itself: same text, same fields, same version (an operator's open
``--if-version`` stays valid), no audit event (docs/agents.md, "What a read writes")."""

from __future__ import annotations

from pathlib import Path

import anyio
from sqlalchemy import text

from memdesk.core.guard import tokens
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.mcp_http import call, http_server, refused, session

CONTENT = ("text", "type", "topic", "importance", "confidence", "entity", "attribute",
           "value", "layer", "deleted_at", "superseded_by")


def test_a_read_only_retrieve_reinforces_and_changes_nothing_else(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = MemoryStore.open(db, create=True)
    secret = tokens.add_token(store, "alice-ro", ["alice"], ["read"]).secret
    mid = store.add(user_id="alice", text="User lives in Porto", type="fact").id
    before = store.get(mid)
    events = [e.id for e in store.events(mid)]
    store.close()

    async def run(url: str) -> None:
        async with session(url, secret, name="reader") as s:
            got = await call(s, "retrieve", query="where does the user live Porto",
                             user_id="alice")
            assert [r["id"] for r in got["results"]] == [mid]
            # The other reads reinforce nothing: the count below is the retrieve's alone.
            assert (await call(s, "get_memory", memory_id=mid))["id"] == mid
            await call(s, "search_memories", user_id="alice", text="Porto")
            await call(s, "list_memories", user_id="alice")
            assert "needs the 'write' right" in await refused(s, "store_memory", user_id="alice",
                                                    text="I moved to Lisbon.")

    with http_server(db, tmp_path) as url:
        anyio.run(run, url)
    # The server has stopped: its background writer has flushed the reinforcement.

    store = MemoryStore.open(db, create=False)
    try:
        after = store.get(mid)
        assert after.access_count == before.access_count + 1
        assert after.last_accessed is not None
        assert {k: getattr(after, k) for k in CONTENT} == {
            k: getattr(before, k) for k in CONTENT}
        assert after.version == before.version
        assert [e.id for e in store.events(mid)] == events
        with store.read() as conn:
            records = conn.execute(text("SELECT count(*) FROM retrievals")).scalar_one()
            jobs = conn.execute(text("SELECT count(*) FROM jobs")).scalar_one()
        assert (records, jobs) == (1, 0)
    finally:
        store.close()
