"""A server bound to its users (``memdesk mcp --user``) answers only about them: every
tool tried with every other user's ids gets "not found" (word for word as a missing id)
or a refusal, and nothing is written; one bound user makes user_id optional; an unbound
server says it is unbound."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from tests.helpers.mcp_stdio import LIMIT_S, call, client, error, store_and_wait

USERS = ("alice", "bob", "carol")


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    """A store with one memory and one job per user; (path, memory ids, job ids)."""
    path = tmp_path / "store.db"
    store = MemoryStore.open(path)
    try:
        mems = {u: store.add(user_id=u, text=f"{u} likes green tea", type="preference",
                             actor="agent").id for u in USERS}
        jobs = {u: JobQueue(store).enqueue(Turn(f"I am {u}.", u)) for u in USERS}
    finally:
        store.close()
    return path, mems, jobs


def by_id_calls(mem: str, job: str) -> list[tuple[str, dict[str, object]]]:
    return [("get_memory", {"memory_id": mem}), ("memory_history", {"memory_id": mem}),
            ("forget", {"memory_id": mem}),
            ("update_memory", {"memory_id": mem, "text": "likes coffee now"}),
            ("job_status", {"job_id": job})]


def by_user_calls(user: str) -> list[tuple[str, dict[str, object]]]:
    return [("retrieve", {"query": "tea", "user_id": user}),
            ("search_memories", {"user_id": user, "text": "tea"}),
            ("list_memories", {"user_id": user}),
            ("store_memory", {"text": "I live in Oslo.", "user_id": user})]


def test_no_tool_answers_about_another_users_ids(seeded, tmp_path: Path) -> None:
    path, mems, jobs = seeded

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(path, tmp_path, "--user", "alice") as s:
                answered = 0
                for other in ("bob", "carol"):
                    for tool, args in by_id_calls(mems[other], jobs[other]):
                        r = await s.call_tool(tool, args)
                        answered += not r.is_error
                        text = r.content[0].text
                        # The same words as for an id that does not exist at all.
                        missing = await error(s, tool, **{
                            k: ("0" * 32 if k in ("memory_id", "job_id") else v)
                            for k, v in args.items()})
                        assert text.replace(str(args.get("memory_id", args.get("job_id"))),
                                            "0" * 32) == missing, (tool, text, missing)
                    for tool, args in by_user_calls(other):
                        r = await s.call_tool(tool, args)
                        answered += not r.is_error
                        assert "not served here" in r.content[0].text
                assert answered == 0
                # alice's own ids all answer
                for tool, args in by_id_calls(mems["alice"], jobs["alice"])[:2]:
                    assert not (await s.call_tool(tool, args)).is_error

    anyio.run(main)
    store = MemoryStore.open(path)
    try:  # nothing of bob's or carol's was changed or added
        for u in ("bob", "carol"):
            assert store.get(mems[u]).is_active
            assert [e.action for e in store.events(mems[u])] == ["add"]
        assert store.count(MemoryFilter(user_ids=("bob", "carol"))) == 2
    finally:
        store.close()


def test_one_bound_user_makes_user_id_optional(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    MemoryStore.open(path).close()

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(path, tmp_path, "--user", "alice") as s:
                assert "'alice'" in s.init_result.instructions
                st = await store_and_wait(s, "I prefer green tea.", agent_id="planner",
                                          run_id="r1")
                assert st["status"] == "done" and st["memory_ids"]
                got = await call(s, "get_memory", memory_id=st["memory_ids"][0])
                assert (got["user_id"], got["agent_id"], got["run_id"]) == (
                    "alice", "planner", "r1")
                assert (await call(s, "list_memories"))["items"]
                assert (await call(s, "list_memories", agent_id="planner"))["items"]
                assert (await call(s, "list_memories", agent_id="other"))["items"] == []
                r = await call(s, "retrieve", query="green tea")
                assert st["memory_ids"][0] in {m["id"] for m in r["results"] + r["preferences"]}

    anyio.run(main)


def test_several_bound_users_need_user_id_and_unbound_says_so(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    MemoryStore.open(path).close()
    log = tmp_path / "server.log"

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(path, tmp_path, "--user", "alice", "--user", "bob") as s:
                assert "user_id is required" in await error(s, "list_memories")
                assert (await call(s, "list_memories", user_id="bob"))["items"] == []
            with log.open("w") as errlog:
                async with client(path, tmp_path, errlog=errlog) as s:
                    assert "unbound" in s.init_result.instructions
                    assert "user_id is required" in await error(s, "list_memories")
                    assert (await call(s, "list_memories", user_id="zed"))["items"] == []

    anyio.run(main)
    assert "unbound" in log.read_text()


def test_users_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    MemoryStore.open(path).close()
    users = tmp_path / "users.txt"
    users.write_text("# served here\nalice\n\nbob  # the second\n", encoding="utf-8")

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(path, tmp_path, "--users-from", str(users)) as s:
                assert "'alice', 'bob'" in s.init_result.instructions
                assert "not served" in await error(s, "list_memories", user_id="carol")

    anyio.run(main)
