"""The hostile-line corpus (tests/helpers/hostile_lines.py) POSTed as bodies to a real
``memdesk mcp --http`` in one session: each answered as the corpus says (the SDK's
answers, and -32600 for ids that are not a string or an integer), the server up after
each one, and nothing written to the store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.hostile_lines import CORPUS, Hostile
from tests.helpers.mcp_http import http_server

VERSION = "2025-06-18"
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
    "protocolVersion": VERSION, "capabilities": {},
    "clientInfo": {"name": "hostile", "version": "1"}}}


class Wire:
    def __init__(self, url: str, db: Path, client: httpx.Client) -> None:
        self.url, self.db, self.client = url, db, client
        r = client.post(url, headers=HEADERS, json=INIT)
        assert r.status_code == 200, r.text
        self.headers = {**HEADERS, "mcp-session-id": r.headers["mcp-session-id"],
                        "mcp-protocol-version": VERSION}
        self.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def post(self, body: bytes) -> httpx.Response:
        return self.client.post(self.url, headers=self.headers, content=body)

    def ping(self) -> dict[str, Any]:
        r = self.post(b'{"jsonrpc":"2.0","id":"ping","method":"ping"}')
        assert r.status_code == 200, r.text
        return dict(r.json())


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wire]:
    home = tmp_path_factory.mktemp("mcp-http-hostile")
    db = home / "store.db"
    with http_server(db, home) as url, httpx.Client(timeout=60) as client:
        yield Wire(url, db, client)


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_every_hostile_body_is_answered_and_the_server_stays_up(
        wire: Wire, case: Hostile) -> None:
    r = wire.post(case.line)
    want = case.http
    assert r.status_code == case.http_status, r.text
    if want.kind == "none":
        assert r.status_code == 413 or r.content == b"", r.text
    else:
        msg = r.json()
        assert msg["id"] == want.id, msg
        if want.kind == "tool_error":
            assert msg["result"]["isError"] is True, msg
            assert want.words in msg["result"]["content"][0]["text"], msg
        else:
            assert msg["error"]["code"] == want.code, msg
            assert want.words.lower() in msg["error"]["message"].lower(), msg
    assert "result" in wire.ping()


def test_the_hostile_bodies_wrote_nothing(wire: Wire) -> None:
    assert "result" in wire.ping()
    store = MemoryStore.open(wire.db, create=False)
    try:
        with store.read() as conn:
            counts = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()
                      for t in ("memories", "jobs")}
    finally:
        store.close()
    assert counts == {"memories": 0, "jobs": 0}
