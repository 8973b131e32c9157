"""``memdesk mcp`` answers every line that carries an id, and refuses oversized lines
at the documented limit in one pass: raw lines written to a real server's stdin."""

from __future__ import annotations

import json
import time
from typing import Any

import mcp_types as types
import pytest

from memdesk.app.mcp.lines import MAX_LINE_BYTES
from tests.helpers.mcp_raw import RawServer


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory):
    # One server for the module: every test also checks that the session goes on.
    home = tmp_path_factory.mktemp("mcp-lines")
    w = RawServer(home / "store.db", home)
    w.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": types.LATEST_PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}).encode())
    assert "result" in w.answer(0)
    w.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield w
    w.close()
    w.stop()


def tools_list(w: RawServer, id_: int) -> dict[str, Any]:
    w.send(json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/list"}).encode())
    return w.answer(id_)


BAD_LINES = [
    (b'{"jsonrpc":"1.0","id":7,"method":"tools/list"}', 7, -32600, "2.0"),
    (b'{"jsonrpc":"2.0","id":"nul","method":"tools/list\x00"}', "nul", -32700, "control"),
    (b'{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}\x00', 9, -32700, "control"),
    (b'{"id":10,"method":"tools/list"}', 10, -32600, "2.0"),
    (b'{"jsonrpc":"2.0","id":11,"method":42}', 11, -32600, "method"),
    (b'{"jsonrpc":"2.0","id":12,"method":"tools/list","params":[1]}', 12, -32600, "params"),
    (b"this is not JSON {", None, -32700, "not JSON"),
    (b"\xff\xfe garbage", None, -32700, "not JSON"),
]


@pytest.mark.parametrize("line,id_,code,words", BAD_LINES)
def test_an_invalid_line_gets_a_json_rpc_error_with_its_id(
        wire: RawServer, line: bytes, id_: Any, code: int, words: str) -> None:
    wire.send(line)
    reply = wire.answer(id_)
    assert reply["error"]["code"] == code and words in reply["error"]["message"]
    assert "result" in tools_list(wire, 100)  # the session goes on


def test_a_batch_gets_one_error_per_request_and_notifications_none(wire: RawServer) -> None:
    wire.send(json.dumps([
        {"jsonrpc": "2.0", "id": 21, "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "b", "method": "ping"},
    ]).encode())
    reply = wire.answer(21)
    assert isinstance(reply, list) and [r["id"] for r in reply] == [21, "b"]
    assert all(r["error"]["code"] == -32600 and "batch" in r["error"]["message"]
               for r in reply)
    wire.send(b"[]")
    assert wire.answer(None)["error"]["code"] == -32600
    assert "result" in tools_list(wire, 101)


def test_a_50_mb_line_is_refused_at_the_limit_and_the_next_call_is_prompt(
        wire: RawServer) -> None:
    size = 50 * 1024 * 1024
    big = (b'{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"retrieve",'
           b'"arguments":{"query":"' + b"a" * size + b'"}}}')
    start = time.monotonic()
    wire.send(big)
    reply = wire.answer(31)
    refused = time.monotonic() - start
    assert reply["error"]["code"] == -32600
    assert f"{MAX_LINE_BYTES:,} bytes" in reply["error"]["message"]
    start = time.monotonic()
    assert "result" in tools_list(wire, 32)
    after = time.monotonic() - start
    # Linear: 50 MB through a pipe and one pass (about 1 s here); it took 48 s before.
    assert refused < 20 and after < 5, (refused, after)


def test_a_line_just_under_the_limit_is_read(wire: RawServer) -> None:
    pad = MAX_LINE_BYTES - 200
    line = json.dumps({"jsonrpc": "2.0", "id": 41, "method": "tools/list",
                       "params": {"_meta": {"pad": "x" * pad}}}).encode()
    assert len(line) < MAX_LINE_BYTES
    wire.send(line)
    assert "result" in wire.answer(41)
