"""Every MCP tool call, reads included, is in the operator's access log with the token's
name, the tool, the user, how many memories it returned and the outcome — seen from
``memdesk tokens log`` / ``tokens list`` and in the desk's Agent tokens dialog — and
reads add nothing to the memories' audit trail."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from sqlalchemy import text

from memdesk.core.guard import tokens
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.mcp_http import MEMDESK, call, env, http_server, refused, session
from tests.helpers.mcp_stdio import client


def memdesk(db: Path, *args: str) -> str:
    done = subprocess.run([MEMDESK, *args, "--db", str(db)], capture_output=True, text=True,
                          env=env(db.parent), timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def logged(db: Path, *args: str, until: Any = bool) -> list[dict[str, Any]]:
    """``memdesk tokens log --json``, polled until ``until(rows)`` (writes are batched)."""
    deadline = time.monotonic() + 30
    while True:
        rows = json.loads(memdesk(db, "tokens", "log", *args, "--limit", "1000", "--json"))
        if until(rows) or time.monotonic() > deadline:
            return rows
        time.sleep(0.3)


def events(db: Path) -> int:
    store = MemoryStore.open(db, create=False)
    try:
        with store.read() as conn:
            return int(conn.execute(text("SELECT count(*) FROM memory_events")).scalar_one())
    finally:
        store.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, dict, dict]]:
    home = tmp_path_factory.mktemp("access-log")
    db = home / "s.db"
    store = MemoryStore.open(db, create=True)
    secrets = {n: tokens.add_token(store, n, [u], ["read", "write"]).secret
               for n, u in (("alice-bot", "alice"), ("bob-bot", "bob"))}
    ids = {"alice": store.add(user_id="alice", text="Alice drinks green tea", type="fact").id,
           "bob": store.add(user_id="bob", text="Bob drinks black coffee", type="fact").id}
    store.close()
    with http_server(db, home) as url:
        yield url, db, secrets, ids


def test_every_read_is_logged_with_the_token_user_and_count(served) -> None:  # type: ignore[no-untyped-def]
    url, db, secrets, ids = served
    before = events(db)

    async def run() -> None:
        async with session(url, secrets["alice-bot"]) as s:
            hits = await call(s, "retrieve", query="green tea", user_id="alice")
            assert [h["id"] for h in hits["results"]] == [ids["alice"]]
            await call(s, "search_memories", user_id="alice", text="tea")
            await call(s, "list_memories", user_id="alice")
            await call(s, "get_memory", memory_id=ids["alice"])
            await call(s, "memory_history", memory_id=ids["alice"])
            assert "No memory with id" in await refused(s, "get_memory", memory_id=ids["bob"])
            assert "not served" in await refused(s, "list_memories", user_id="bob")

    anyio.run(run)
    rows = logged(db, "alice-bot", until=lambda r: len(r) >= 7)
    by_tool: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_tool.setdefault(r["tool"], []).append(r)
    assert {r["caller"] for r in rows} == {"alice-bot"}
    assert {r["transport"] for r in rows} == {"streamable-http"}
    (ret,) = by_tool["retrieve"]
    assert (ret["user_id"], ret["outcome"], ret["results"]) == ("alice", "ok", 1)
    assert by_tool["search_memories"][0]["results"] == 1
    assert [r["results"] for r in by_tool["list_memories"] if r["outcome"] == "ok"] == [1]
    # The refused attempts on bob's memories: the agent heard "not found", the operator
    # sees whose memories they were after.
    denied = [r for r in rows if r["outcome"] == "refused"]
    assert sorted(r["tool"] for r in denied) == ["get_memory", "list_memories"]
    assert {r["user_id"] for r in denied} == {"bob"}
    ok_get = [r for r in by_tool["get_memory"] if r["outcome"] == "ok"]
    assert ok_get[0]["user_id"] == "alice" and ok_get[0]["results"] == 1
    # Reads leave the memories' audit trail (and undo) alone.
    assert events(db) == before
    # tokens list shows the last call and the day's count; bob's token was never used.
    listed = {t["name"]: t["usage"] for t in json.loads(memdesk(db, "tokens", "list", "--json"))}
    assert listed["alice-bot"]["calls_24h"] >= 7 and listed["alice-bot"]["refused_24h"] == 2
    assert listed["bob-bot"]["last_at"] is None
    assert "last call" in memdesk(db, "tokens", "list")


def test_the_desk_shows_each_tokens_last_call_and_its_calls(served, qtbot) -> None:  # type: ignore[no-untyped-def]
    from memdesk.ui.agents.tokens_dialog import TokensDialog

    url, db, secrets, _ids = served

    async def run() -> None:
        async with session(url, secrets["bob-bot"]) as s:
            await call(s, "retrieve", query="coffee", user_id="bob")

    anyio.run(run)
    logged(db, "bob-bot", until=lambda r: any(x["tool"] == "retrieve" for x in r))
    store = MemoryStore.open(db, create=False)
    try:
        d = TokensDialog(store)
        qtbot.addWidget(d)
        head = [d.table.horizontalHeaderItem(c).text() for c in range(d.table.columnCount())]
        rows = {d.table.item(r, 0).text(): [d.table.item(r, c).text()
                                            for c in range(d.table.columnCount())]
                for r in range(d.table.rowCount())}
        assert rows["bob-bot"][head.index("Last call")] != "never"
        assert int(rows["bob-bot"][head.index("Calls (24 h)")]) >= 1
        d.table.selectRow(list(rows).index("bob-bot"))
        calls = [[d.calls.item(r, c).text() for c in range(d.calls.columnCount())]
                 for r in range(d.calls.rowCount())]
        assert calls and {c[1] for c in calls} == {"bob-bot"}
        assert calls[0][2:6] == ["retrieve", "bob", "ok", "1"]
    finally:
        store.close()


def test_stdio_calls_are_logged_as_local(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = MemoryStore.open(db, create=True)
    store.add(user_id="carol", text="Carol likes jazz", type="preference")
    store.close()

    async def run() -> None:
        async with client(db, tmp_path, "--user", "carol") as s:
            await call(s, "retrieve", query="jazz")
            await call(s, "list_memories")

    anyio.run(run)
    rows = logged(db, "local", until=lambda r: len(r) >= 2)
    assert sorted(r["tool"] for r in rows) == ["list_memories", "retrieve"]
    assert {(r["transport"], r["user_id"], r["outcome"]) for r in rows} == {
        ("stdio", "carol", "ok")}


def test_bad_log_requests_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    MemoryStore.open(db, create=True).close()
    done = subprocess.run([MEMDESK, "tokens", "log", "--limit", "0", "--db", str(db)],
                          capture_output=True, text=True, env=env(tmp_path), timeout=60)
    assert done.returncode != 0 and "--limit" in done.stderr and "Traceback" not in done.stderr
    assert "no calls logged" in memdesk(db, "tokens", "log")
    assert os.path.exists(db)


def test_sigterm_stops_the_http_server_cleanly_with_its_last_calls_logged(
        tmp_path: Path) -> None:
    import signal
    import socket

    from tests.helpers.mcp_http import free_port

    db = tmp_path / "s.db"
    store = MemoryStore.open(db, create=True)
    secret = tokens.add_token(store, "dave-bot", ["dave"], ["read"]).secret
    store.close()
    port = free_port()
    proc = subprocess.Popen([MEMDESK, "mcp", "--http", "--port", str(port), "--db", str(db),
                             "--no-vectors", "--offline"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env(tmp_path))
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)

        async def run() -> None:
            async with session(f"http://127.0.0.1:{port}/mcp", secret) as s:
                await call(s, "list_memories", user_id="dave")

        anyio.run(run)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # Through the server's cleanup (uvicorn re-raised SIGTERM, which used to end the
    # process before the job worker, the records and the access log were flushed).
    assert proc.returncode == 0, err.decode(errors="replace")
    rows = json.loads(memdesk(db, "tokens", "log", "dave-bot", "--json"))
    assert [(r["tool"], r["user_id"]) for r in rows] == [("list_memories", "dave")]
