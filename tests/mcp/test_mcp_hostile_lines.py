"""The hostile-line corpus (tests/helpers/hostile_lines.py) written to a real ``memdesk mcp``
over stdio: every line answered as docs/agents.md says (and only answered so), the
server up after each one, and nothing written to the store."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

import mcp_types as types
import pytest
from sqlalchemy import text

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.hostile_lines import CORPUS, Answer, Hostile
from tests.helpers.mcp_raw import TIMEOUT_S, RawServer

_probes = itertools.count()


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RawServer, Path]]:
    home = tmp_path_factory.mktemp("mcp-hostile")
    w = RawServer(home / "store.db", home, errors="replace")
    w.send(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": types.LATEST_PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "hostile", "version": "1"}}}).encode())
    assert "result" in w.answer("init")
    w.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield w, home / "store.db"
    w.stop()


def exchange(w: RawServer, line: bytes, want: Answer) -> list[Any]:
    """Send ``line`` then a ping: every message that came back other than the ping's
    answer (waiting also for the line's own answer, which may come after the ping's)."""
    probe = f"probe-{next(_probes)}"
    w.send(line)
    w.send(json.dumps({"jsonrpc": "2.0", "id": probe, "method": "ping"}).encode())
    got: list[Any] = []
    pinged = False
    wanted = want.kind == "none" or want.kind == "errors"  # these come before the ping's
    while not (pinged and wanted):
        try:
            raw = w.lines.get(timeout=TIMEOUT_S)
        except Empty:
            raise AssertionError(f"the server went silent (exit code {w.proc.poll()}); "
                                 f"so far: {got}, ping answered: {pinged}") from None
        msg = json.loads(raw.decode("utf-8", "replace"))
        if isinstance(msg, dict) and msg.get("id") == probe:
            assert "result" in msg, msg
            pinged = True
        else:
            got.append(msg)
            wanted = wanted or (isinstance(msg, dict) and msg.get("id") == want.id)
    return got


def check(got: list[Any], want: Answer) -> None:
    if want.kind == "none":
        assert got == []
        return
    assert len(got) == 1, got
    msg = got[0]
    if want.kind == "errors":
        assert isinstance(msg, list) and [m["id"] for m in msg] == list(want.ids), msg
        assert all(m["error"]["code"] == -32600 and want.words in m["error"]["message"]
                   for m in msg), msg
        return
    assert msg["id"] == want.id, msg
    if want.kind == "tool_error":
        assert msg["result"]["isError"] is True, msg
        assert want.words in msg["result"]["content"][0]["text"], msg
        return
    assert msg["error"]["code"] == want.code, msg
    assert want.words.lower() in msg["error"]["message"].lower(), msg


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_every_hostile_line_is_answered_as_documented_and_the_server_stays_up(
        wire: tuple[RawServer, Path], case: Hostile) -> None:
    w, _ = wire
    check(exchange(w, case.line, case.stdio), case.stdio)
    assert w.proc.poll() is None


def test_the_hostile_lines_wrote_nothing(wire: tuple[RawServer, Path]) -> None:
    w, db = wire
    assert w.proc.poll() is None
    store = MemoryStore.open(db, create=False)
    try:
        with store.read() as conn:
            counts = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()
                      for t in ("memories", "jobs")}
    finally:
        store.close()
    assert counts == {"memories": 0, "jobs": 0}
    assert w.close() == 0  # and it leaves cleanly when the client does
