"""Oversized arguments to every tool that takes text, over stdio and over HTTP: each is
refused with a message naming the argument and its limit, nothing is written, and the
session goes on serving."""

from __future__ import annotations

import contextlib
import socket
import urllib.parse
from pathlib import Path

import anyio
from sqlalchemy import text

from memdesk.core.guard import tokens
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.mcp_http import http_server, session
from tests.helpers.mcp_stdio import LIMIT_S, call, client, error

TOO_BIG = {  # tool, arguments, what the message must name
    "store_memory": ({"text": "x" * 100_001}, "100000"),
    "retrieve": ({"query": "tea " * 2_501}, "10000"),
    "search_memories": ({"text": "t" * 1_001}, "1000"),
    "list_memories": ({"limit": 101}, "100"),
    "update_memory": ({"memory_id": "m", "text": "y" * 10_001}, "10000"),
    "job_status": ({"job_id": "j" * 65}, "64"),
    "get_memory": ({"memory_id": "i" * 65}, "64"),
}


def counts(db: Path) -> tuple[int, int, int]:
    store = MemoryStore.open(db, create=False)
    try:
        with store.read() as conn:
            return tuple(int(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one())
                         for t in ("memories", "jobs", "memory_events"))  # type: ignore[return-value]
    finally:
        store.close()


def post_status(url: str, secret: str, size: int) -> int:
    """The HTTP status of a POST announcing ``size`` bytes (the server may answer and
    close before the body is sent: that is the refusal)."""
    parts = urllib.parse.urlsplit(url)
    head = (f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"Authorization: Bearer {secret}\r\nContent-Length: {size}\r\n\r\n")
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.sendall(head.encode())
        with contextlib.suppress(OSError):  # refused and closed mid-body
            sock.sendall(b"{" + b" " * (size - 1))
        answer = sock.recv(200).decode("latin-1")
    return int(answer.split()[1])


def seeded(tmp_path: Path) -> Path:
    db = tmp_path / "s.db"
    store = MemoryStore.open(db, create=True)
    store.add(user_id="alice", text="Alice drinks green tea", type="fact")
    store.close()
    return db


def test_oversized_arguments_over_stdio(tmp_path: Path) -> None:
    db = seeded(tmp_path)
    before = counts(db)

    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with client(db, tmp_path, "--user", "alice") as s:
                for tool, (args, limit) in TOO_BIG.items():
                    message = await error(s, tool, **args)
                    assert limit in message.replace(",", ""), (tool, message)
                    assert "Traceback" not in message
                assert "200" in await error(s, "retrieve", query="tea", user_id="u" * 201)
                assert "100" in await error(s, "retrieve", query="tea", k=101)
                assert "200" in await error(s, "store_memory", text="hi", topic="t" * 201)
                hits = await call(s, "retrieve", query="green tea")  # still serving
                assert [h["text"] for h in hits["results"]] == ["Alice drinks green tea"]

    anyio.run(main)
    assert counts(db) == before  # nothing written


def test_oversized_arguments_and_bodies_over_http(tmp_path: Path) -> None:
    db = seeded(tmp_path)
    store = MemoryStore.open(db)
    secret = tokens.add_token(store, "alice-bot", ["alice"], ["read", "write"]).secret
    store.close()
    before = counts(db)
    with http_server(db, tmp_path) as url:
        async def main() -> None:
            with anyio.fail_after(LIMIT_S):
                async with session(url, secret) as s:
                    for tool, (args, limit) in TOO_BIG.items():
                        assert limit in (await error(s, tool, **args)).replace(",", "")

        anyio.run(main)
        # A body past the transport's limit (4 MiB) is refused before it is read.
        assert post_status(url, secret, 5 * 1024 * 1024) == 413
    assert counts(db) == before
