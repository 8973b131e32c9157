"""A server spawned per conversation recalls from its first question: on ONNX Runtime
(the model exported once into the cache) the model loads at once, without torch, and
the first ``retrieve`` gets the vector channel; an answer without vectors says so first
in the text the agent reads (its ``recall`` field), not only in ``notes``.  (The
packaged MiniLM model; nothing is downloaded.)"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession

from memdesk.core import embeddings
from memdesk.core.embeddings import Embedder
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.embed import backfill
from tests.helpers.mcp_stdio import LIMIT_S, client

FAST = pytest.mark.skipif(embeddings.unavailable_reason() is not None
                          or embeddings.onnx_encoder.missing_package() is not None,
                          reason="needs the model, sentence-transformers and onnxruntime")


def _store(tmp_path: Path, embedder: Embedder | None = None) -> Path:
    path = tmp_path / "store.db"
    store = MemoryStore.open(path)
    store.add(user_id="alice", text="alice prefers green tea", type="preference")
    store.add(user_id="alice", text="my sister Ingrid got married in Bergen in June",
              type="note")
    if embedder is not None:
        backfill(store, embedder=embedder)
    store.close()
    return path


async def _text(s: ClientSession, **args: object) -> str:
    r = await s.call_tool("retrieve", dict(args))
    assert not r.is_error, r.content[0].text
    text: str = r.content[0].text
    return text


def _recall(text: str) -> str:
    """The answer's first field, as the agent reads it."""
    first_key, value = next(iter(json.loads(text).items()))
    assert first_key == "recall" and text.lstrip("{ \n").startswith('"recall"'), text[:80]
    assert isinstance(value, str)
    return value


@FAST
@pytest.mark.slow
def test_the_first_retrieve_of_a_fresh_server_is_full(
        tmp_path: Path, embedder: Embedder) -> None:
    """``embedder`` (the session's model) has exported the ONNX file into the test
    run's cache, as any first load on a machine does."""
    assert embedder.runtime == "onnxruntime" and embeddings.fast_start_ready()
    path = _store(tmp_path, embedder)
    log = tmp_path / "server.log"

    async def main() -> str:
        with anyio.fail_after(LIMIT_S), log.open("w") as errlog:
            # A generous wait: the check is that the first answer has vectors, not
            # how fast a loaded test machine gets there (bench/bench_cold_start.py).
            async with client(path, tmp_path, "--user", "alice", vectors=True,
                              errlog=errlog, env={"MEMDESK_MCP_READY_WAIT_S": "60"}) as s:
                return await _text(s, query="whose wedding was it")

    text = anyio.run(main)
    assert _recall(text) == "full: keyword, vector and graph channels"
    # No word in common: only the vector channel finds it.
    hits = [h["text"] for h in json.loads(text)["results"]]
    assert "my sister Ingrid got married in Bergen in June" in hits
    assert "(onnxruntime)" in log.read_text(), log.read_text()


def test_an_answer_without_vectors_says_so_before_its_results(tmp_path: Path) -> None:
    path = _store(tmp_path)

    async def main() -> tuple[str, str]:
        with anyio.fail_after(LIMIT_S):
            async with client(path, tmp_path, "--user", "alice") as s:  # --no-vectors
                return (await _text(s, query="green tea"),
                        await _text(s, query="green tea", channels=["fts"]))

    off, asked = anyio.run(main)
    assert _recall(off) == (
        "DEGRADED, without vector search (vectors are off (memdesk mcp --no-vectors)): "
        "these results come from the keyword and graph channels only and can miss "
        "memories worded differently from the query")
    assert [h["text"] for h in json.loads(off)["results"]] == ["alice prefers green tea"]
    assert _recall(asked) == "as asked: the fts channel(s) only"


@pytest.mark.slow
def test_an_answer_while_the_model_loads_says_so_before_its_results(tmp_path: Path) -> None:
    """On PyTorch, told not to wait, the first answer comes before the model."""
    path = _store(tmp_path)

    async def main() -> str:
        with anyio.fail_after(LIMIT_S):
            async with client(path, tmp_path, "--user", "alice", vectors=True,
                              env={"MEMDESK_MCP_READY_WAIT_S": "0",
                                   "MEMDESK_EMBED_RUNTIME": "torch"}) as s:
                return await _text(s, query="green tea")

    assert _recall(anyio.run(main)) == (
        "DEGRADED, without vector search (the embedding model is still loading): these "
        "results come from the keyword and graph channels only and can miss memories "
        "worded differently from the query; ask again in a few seconds for a full answer")
