"""Driving ``memdesk mcp`` over stdio with the official SDK client (shared by the MCP
tests): a server process per ``client`` context, with extra command-line arguments."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

MEMDESK = str(Path(sys.executable).with_name("memdesk"))
LIMIT_S = 120


@asynccontextmanager
async def client(db: Path, home: Path, *args: str, name: str = "test-agent",
                 errlog: Any = None, vectors: bool = False,
                 env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    flags = ["--offline"] + ([] if vectors else ["--no-vectors"])
    params = StdioServerParameters(
        command=MEMDESK, args=["mcp", "--db", str(db), *flags, *args],
        env={"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "HF_HUB_OFFLINE": "1",
             # The test run's cache: the embedding model exported once, not per server.
             "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", str(home / "cache")),
             **(env or {})})
    async with stdio_client(params, errlog=errlog or sys.stderr) as streams:
        info = types.Implementation(name=name, version="0.1")
        async with ClientSession(streams[0], streams[1], client_info=info,
                                 read_timeout_seconds=60) as s:
            s.init_result = await s.initialize()  # type: ignore[attr-defined]
            yield s


async def call(s: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    r = await s.call_tool(tool, args)
    assert not r.is_error, r.content[0].text
    return json.loads(r.content[0].text)


async def error(s: ClientSession, tool: str, **args: Any) -> str:
    r = await s.call_tool(tool, args)
    assert r.is_error, r.content
    return r.content[0].text


async def store_and_wait(s: ClientSession, text: str, **args: Any) -> dict[str, Any]:
    job = await call(s, "store_memory", text=text, **args)
    assert job["status"] == "pending"
    while True:
        st = await call(s, "job_status", job_id=job["job_id"])
        if st["status"] in ("done", "failed"):
            return st
        await anyio.sleep(0.05)
