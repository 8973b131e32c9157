"""How the retriever merges the reranker's scores: the final score of each reranked hit
is the mean of its own score and the model's, only the top ``rerank_top`` are sent and
reordered, and nothing is asked when there is nothing to rerank.

The fake Ollama server (tests/helpers/fake_ollama.py) answers; the keyword channel alone is
used, so no embedding model is needed.
"""

from __future__ import annotations

import pytest

from memdesk.core.read import retriever as rt
from memdesk.core.read.config import ReadConfig
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.fake_ollama import FakeOllama, Reply
from tests.helpers.read import NOW, put

TEXTS = ["The kayak club meets on Tuesdays.", "My kayak is a red sea kayak.",
         "Kayak paddles hang in the garage."]


@pytest.fixture(autouse=True)
def no_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rt, "_threads_set", True)


def make(store: MemoryStore, host: str | None, **cfg: object) -> rt.Retriever:
    model = "judge" if host else None
    return rt.Retriever(store, ReadConfig(rerank_model=model, rerank_host=host,
                                          record=False, **{"rerank_timeout": 5.0, **cfg}),  # type: ignore[arg-type]
                        clock=lambda: NOW)


def plain(store: MemoryStore) -> dict[str, float]:
    res = make(store, None).retrieve("kayak", "u", channels="fts")
    return {h.text: h.score for h in res.results}


def test_a_reranked_score_is_the_mean_of_both_and_the_top_is_reordered(
        store: MemoryStore) -> None:
    put(store, [{"text": t, "days_ago": 3 + 7 * i} for i, t in enumerate(TEXTS)], embed=False)
    before = plain(store)
    order = list(before)  # best first
    with FakeOllama([Reply("2"), Reply("9"), Reply("4")]) as fake:
        res = make(store, fake.host, rerank_top=2).retrieve("kayak", "u", channels="fts")
    assert len(fake.requests) == 2  # only the top two were sent
    got = {h.text: h for h in res.results}
    assert got[order[0]].rerank == 0.2 and got[order[1]].rerank == 0.9
    assert got[order[0]].score == pytest.approx(0.5 * before[order[0]] + 0.5 * 0.2)
    assert got[order[1]].score == pytest.approx(0.5 * before[order[1]] + 0.5 * 0.9)
    # The tail keeps its place and its score.
    assert got[order[2]].rerank is None
    assert got[order[2]].score == pytest.approx(before[order[2]])
    assert [h.text for h in res.results] == [order[1], order[0], order[2]]


def test_nothing_is_sent_when_nothing_was_kept(store: MemoryStore) -> None:
    put(store, [{"text": "Lunch was pasta.", "days_ago": 1}], embed=False)
    with FakeOllama([Reply("7")]) as fake:
        res = make(store, fake.host).retrieve("kayak", "u", channels="fts")
    assert res.results == [] and fake.requests == [] and res.notes == []


def test_without_a_model_no_server_is_asked(store: MemoryStore) -> None:
    put(store, [{"text": TEXTS[0], "days_ago": 3}], embed=False)
    with FakeOllama([Reply("7")]) as fake:
        res = rt.Retriever(store, ReadConfig(rerank_host=fake.host, record=False),
                           clock=lambda: NOW).retrieve("kayak", "u", channels="fts")
    assert fake.requests == []
    assert [h.rerank for h in res.results] == [None]


def test_the_model_host_and_prompt_reach_the_server(store: MemoryStore) -> None:
    put(store, [{"text": TEXTS[0], "days_ago": 3}], embed=False)
    with FakeOllama([Reply("7")]) as fake:
        res = make(store, fake.host).retrieve("kayak", "u", channels="fts")
    [req] = fake.requests
    assert req["model"] == "judge"
    assert req["prompt"].endswith(f"Query: kayak\nMemory: {TEXTS[0]}\nScore:")
    assert [h.rerank for h in res.results] == [0.7]


def test_the_reranker_defaults_to_the_local_ollama_and_ten_seconds() -> None:
    from memdesk.core.read.rerank import OllamaReranker

    r = OllamaReranker("judge")
    assert (r.model, r.host, r.timeout) == ("judge", "http://127.0.0.1:11434", 10.0)
    assert OllamaReranker("judge", "http://h:1", 2.5).timeout == 2.5


def test_a_slow_server_is_skipped_after_the_timeout(store: MemoryStore) -> None:
    put(store, [{"text": TEXTS[0], "days_ago": 3}], embed=False)
    with FakeOllama([Reply("7", delay=3.0)]) as fake:
        res = make(store, fake.host, rerank_timeout=0.2).retrieve("kayak", "u", channels="fts")
    [note] = res.notes
    assert note.startswith(f"reranker skipped: Ollama is not reachable at {fake.host} (")
    assert [h.rerank for h in res.results] == [None]
