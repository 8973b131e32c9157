"""``memdesk mcp`` fed raw JSON-RPC lines: what the SDK's client cannot even send (lone
surrogates, garbage lines) gets an error answer, and the session keeps serving."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.mcp_raw import RawServer


class RawSession(RawServer):
    """A raw server with numbered requests; answers decoded leniently, so an answer that
    is not UTF-8 still shows what it says."""

    def __init__(self, db: Path, home: Path) -> None:
        super().__init__(db, home, errors="replace")
        self.next_id = 0

    def send_line(self, line: str) -> None:
        self.send(line.encode("utf-8"))

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        # ensure_ascii: a lone surrogate travels as the JSON escape "\ud800", as it would
        # from a client that does not check its strings.
        self.send_line(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                   "params": params}, ensure_ascii=True))
        return self.answer(self.next_id)


@pytest.fixture
def raw(tmp_path: Path):
    s = RawSession(tmp_path / "store.db", tmp_path)
    yield s
    s.stop()


def tool(raw: RawSession, name: str, **args: Any) -> dict[str, Any]:
    return raw.request("tools/call", {"name": name, "arguments": args})["result"]


def test_odd_input_gets_errors_and_the_session_survives(raw: RawSession) -> None:
    import mcp_types as types

    init = raw.request("initialize", {
        "protocolVersion": types.LATEST_PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "raw\u0000\u202eclient" + "x" * 500, "version": "1"}})
    assert "result" in init
    raw.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    bad = tool(raw, "store_memory", text="\ud800 I prefer tea.", user_id="alice")
    assert bad["isError"] and "surrogate" in bad["content"][0]["text"]
    bad = tool(raw, "retrieve", query="tea \udfff", user_id="alice")
    assert bad["isError"] and "surrogate" in bad["content"][0]["text"]
    bad = tool(raw, "search_memories", user_id="alice", limit="NaN")
    assert bad["isError"]
    raw.send_line("this is not JSON {")
    raw.send_line(json.dumps({"jsonrpc": "2.0", "id": "x", "method": "tools/call",
                              "params": {"name": 5}}))
    ok = tool(raw, "store_memory", text="I prefer tea.", user_id="alice")
    assert not ok.get("isError"), ok
    job_id = json.loads(ok["content"][0]["text"])["job_id"]
    status = json.loads(tool(raw, "job_status", job_id=job_id)["content"][0]["text"])
    assert status["status"] in ("pending", "running", "done")
    assert raw.close() == 0
