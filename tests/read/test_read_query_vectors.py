"""The query-embedding cache: same vector as the encoder, bounded, per embedder, read-only."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from memdesk.core.embeddings import DIM
from memdesk.core.read import query_vectors as qv
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put


class CountingEmbedder:
    """A deterministic stand-in for the model that counts what it was asked to encode."""

    def __init__(self, salt: int = 0) -> None:
        self.salt = salt
        self.asked: list[str] = []

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        self.asked.extend(texts)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            rng = np.random.default_rng(abs(hash((t, self.salt))) % 2**32)
            v = rng.standard_normal(DIM).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out


def test_a_repeated_text_gets_the_same_vector_without_encoding_again() -> None:
    emb = CountingEmbedder()
    cache = qv.QueryVectorCache()
    first = cache.vector(emb, "what does the user prefer?")
    again = cache.vector(emb, "what does the user prefer?")
    assert emb.asked == ["what does the user prefer?"]
    assert np.array_equal(first, again)
    assert np.array_equal(first, CountingEmbedder().encode(["what does the user prefer?"])[0])
    other = cache.vector(emb, "something else")
    assert not np.array_equal(first, other)
    assert (cache.hits, cache.misses) == (1, 2)


class Float64Embedder:
    """An embedder that answers in float64 lists (a foreign model, say)."""

    def encode(self, texts: list[str], *, batch_size: int = 64) -> list[list[float]]:
        return [[0.1 * (i + 1) for i in range(DIM)] for _ in texts]


def test_cached_vectors_are_float32_whatever_the_encoder_returns() -> None:
    # MAX_ENTRIES' memory bound counts 1.5 KB per vector: DIM float32 values of 4 bytes.
    vec = qv.QueryVectorCache().vector(Float64Embedder(), "q")  # type: ignore[arg-type]
    assert vec.dtype == np.float32 and vec.nbytes == DIM * 4 == 1536
    assert vec.tolist() == [float(np.float32(0.1 * (i + 1))) for i in range(DIM)]


def test_cached_vectors_cannot_be_changed_by_a_caller() -> None:
    cache = qv.QueryVectorCache()
    vec = cache.vector(CountingEmbedder(), "q")
    with pytest.raises(ValueError):
        vec[0] = 42.0
    assert cache.vector(CountingEmbedder(), "q")[0] != 42.0


def test_the_cache_is_bounded_and_evicts_the_least_recently_used() -> None:
    emb = CountingEmbedder()
    cache = qv.QueryVectorCache(max_entries=3)
    for t in ("a", "b", "c"):
        cache.vector(emb, t)
    cache.vector(emb, "a")  # "a" is now the most recent; "b" the oldest
    cache.vector(emb, "d")
    assert len(cache) == 3
    emb.asked.clear()
    cache.vector(emb, "a")
    cache.vector(emb, "c")
    assert emb.asked == []  # kept
    cache.vector(emb, "b")
    assert emb.asked == ["b"]  # evicted, so encoded again
    for i in range(50):
        cache.vector(emb, f"query {i}")
    assert len(cache) == 3
    with pytest.raises(ValueError, match=r"^max_entries must be at least 1$"):
        qv.QueryVectorCache(max_entries=0)


def test_each_embedder_has_its_own_cache() -> None:
    one, two = CountingEmbedder(salt=1), CountingEmbedder(salt=2)
    a = qv.query_vector(one, "same text")
    b = qv.query_vector(two, "same text")
    assert not np.array_equal(a, b)  # another model's vector is never handed out
    assert qv.cache_for(one) is qv.cache_for(one) is not qv.cache_for(two)
    assert np.array_equal(qv.query_vector(one, "same text"), a)
    assert one.asked == ["same text"] and two.asked == ["same text"]


@dataclass
class UnhashableEmbedder:  # eq=True makes a dataclass unhashable
    asked: list[str] = field(default_factory=list)

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        self.asked.extend(texts)
        return np.ones((len(texts), DIM), dtype=np.float32)


def test_an_embedder_that_cannot_be_a_key_is_asked_every_time() -> None:
    emb = UnhashableEmbedder()
    assert qv.cache_for(emb) is None  # type: ignore[arg-type]
    qv.query_vector(emb, "q")  # type: ignore[arg-type]
    qv.query_vector(emb, "q")  # type: ignore[arg-type]
    assert emb.asked == ["q", "q"]


def test_the_retriever_encodes_a_repeated_query_once(store: MemoryStore) -> None:
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3}], embed=False)
    emb = CountingEmbedder()
    r = Retriever(store, ReadConfig(record=False), embedder=emb, clock=lambda: NOW)  # type: ignore[arg-type]
    first = r.retrieve("when does the kayak club meet", "u")
    second = Retriever(store, ReadConfig(record=False), embedder=emb,  # type: ignore[arg-type]
                       clock=lambda: NOW).retrieve("when does the kayak club meet", "u")
    assert emb.asked == ["when does the kayak club meet"]
    assert [h.text for h in first.results] == [h.text for h in second.results] == [
        "The kayak club meets on Tuesdays."]
    r.retrieve("something new", "u")
    assert emb.asked[-1] == "something new"


def test_the_cache_can_be_turned_off_or_sized(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDESK_QUERY_CACHE_SIZE", "0")
    off = CountingEmbedder()
    qv.query_vector(off, "q")
    qv.query_vector(off, "q")
    assert off.asked == ["q", "q"]
    monkeypatch.setenv("MEMDESK_QUERY_CACHE_SIZE", "2")
    small = CountingEmbedder()
    cache = qv.cache_for(small)
    assert cache is not None and cache.max_entries == 2
    for bad in ("-1", "lots"):
        monkeypatch.setenv("MEMDESK_QUERY_CACHE_SIZE", bad)
        assert qv.configured_size() == qv.MAX_ENTRIES


def test_a_bad_cache_size_is_named_in_the_warning(monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("MEMDESK_QUERY_CACHE_SIZE", "lots")
    with caplog.at_level("WARNING", logger=qv.log.name):
        assert qv.configured_size() == qv.MAX_ENTRIES
    assert [r.getMessage() for r in caplog.records if r.name == qv.log.name] == [
        f"MEMDESK_QUERY_CACHE_SIZE='lots' is not a whole number >= 0; using {qv.MAX_ENTRIES}"]
    monkeypatch.setenv("MEMDESK_QUERY_CACHE_SIZE", "0")
    assert qv.configured_size() == 0
