"""``retrieve`` over the MCP SDK client: ``floor=false`` returns k, the rest marked.

An agent asking about something it never stored gets nothing by default, and the k
nearest memories, each marked ``below_floor``, when it says it will judge them itself;
the structured output validates against the tool's declared schema either way (the
SDK client checks it).
"""

from __future__ import annotations

from pathlib import Path

import anyio

from tests.helpers.mcp_stdio import LIMIT_S, call, client, error, store_and_wait

TURNS = (
    "I prefer green tea in the morning.",
    "My sister lives in Vienna.",
    "I work at Acme Robotics as a firmware engineer.",
)


def test_floor_false_fills_k_and_marks_what_did_not_pass(tmp_path: Path) -> None:
    db = tmp_path / "s.db"

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(db, tmp_path, "--user", "alice") as s:
                for text in TURNS:
                    st = await store_and_wait(s, text)
                    assert st["status"] == "done" and st["memory_ids"], st
                q = "What is my blood type?"
                strict = await call(s, "retrieve", query=q, k=3, include_preferences=False)
                assert strict["results"] == []
                filled = await call(s, "retrieve", query=q, k=3, include_preferences=False,
                                    floor=False)
                assert len(filled["results"]) == 3
                assert all(r["below_floor"] is True for r in filled["results"])
                hit = await call(s, "retrieve", query="Where does my sister live?", k=3,
                                 include_preferences=False, floor=False)
                first = hit["results"][0]
                assert "sister lives in Vienna" in first["text"]
                assert "below_floor" not in first
                assert "floor" in await error(s, "retrieve", query=q, floor="sometimes")

    anyio.run(main)
