"""``memdesk mcp`` fed raw JSON-RPC lines: what the SDK's client cannot even send (lone
surrogates, garbage lines) gets an error answer, and the session keeps serving."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import pytest

MEMDESK = str(Path(sys.executable).with_name("memdesk"))
TIMEOUT_S = 60


class RawSession:
    """A server process spoken to line by line; answers read on a thread with a timeout."""

    def __init__(self, db: Path, home: Path) -> None:
        self.proc = subprocess.Popen(
            [MEMDESK, "mcp", "--db", str(db), "--no-vectors", "--offline"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={"HOME": str(home), "PATH": str(Path(sys.executable).parent)},
        )
        self.lines: Queue[str] = Queue()
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()
        self.next_id = 0

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace"))

    def send_line(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        # ensure_ascii: a lone surrogate travels as the JSON escape "\ud800", as it would
        # from a client that does not check its strings.
        self.send_line(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                   "params": params}, ensure_ascii=True))
        return self.answer(self.next_id)

    def answer(self, want: int) -> dict[str, Any]:
        while True:
            try:
                msg = json.loads(self.lines.get(timeout=TIMEOUT_S))
            except Empty:
                raise AssertionError(f"no answer to request {want} in {TIMEOUT_S} s") from None
            if msg.get("id") == want:
                return msg

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the server did not exit when its stdin closed") from None


@pytest.fixture
def raw(tmp_path: Path):
    s = RawSession(tmp_path / "store.db", tmp_path)
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()
    s.pump.join(TIMEOUT_S)
    for pipe in (s.proc.stdin, s.proc.stdout):
        if pipe is not None and not pipe.closed:
            pipe.close()


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
