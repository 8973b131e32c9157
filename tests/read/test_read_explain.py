"""What a retrieval shows to explain itself: rounded scores in a hit's JSON, each
channel's own list, the pool a candidate came from, and why the vector channel could
not run."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from memdesk.core.embeddings import EmbeddingsUnavailable
from memdesk.core.errors import MemdeskError
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.fusion import Hit
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put


def test_hit_json_rounds_scores_to_six_places_and_figures_to_four() -> None:
    h = Hit(seq=1, id="m1", text="t", type="note", layer=None, user_id="u",
            created_at=datetime(2026, 11, 4, 12), importance=0.5, confidence=0.8,
            ranks={"fts": 2}, cosine=0.123456789, keyword_share=0.987654321,
            relevance=0.123456789, recency=0.55555555, retention=0.44444444,
            score=0.987654321)
    j = h.to_json()
    assert (j["score"], j["relevance"]) == (0.987654, 0.123457)
    assert (j["cosine"], j["keyword_share"], j["recency"], j["retention"]) == (
        0.1235, 0.9877, 0.5556, 0.4444)
    assert j["ranks"] == {"fts": 2, "vector": None, "graph": None}
    assert j["week"] == "2026-W45" and "rerank" not in j


def test_each_channel_lists_its_own_hits_and_recent_ones_come_from_pool_a(
        store: MemoryStore) -> None:
    put(store, [
        {"text": "Alice works at Acme.", "entity": "Alice", "attribute": "works_at",
         "value": "Acme Corp", "days_ago": 30},
        {"text": "Lunch was a sandwich.", "days_ago": 1},
    ], embed=False)
    res = Retriever(store, ReadConfig(), clock=lambda: NOW).retrieve(
        "where does alice work", "u", channels="fts,graph", dry_run=True)
    assert [h.text for h in res.per_channel["graph"]] == ["Alice works at Acme."]
    assert [h.text for h in res.per_channel["fts"]] == ["Alice works at Acme."]
    assert res.per_channel["vector"] == []
    every = {h.text: h for h in res.results} | {d.hit.text: d.hit for d in res.dropped}
    # The sandwich matches no channel: it is a candidate only as one of the recent days'.
    assert every["Lunch was a sandwich."].pool == "A"
    assert every["Alice works at Acme."].graph_via == "Alice · works_at · Acme Corp"


class BrokenEmbedder:
    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        raise EmbeddingsUnavailable("the model is not installed")


def test_an_isolated_vector_channel_says_why_it_cannot_run(store: MemoryStore) -> None:
    put(store, [{"text": "Something to find."}], embed=False)
    r = Retriever(store, ReadConfig(), embedder=BrokenEmbedder(), clock=lambda: NOW)
    with pytest.raises(MemdeskError) as e:
        r.retrieve("something", "u", channels="vector", dry_run=True)
    assert str(e.value) == "The vector channel cannot run: the model is not installed"
    # Not isolated: the other channels answer and the reason becomes a note.
    res = r.retrieve("something", "u", dry_run=True)
    assert "the model is not installed" in res.notes
    assert "vector" not in res.channels
