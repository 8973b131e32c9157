"""A paused token: every tool call it makes is refused with "this token (…) is paused by
the operator since …", over HTTP (the token in each request) and over stdio (the token
in ``MEMDESK_MCP_TOKEN``), and logged as ``paused`` in the access log; resuming lets the
same secret through again.  A call already running when the pause is written finishes
(app/mcp/pause.py); the next one is refused."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from memdesk.app.main import main
from memdesk.app.mcp import tools_write
from memdesk.app.mcp.identity import Caller, current_caller
from memdesk.app.mcp.runtime import Runtime
from memdesk.app.mcp.server import build_server
from memdesk.core.guard import access, tokens
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from tests.helpers import mcp_stdio
from tests.helpers.mcp_http import http_server, session

PAUSED = "is paused by the operator since"


def seeded(tmp_path: Path) -> tuple[Path, str, str]:
    db = tmp_path / "store.db"
    store = MemoryStore.open(db)
    secret = tokens.add_token(store, "bot", ["alice"], ["read", "write", "forget"]).secret
    mid = store.add(user_id="alice", text="alice likes green tea", type="preference",
                    actor="agent").id
    store.close()
    return db, secret, mid


def set_paused(db: Path, paused: bool) -> None:
    store = MemoryStore.open(db)
    try:
        (tokens.pause_token if paused else tokens.resume_token)(store, "bot")
    finally:
        store.close()


def outcomes(db: Path) -> list[tuple[str, str, str]]:
    store = MemoryStore.open(db)
    try:
        return [(c.tool, c.transport, c.outcome)
                for c in reversed(access.recent_calls(store, "bot", 100))]
    finally:
        store.close()


async def answer(s: Any, tool: str, **args: Any) -> tuple[bool, str]:
    r = await s.call_tool(tool, args)
    return bool(r.is_error), r.content[0].text


def test_paused_over_http_is_refused_logged_and_resumed(tmp_path: Path) -> None:
    db, secret, mid = seeded(tmp_path)

    async def run(url: str) -> None:
        with anyio.fail_after(mcp_stdio.LIMIT_S):
            async with session(url, secret) as s:
                assert not (await answer(s, "get_memory", memory_id=mid))[0]
            set_paused(db, True)
            async with session(url, secret) as s:  # the handshake works: the tools refuse
                error, text = await answer(s, "get_memory", memory_id=mid)
                assert error and "this token (bot)" in text and PAUSED in text
                error, text = await answer(s, "forget", memory_id=mid)
                assert error and PAUSED in text
                set_paused(db, False)
                assert not (await answer(s, "get_memory", memory_id=mid))[0]  # same session

    with http_server(db, tmp_path) as url:
        anyio.run(run, url)
    assert outcomes(db) == [("get_memory", "streamable-http", "ok"),
        ("get_memory", "streamable-http", "paused"), ("forget", "streamable-http", "paused"),
        ("get_memory", "streamable-http", "ok")]
    store = MemoryStore.open(db)
    try:
        assert store.get(mid).status is Status.ACTIVE  # the paused forget changed nothing
        assert access.usage(store, ["bot"])["bot"].day_refused == 2
    finally:
        store.close()


def test_paused_over_stdio_is_refused_from_the_next_call(tmp_path: Path) -> None:
    db, secret, mid = seeded(tmp_path)

    async def run() -> None:
        with anyio.fail_after(mcp_stdio.LIMIT_S):
            async with mcp_stdio.client(db, tmp_path, env={"MEMDESK_MCP_TOKEN": secret}) as s:
                assert not (await answer(s, "get_memory", memory_id=mid))[0]
                set_paused(db, True)
                error, text = await answer(s, "get_memory", memory_id=mid)
                assert error and PAUSED in text
                set_paused(db, False)
                assert not (await answer(s, "get_memory", memory_id=mid))[0]
                # The token's users narrow an unbound server: bob is not served.
                error, text = await answer(s, "list_memories", user_id="bob")
                assert error and "not served" in text
                store = MemoryStore.open(db)
                tokens.revoke_token(store, "bot")
                store.close()
                error, text = await answer(s, "get_memory", memory_id=mid)
                assert error and "this token (bot) was revoked" in text

    anyio.run(run)
    assert [o for _, _, o in outcomes(db)] == ["ok", "paused", "ok", "refused", "refused"]
    assert {t for _, t, _ in outcomes(db)} == {"stdio"}


@pytest.mark.parametrize(("extra", "secret", "message"), [
    ((), "mdk_not-a-token", "MEMDESK_MCP_TOKEN: no token has this secret"),
    (("--http",), None, "MEMDESK_MCP_TOKEN is for a stdio server"),
])
def test_a_bad_stdio_token_stops_the_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        extra: tuple[str, ...], secret: str | None, message: str) -> None:
    db, real, _ = seeded(tmp_path)
    monkeypatch.setenv("MEMDESK_MCP_TOKEN", secret or real)
    assert main(["mcp", "--db", str(db), "--no-vectors", "--offline", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_call_in_flight_when_the_token_is_paused_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decided: the state is read as a call starts; one that started before the pause
    finishes and is logged ok, the next one is refused (official client, in process)."""
    db, _, mid = seeded(tmp_path)
    store = MemoryStore.open(db)
    entered, release = threading.Event(), threading.Event()
    real_forget = tools_write.agent_actions.forget

    def slow_forget(*args: Any, **kwargs: Any) -> Any:
        entered.set()  # the call has passed every check and is running
        assert release.wait(30)
        return real_forget(*args, **kwargs)

    monkeypatch.setattr(tools_write.agent_actions, "forget", slow_forget)
    rt = Runtime(store, HeuristicExtractor(), vectors=False, token="bot")
    server = build_server(rt)
    results: dict[str, tuple[bool, str]] = {}

    async def run() -> None:
        current_caller.set(Caller("bot", frozenset({"alice"}),
                                  frozenset({"read", "write", "forget"})))
        with anyio.fail_after(60):
            await session_calls()

    async def session_calls() -> None:
        async with Client(server) as c:

            async def in_flight() -> None:
                results["forget"] = await answer(c, "forget", memory_id=mid)

            async with anyio.create_task_group() as tg:
                tg.start_soon(in_flight)
                while not entered.is_set():
                    await anyio.sleep(0.01)
                await anyio.to_thread.run_sync(tokens.pause_token, store, "bot")
                release.set()
            results["next"] = await answer(c, "get_memory", memory_id=mid)

    try:
        anyio.run(run)
        rt.access.close()
        assert results["forget"][0] is False and '"forgotten"' in results["forget"][1]
        assert results["next"][0] and PAUSED in results["next"][1]
        assert store.get(mid).status is Status.DELETED
        assert [(c.tool, c.outcome) for c in reversed(access.recent_calls(store, "bot"))] == [
            ("forget", "ok"), ("get_memory", "paused")]
    finally:
        store.close()
