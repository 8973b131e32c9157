"""Reads scoped by agent and run over the MCP SDK client: ``retrieve``, ``search_memories``
and ``list_memories`` with ``agent_id`` / ``run_id`` return only what that agent or run
stored — injected preferences included — and a scoped call does not narrow the next
unscoped one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from tests.helpers.mcp_stdio import LIMIT_S, call, client, error, store_and_wait

TURNS = (  # text, agent_id, run_id
    ("I prefer green tea in the morning.", "planner", "r1"),
    ("I prefer black coffee after lunch.", "coder", "r2"),
    ("I prefer sparkling water with dinner.", "coder", "r3"),
    ("I prefer still water at night.", None, None),
)

DRINKS = ("tea", "coffee", "sparkling", "still")


def texts(answer: dict[str, Any]) -> set[str]:
    found = answer.get("items") or [*answer.get("results", []), *answer.get("preferences", [])]
    return {m["text"] for m in found}


def test_reads_are_scoped_by_agent_and_run(tmp_path: Path) -> None:
    db = tmp_path / "s.db"

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(db, tmp_path, "--user", "alice") as s:
                for text, agent, run in TURNS:
                    scope = {k: v for k, v in (("agent_id", agent), ("run_id", run)) if v}
                    st = await store_and_wait(s, text, **scope)
                    assert st["status"] == "done" and st["memory_ids"], st
                listed = texts(await call(s, "list_memories"))
                turns = {t for t, _, _ in TURNS}  # each turn is kept as said (an episode)
                assert len(listed) == 8 and turns <= listed
                everything = listed - turns
                tea = {t for t in everything if "tea" in t}
                coffee = {t for t in everything if "coffee" in t}
                sparkling = {t for t in everything if "sparkling" in t}

                def sees(answer: dict[str, Any], units: set[str]) -> bool:
                    """Exactly ``units``, and at most the turns they came from."""
                    got = texts(answer)
                    drinks = {w for u in units for w in DRINKS if w in u}
                    said = {t for t in turns if any(w in t for w in drinks)}
                    return got - turns == units and got & turns <= said

                # A scoped retrieve first: what it sees must not stick to the user.
                got = await call(s, "retrieve", query="what does she prefer to drink",
                                 agent_id="planner")
                assert sees(got, tea)
                got = await call(s, "retrieve", query="what does she prefer to drink")
                assert sees(got, everything)
                got = await call(s, "retrieve", query="coffee", agent_id="coder")
                assert texts(got) - turns <= coffee | sparkling and coffee <= texts(got)
                got = await call(s, "retrieve", query="prefer", run_id="r3")
                assert sees(got, sparkling)
                got = await call(s, "retrieve", query="prefer", agent_id="coder", run_id="r2")
                assert sees(got, coffee)
                got = await call(s, "retrieve", query="prefer", agent_id="planner",
                                 run_id="r2")
                assert texts(got) == set() and got["results"] == []

                assert sees(await call(s, "search_memories", text="prefer", agent_id="coder"),
                            coffee | sparkling)
                assert sees(await call(s, "search_memories", text="prefer", run_id="r1"), tea)
                assert sees(await call(s, "list_memories", run_id="r2"), coffee)
                assert texts(await call(s, "list_memories", agent_id="nobody")) == set()

                # Bad scopes are refused, clearly.
                assert "agent_id" in await error(s, "retrieve", query="tea", agent_id="")
                assert "run_id" in await error(s, "retrieve", query="tea", run_id="r" * 201)
                assert "NUL" in await error(s, "retrieve", query="tea", agent_id="a\x00")

    anyio.run(main)
