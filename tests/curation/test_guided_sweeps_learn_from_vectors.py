"""Guided sweeps on a store with embeddings: the guided model reads each memory's vector,
so when the operator raised the memories of one topic and kept those of another, the
guided picks among new memories go to the first topic.  Through the ``Sweeps`` façade."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from memdesk.core.curation.service import Sweeps
from memdesk.core.embeddings import DIM
from memdesk.core.store.memory_store import MemoryStore

BAND = (0.4, 0.6)


def topic_vec(axis: int, rng: np.random.Generator) -> bytes:
    """A unit vector near one axis (the topic), with a little noise."""
    v = rng.normal(0, 0.05, DIM).astype(np.float32)
    v[axis] += 1.0
    return (v / np.linalg.norm(v)).astype("<f4").tobytes()


def add_notes(store: MemoryStore, numbers: range, rng: np.random.Generator) -> dict[str, int]:
    """One note per number, alternating between two topics; id -> topic."""
    topic: dict[str, int] = {}
    for i in numbers:
        mid = store.add(user_id="u", text=f"Note number {i:03d} about the project.",
                        type="fact", importance=0.5, embedding=topic_vec(i % 2, rng)).id
        topic[mid] = i % 2
    return topic


def test_guided_picks_follow_the_topic_the_operator_raised(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    store = MemoryStore.open(tmp_path / "s.db")
    try:
        topic = add_notes(store, range(60), rng)
        sweeps = Sweeps(store)
        st = sweeps.start(BAND, 60, seed=1)
        for it in st.items:  # topic 0 matters more than it was written with; topic 1 not
            if topic[it.memory_id] == 0:
                sweeps.decide(st.id, it.pos, "revalue", importance=0.9)
            else:
                sweeps.decide(st.id, it.pos, "keep")
        model = sweeps.train()
        assert model.decisions == 60
        fresh = add_notes(store, range(100, 140), rng)
        guided = sweeps.start(BAND, 10, guided=1.0, seed=2)
        assert all(p.guided for p in sweeps.picks(guided.id).values())
        assert [fresh[it.memory_id] for it in guided.items] == [0] * 10
    finally:
        store.close()
