"""200 calls at once against a real ``memdesk mcp --http`` on 127.0.0.1, from the SDK's
HTTP client, for two tokens of two users, reads and writes mixed: every call is
answered, no answer holds the other user's memories, every write is stored for its
own user (nothing lost), and every attempt on the other user's ids is "not found"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from memdesk.core.guard import tokens
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.mcp_http import http_server, session

CALLS = 200
SESSIONS_PER_USER = 4
USERS = ("alice", "bob")
VERBS = ("like", "grow", "collect", "repair", "paint", "study")
THINGS = ("tulips", "cacti", "stamps", "clocks", "kites", "violins", "fossils", "maps",
          "lanterns", "canoes", "orchids", "telescopes", "bonsai", "quilts", "marbles",
          "harps", "compasses")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, dict, dict]]:
    home = tmp_path_factory.mktemp("concurrent")
    db = home / "s.db"
    store = MemoryStore.open(db, create=True)
    secrets = {u: tokens.add_token(store, f"{u}-bot", [u], ["read", "write"]).secret
               for u in USERS}
    ids = {u: [store.add(user_id=u, text=f"{u.title()} note {i}: likes topic {i}",
                         type="fact").id for i in range(20)] for u in USERS}
    store.close()
    with http_server(db, home) as url:
        yield url, db, secrets, ids


def test_200_concurrent_mixed_calls_for_two_users(served) -> None:  # type: ignore[no-untyped-def]
    url, db, secrets, ids = served
    answers: list[tuple[str, str, Any]] = []  # (user, tool, answer or "refused: …")

    async def one(s: Any, user: str, i: int) -> None:
        other = USERS[1 - USERS.index(user)]
        kind = i % 6
        if kind == 0:
            tool, args = "store_memory", {"text": f"I {VERBS[i % 6]} {THINGS[i // 6]}.",
                                          "user_id": user}
        elif kind == 1:
            tool, args = "retrieve", {"query": f"likes topic {i % 20}", "user_id": user}
        elif kind == 2:
            tool, args = "list_memories", {"user_id": user, "limit": 100}
        elif kind == 3:
            tool, args = "search_memories", {"user_id": user, "text": "likes"}
        elif kind == 4:
            tool, args = "get_memory", {"memory_id": ids[user][i % 20]}
        else:  # the other user's memory, by id: must be "not found"
            tool, args = "get_memory", {"memory_id": ids[other][i % 20]}
        r = await s.call_tool(tool, args)
        text = r.content[0].text
        answers.append((user, tool if kind != 5 else "get_other",
                        f"refused: {text}" if r.is_error else json.loads(text)))

    async def main() -> None:
        with anyio.fail_after(180):
            async with anyio.create_task_group() as outer:
                for user in USERS:
                    for n in range(SESSIONS_PER_USER):
                        outer.start_soon(run_session, user, n)

    async def run_session(user: str, n: int) -> None:
        async with session(url, secrets[user], name=f"{user}-agent-{n}") as s:
            per = CALLS // (len(USERS) * SESSIONS_PER_USER)
            async with anyio.create_task_group() as tg:  # all of this session's calls at once
                for k in range(per):
                    tg.start_soon(one, s, user, n * per + k)

    anyio.run(main)
    assert len(answers) == CALLS  # every call answered

    own = {u: set(ids[u]) for u in USERS}
    jobs: dict[str, list[str]] = {u: [] for u in USERS}
    for user, tool, a in answers:
        other = USERS[1 - USERS.index(user)]
        if tool == "get_other":
            assert isinstance(a, str) and "No memory with id" in a, a
            continue
        assert not isinstance(a, str), (user, tool, a)
        if tool == "store_memory":
            jobs[user].append(a["job_id"])
        elif tool == "retrieve":
            got = {h["id"] for h in a["results"]} | {p["id"] for p in a["preferences"]}
            assert not got & own[other], (user, a)
        elif tool in ("list_memories", "search_memories"):
            assert {m["user_id"] for m in a["items"]} <= {user}, (user, a)
            assert a["items"]
        else:
            assert a["user_id"] == user

    # Nothing lost: every write became memories of its own user, and only theirs.
    async def check_jobs() -> dict[str, list[str]]:
        stored: dict[str, list[str]] = {u: [] for u in USERS}
        with anyio.fail_after(120):
            for user in USERS:
                async with session(url, secrets[user]) as s:
                    for job in jobs[user]:
                        while True:
                            r = await s.call_tool("job_status", {"job_id": job})
                            st = json.loads(r.content[0].text)
                            if st["status"] in ("done", "failed"):
                                break
                            await anyio.sleep(0.1)
                        assert st["status"] == "done", st
                        # Stored, or held for the operator's review: never dropped.
                        assert st["memory_ids"] or st["held_for_review"], st
                        stored[user] += st["memory_ids"]
        return stored

    stored = anyio.run(check_jobs)
    per_user = CALLS // len(USERS)
    assert [len(jobs[u]) for u in USERS] == [len(range(0, per_user, 6))] * len(USERS)
    store = MemoryStore.open(db, create=False)
    try:
        for user in USERS:
            assert {store.get(m).user_id for m in stored[user]} == {user}
    finally:
        store.close()
