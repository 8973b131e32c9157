"""``memdesk mcp`` spoken to as raw JSON-RPC lines, for what the SDK's client cannot send
(garbage, lone surrogates, oversized lines, batches).  Answers are read on a thread, so a
missing one fails the test after ``TIMEOUT_S`` instead of hanging it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import Any

from tests.helpers.mcp_stdio import MEMDESK

TIMEOUT_S = 60


class RawServer:
    """A server process (no vectors, offline) on ``db``, written to line by line.

    ``errors`` is how its output is decoded: "strict" fails on bytes that are not UTF-8,
    "replace" lets a test look at the answer anyway."""

    def __init__(self, db: Path, home: Path, errors: str = "strict") -> None:
        self.proc = subprocess.Popen(
            [MEMDESK, "mcp", "--db", str(db), "--no-vectors", "--offline"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={"HOME": str(home), "PATH": str(Path(sys.executable).parent)})
        self.errors = errors
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
                raw = self.lines.get(timeout=TIMEOUT_S)
            except Empty:
                raise AssertionError(f"no answer for id {want!r} in {TIMEOUT_S} s") from None
            msg = json.loads(raw.decode("utf-8", self.errors))
            ids = [m.get("id") for m in msg] if isinstance(msg, list) else [msg.get("id")]
            if want in ids:
                return msg

    def close(self) -> int | None:
        """Close stdin, as a leaving client does: the server's exit code, or None when it
        did not exit within ``TIMEOUT_S`` and was killed."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def stop(self) -> None:
        """Kill the server if it still runs; stop reading and close the pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.pump.join(TIMEOUT_S)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()
