"""Running ``memdesk mcp --http`` as a real process for tests, and talking to it with the
official SDK's streamable HTTP client (with or without a bearer token)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

# The call helpers are the stdio tests' (a tool result is the same over both transports).
from tests.helpers.mcp_stdio import (
    MEMDESK,
    call,  # noqa: F401 - re-exported for the HTTP tests
)
from tests.helpers.mcp_stdio import error as refused  # noqa: F401


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": str(Path(sys.executable).parent),
            "HF_HUB_OFFLINE": "1"}


@contextmanager
def http_server(db: Path, home: Path, *extra: str) -> Iterator[str]:
    """``memdesk mcp --http`` on a free port of 127.0.0.1; yields its URL; SIGTERM after."""
    port = free_port()
    log = home / f"server-{port}.log"  # stderr in a file: a pipe nobody reads can fill up
    with open(log, "wb") as errs:
        proc = subprocess.Popen(
            [MEMDESK, "mcp", "--http", "--port", str(port), "--db", str(db), "--no-vectors",
             "--offline", *extra],
            stdout=subprocess.DEVNULL, stderr=errs, env=env(home))
    wait_listening(port, proc, log)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def session(url: str, token: str | None = None,
                  name: str = "agent") -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    info = types.Implementation(name=name, version="1")
    async with (create_mcp_http_client(headers=headers) as client,
                streamable_http_client(url, http_client=client) as streams,
                ClientSession(streams[0], streams[1], client_info=info,
                              read_timeout_seconds=60) as s):
        await s.initialize()
        yield s


def wait_listening(port: int, proc: subprocess.Popen[bytes], log: Path | None = None,
                   timeout: float = 60) -> None:
    """Return once the server ``proc`` accepts connections on ``port``; kill it and fail
    (with its log, when given) if it exits or does not listen within ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                said = f": {log.read_text()!r}" if log is not None else ""
                raise AssertionError(f"the HTTP server did not start{said}") from None
            time.sleep(0.1)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"}}}


def post(url: str, token: str | None, message: dict[str, Any] = INIT,
         session_id: str | None = None) -> tuple[int, dict[str, str], dict[str, Any]]:
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    req = urllib.request.Request(url, json.dumps(message).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            r.read()
            return r.status, {k.lower(): v for k, v in r.headers.items()}, {}
    except urllib.error.HTTPError as exc:
        return (exc.code, {k.lower(): v for k, v in exc.headers.items()},
                json.loads(exc.read() or b"{}"))
