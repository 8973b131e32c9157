"""The optional reranker: a model behind Ollama rescores the top of the fused list.

Real HTTP against tests/helpers/fake_ollama.py through the official ``ollama`` client.  The
keyword channel alone is used, so no embedding model is needed.
"""

from __future__ import annotations

import socket

import pytest

from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.fake_ollama import FakeOllama, Reply
from tests.helpers.read import NOW, put

TEXTS = ["The kayak club meets on Tuesdays.", "My kayak is a red sea kayak.",
         "Kayak paddles hang in the garage."]


def _retriever(store: MemoryStore, host: str, **cfg) -> Retriever:  # type: ignore[no-untyped-def]
    return Retriever(store, ReadConfig(rerank_model="judge", rerank_host=host,
                                       rerank_timeout=5.0, record=False, **cfg),
                     clock=lambda: NOW)


def _plain_order(store: MemoryStore) -> list[str]:
    res = Retriever(store, ReadConfig(record=False), clock=lambda: NOW).retrieve(
        "kayak", "u", channels="fts")
    return [h.text for h in res.results]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_reranker_scores_each_hit_and_reorders_the_top(store: MemoryStore) -> None:
    put(store, [{"text": t, "days_ago": 3 + 7 * i}  # other weeks
                for i, t in enumerate(TEXTS)], embed=False)
    plain = _plain_order(store)
    # Scores for the fused order: the last one is judged best, the first worst.
    with FakeOllama([Reply("1"), Reply("Score: 5.5 of 10"), Reply("10")]) as fake:
        res = _retriever(store, fake.host).retrieve("kayak", "u", channels="fts")
    got = [h.text for h in res.results]
    assert got[0] == plain[2] and got[-1] == plain[0]
    assert [h.rerank for h in res.results] == [1.0, 0.55, 0.1]
    assert res.notes == []
    # One completion per hit, in fused order, asking with the query and the memory.
    assert [r["path"] for r in fake.requests] == ["/api/generate"] * 3
    assert all(r["model"] == "judge" and r["options"]["temperature"] == 0
               for r in fake.requests)
    assert [r["prompt"].split("Memory: ")[1].split("\n")[0] for r in fake.requests] == plain
    assert all("Query: kayak\n" in r["prompt"] for r in fake.requests)


@pytest.mark.parametrize(("reply", "score"), [("15", 1.0), ("no idea", 0.0), ("0", 0.0),
                                              ("7", 0.7)])
def test_a_reply_becomes_a_score_between_0_and_1(store: MemoryStore, reply, score) -> None:  # type: ignore[no-untyped-def]
    put(store, [{"text": TEXTS[0], "days_ago": 3}], embed=False)
    with FakeOllama([Reply(reply)]) as fake:
        res = _retriever(store, fake.host).retrieve("kayak", "u", channels="fts")
    assert [h.rerank for h in res.results] == [score]


def test_only_the_top_is_sent_and_the_rest_keeps_its_place(store: MemoryStore) -> None:
    put(store, [{"text": t, "days_ago": 3 + 7 * i}  # other weeks
                for i, t in enumerate(TEXTS)], embed=False)
    plain = _plain_order(store)
    with FakeOllama([Reply("0"), Reply("10")]) as fake:
        res = _retriever(store, fake.host, rerank_top=2).retrieve("kayak", "u",
                                                                  channels="fts")
    assert len(fake.requests) == 2
    assert [h.text for h in res.results] == [plain[1], plain[0], plain[2]]
    assert res.results[2].rerank is None


def test_an_unreachable_server_is_skipped_with_a_note(store: MemoryStore) -> None:
    put(store, [{"text": t, "days_ago": 3 + 7 * i}  # other weeks
                for i, t in enumerate(TEXTS)], embed=False)
    host = f"http://127.0.0.1:{_closed_port()}"
    res = _retriever(store, host).retrieve("kayak", "u", channels="fts")
    assert [h.text for h in res.results] == _plain_order(store)
    assert all(h.rerank is None for h in res.results)
    [note] = res.notes
    assert note.startswith(f"reranker skipped: Ollama is not reachable at {host} (")


def test_a_missing_model_is_skipped_with_the_servers_reason(store: MemoryStore) -> None:
    put(store, [{"text": TEXTS[0], "days_ago": 3}], embed=False)
    with FakeOllama([Reply(status=404, error="model 'judge' not found")]) as fake:
        res = _retriever(store, fake.host).retrieve("kayak", "u", channels="fts")
    assert res.notes == [f"reranker skipped: Ollama at {fake.host} refused "
                         "(model 'judge' not found)"]
    assert [h.rerank for h in res.results] == [None]


def test_without_the_ollama_package_the_reranker_says_so(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from memdesk.core.read.rerank import OllamaReranker

    monkeypatch.setitem(sys.modules, "ollama", None)  # "import ollama" now raises ImportError
    assert OllamaReranker("judge").scores("kayak", []) == (
        None, "reranker skipped: the ollama package is not installed")
    put(store, [{"text": t, "days_ago": 3 + 7 * i} for i, t in enumerate(TEXTS)], embed=False)
    res = _retriever(store, "http://127.0.0.1:9").retrieve("kayak", "u", channels="fts")
    assert "reranker skipped: the ollama package is not installed" in res.notes
    assert all(h.rerank is None for h in res.results)
