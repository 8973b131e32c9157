"""``memdesk mcp`` answers every line that carries an id, and refuses oversized lines
at the documented limit in one pass: raw lines written to a real server's stdin."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import mcp_types as types
import pytest

from memdesk.app.mcp_lines import MAX_LINE_BYTES

MEMDESK = str(Path(sys.executable).with_name("memdesk"))
TIMEOUT_S = 60


class Wire:
    """A server process written to as raw bytes; its output lines read on a thread."""

    def __init__(self, db: Path, home: Path) -> None:
        self.proc = subprocess.Popen(
            [MEMDESK, "mcp", "--db", str(db), "--no-vectors", "--offline"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={"HOME": str(home), "PATH": str(Path(sys.executable).parent)})
        self.lines: Queue[bytes] = Queue()
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def answer(self, want: Any) -> Any:
        """The next answer whose id is ``want`` (an array answers a batch)."""
        while True:
            try:
                msg = json.loads(self.lines.get(timeout=TIMEOUT_S))
            except Empty:
                raise AssertionError(f"no answer for id {want!r} in {TIMEOUT_S} s") from None
            ids = [m.get("id") for m in msg] if isinstance(msg, list) else [msg.get("id")]
            if want in ids:
                return msg


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory):
    # One server for the module: every test also checks that the session goes on.
    home = tmp_path_factory.mktemp("mcp-lines")
    w = Wire(home / "store.db", home)
    w.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": types.LATEST_PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}).encode())
    assert "result" in w.answer(0)
    w.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield w
    assert w.proc.stdin is not None
    w.proc.stdin.close()
    try:
        w.proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        w.proc.kill()
        w.proc.wait()
    w.pump.join(TIMEOUT_S)
    if w.proc.stdout is not None:
        w.proc.stdout.close()


def tools_list(w: Wire, id_: int) -> dict[str, Any]:
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
        wire: Wire, line: bytes, id_: Any, code: int, words: str) -> None:
    wire.send(line)
    reply = wire.answer(id_)
    assert reply["error"]["code"] == code and words in reply["error"]["message"]
    assert "result" in tools_list(wire, 100)  # the session goes on


def test_a_batch_gets_one_error_per_request_and_notifications_none(wire: Wire) -> None:
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
        wire: Wire) -> None:
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


def test_a_line_just_under_the_limit_is_read(wire: Wire) -> None:
    pad = MAX_LINE_BYTES - 200
    line = json.dumps({"jsonrpc": "2.0", "id": 41, "method": "tools/list",
                       "params": {"_meta": {"pad": "x" * pad}}}).encode()
    assert len(line) < MAX_LINE_BYTES
    wire.send(line)
    assert "result" in wire.answer(41)
