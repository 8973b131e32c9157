"""``memdesk mcp --http``: streamable HTTP on 127.0.0.1, two clients of one server process
at the same time, provenance naming the transport; the server stops on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.helpers.mcp_http import MEMDESK, call, free_port, wait_listening


@pytest.fixture
def server(tmp_path: Path):
    port = free_port()
    proc = subprocess.Popen(
        [MEMDESK, "mcp", "--http", "--port", str(port), "--db", str(tmp_path / "s.db"),
         "--no-vectors", "--offline"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={"HOME": str(tmp_path), "PATH": str(Path(sys.executable).parent)})
    wait_listening(port, proc)
    yield f"http://127.0.0.1:{port}/mcp", proc
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("the HTTP server did not stop on SIGTERM") from None


async def session_run(url: str, name: str, text: str, out: dict[str, Any]) -> None:
    async with streamable_http_client(url) as streams:
        info = types.Implementation(name=name, version="2")
        async with ClientSession(streams[0], streams[1], client_info=info,
                                 read_timeout_seconds=60) as s:
            await s.initialize()
            job = await call(s, "store_memory", text=text, user_id="alice")
            while (st := await call(s, "job_status", job_id=job["job_id"]))["status"] not in (
                    "done", "failed"):
                await anyio.sleep(0.05)
            assert st["status"] == "done", st
            out[name] = await call(s, "get_memory", memory_id=st["memory_ids"][0])


def test_two_http_clients_share_one_server(server: tuple[str, subprocess.Popen]) -> None:
    url, proc = server
    out: dict[str, Any] = {}

    async def main() -> None:
        with anyio.fail_after(90):
            async with anyio.create_task_group() as tg:
                tg.start_soon(session_run, url, "http-a", "I live in Porto.", out)
                tg.start_soon(session_run, url, "http-b", "I work at Globex.", out)

    anyio.run(main)
    assert out["http-a"]["text"] == "The user lives in Porto."
    assert out["http-b"]["origin"]["client_name"] == "http-b"
    assert out["http-a"]["origin"]["transport"] == "streamable-http"
    assert out["http-a"]["origin"]["session"] != out["http-b"]["origin"]["session"]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(20) is not None
