"""An episode (a turn kept as said) is judged on the conversational floor: a turn whose
cosine with the question does not stand out far from the user's other memories is still
returned, where a typed unit at the same cosine is not (the labelled set's bars stay for
units).  Vectors are made by hand, so the cosines are known."""

from __future__ import annotations

import math

import numpy as np

from memdesk.core import embeddings
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.embedders import CountingEmbedder

QUERY, TARGET = "zzqq xxvv", "alpha beta"


def unit(i: int) -> np.ndarray:
    v = np.zeros(embeddings.DIM, dtype=np.float32)
    v[i] = 1.0
    return v


class Known:
    """The query is one axis; the target is ``cos`` along it; anything else is random."""

    name, dim = embeddings.MODEL_NAME, embeddings.DIM

    def __init__(self, cos: float) -> None:
        self.cos = cos

    def target(self) -> np.ndarray:
        return (self.cos * unit(0) + math.sqrt(1 - self.cos ** 2) * unit(1)).astype(np.float32)

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        return np.stack([unit(0) if t == QUERY else self.target() if t == TARGET
                         else CountingEmbedder.vector(t) for t in texts])


def fill(store: MemoryStore, user: str, target_type: str, enc: Known) -> str:
    rows = [{"user_id": user, "text": f"gamma{i} delta{i}", "type": "fact",
             "embedding": CountingEmbedder.vector(f"gamma{i} delta{i}").tobytes()}
            for i in range(200)]
    rows.append({"user_id": user, "text": TARGET, "type": target_type,
                 "embedding": enc.target().tobytes()})
    return store.add_many(rows)[-1]


def test_a_turn_that_does_not_stand_out_is_returned_where_a_unit_is_not(
        store: MemoryStore) -> None:
    enc = Known(0.13)  # about 2.3 robust deviations above the rest: between the bars
    episode = fill(store, "ep", "episode", enc)
    fact = fill(store, "fa", "fact", enc)
    retriever = Retriever(store, ReadConfig(record=False), embedder=enc)
    got = retriever.retrieve(QUERY, "ep")
    assert episode in [h.id for h in got.results]
    got = retriever.retrieve(QUERY, "fa")
    assert fact not in [h.id for h in got.results]
    assert fact in [d.hit.id for d in got.dropped if d.reason == "floor"]
    # the conversational bar is a setting: at the units' bar the turn is dropped too
    strict = Retriever(store, ReadConfig(record=False, floor_z_episode=4.5), embedder=enc)
    assert episode not in [h.id for h in strict.retrieve(QUERY, "ep").results]


def test_a_turn_unrelated_to_the_question_is_still_dropped(store: MemoryStore) -> None:
    enc = Known(0.0)
    episode = fill(store, "ep", "episode", enc)
    got = Retriever(store, ReadConfig(record=False), embedder=enc).retrieve(QUERY, "ep")
    assert episode not in [h.id for h in got.results]
