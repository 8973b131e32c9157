"""Embeddings: backfill with the real model (resumable, cancellable), the store's recorded
model and the refusal to mix vectors of another one, stale vectors after a text edit, and
everything-but-vectors without the package."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from memdesk.core import embeddings
from memdesk.core.ids import utcnow
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.vectors import write_vectors_by_id_in
from memdesk.core.write.embed import (
    EmbeddingSpaceMismatch,
    backfill,
    missing_count,
    recorded_space,
    reembed_all,
    space_problem,
)
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.models import EmbeddingSpace
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker

TEXTS = ["The user is allergic to peanuts.", "The user prefers dark mode.",
         "The team chose PostgreSQL.", "The user lives in Lisbon.", "Deploys happen on Monday."]


def fill(store: MemoryStore, texts: list[str] = TEXTS) -> list[str]:
    return store.add_many([{"user_id": "u", "text": t, "type": "fact"} for t in texts])


def vec(store: MemoryStore, mid: str) -> np.ndarray | None:
    blob = store.get(mid).embedding
    return None if blob is None else np.frombuffer(blob, dtype="<f4")


def set_space(store: MemoryStore, model: str, dim: int) -> None:
    with store.write() as conn:
        conn.execute(EmbeddingSpace.__table__.delete())
        conn.execute(EmbeddingSpace.__table__.insert().values(
            id=1, model=model, dim=dim, recorded_at=utcnow()))


def test_backfill_writes_the_models_vectors_and_records_the_space(
        store: MemoryStore, embedder) -> None:  # type: ignore[no-untyped-def]
    ids = fill(store)
    seen: list[tuple[int, int]] = []
    rep = backfill(store, batch=2, progress=lambda d, t: seen.append((d, t)))
    assert (rep.embedded, rep.remaining, rep.cancelled) == (5, 0, False)
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)
    expected = embedder.encode(TEXTS)
    for mid, want in zip(ids, expected, strict=True):
        got = vec(store, mid)
        assert got is not None and got.shape == (384,)
        assert float(got @ want) > 0.999
    with store.read() as conn:
        space = recorded_space(conn)
    assert (space.model, space.dim) == ("all-MiniLM-L6-v2", 384)
    assert missing_count(store) == 0 and backfill(store).embedded == 0
    assert any(e.action == "embed" for e in store.events("*"))


def test_backfill_is_resumable_after_cancel(store: MemoryStore, embedder,  # type: ignore[no-untyped-def]
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from memdesk.core.write import embed

    fill(store)
    # Two texts per encode call: the cancel is seen after the first call, and the two
    # rows it encoded are written before the backfill stops.
    monkeypatch.setattr(embed, "ENCODE_CHUNK", 2)
    calls = iter([False, True])
    rep = backfill(store, batch=2, cancelled=lambda: next(calls, True))
    assert rep.cancelled and rep.embedded == 2 and missing_count(store) == 3
    rep = backfill(store, batch=2)
    assert rep.embedded == 3 and missing_count(store) == 0


def test_a_different_model_is_detected_and_nothing_is_mixed(store: MemoryStore, embedder) -> None:  # type: ignore[no-untyped-def]
    ids = fill(store)
    set_space(store, "bge-small-en", 384)
    with pytest.raises(EmbeddingSpaceMismatch, match="memdesk embed --reembed"):
        backfill(store)
    assert all(vec(store, i) is None for i in ids)
    assert "bge-small-en" in space_problem(store)
    # the worker stores the memory and says why it has no vector
    job = JobQueue(store).enqueue(Turn("I work at Acme.", "u"))
    worker = Worker(store, HeuristicExtractor())
    worker.run(drain=True)
    done = JobQueue(store).get(job)
    assert done.status == "done" and store.get(done.memory_ids[0]).embedding is None
    assert any("without vectors" in e["msg"] and "bge-small-en" in e["msg"] for e in done.log)
    # re-embedding replaces the space and fills every vector
    reembed_all(store)
    # the six memories, and the worker's turn kept as its episode
    assert space_problem(store) is None and backfill(store).embedded == 7
    # and the running worker writes vectors again without a restart
    later = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    worker.run(drain=True)
    assert store.get(JobQueue(store).get(later).memory_ids[0]).embedding is not None


def test_unrecorded_vectors_count_as_another_model(store: MemoryStore) -> None:
    [mid, *_] = fill(store)
    with store.write() as conn:  # as a Recall store has them: 3 floats, model unknown
        write_vectors_by_id_in(conn, [(mid, b"\x00\x00\x80?" * 3)])
    assert "unrecorded model (3 dims)" in space_problem(store)
    with pytest.raises(EmbeddingSpaceMismatch):
        backfill(store)


def test_a_text_edit_clears_the_stale_vector(store: MemoryStore, embedder) -> None:  # type: ignore[no-untyped-def]
    [mid, *_] = fill(store)
    backfill(store)
    store.update(mid, importance=0.9)
    assert vec(store, mid) is not None  # other edits keep it
    store.update(mid, text="The user is allergic to shellfish.")
    assert vec(store, mid) is None and missing_count(store) == 1
    backfill(store)
    want = embedder.encode(["The user is allergic to shellfish."])[0]
    assert float(vec(store, mid) @ want) > 0.999


def test_without_the_package_everything_but_vectors_works(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    reason = embeddings.unavailable_reason()
    assert reason and "sentence-transformers" in reason
    job = JobQueue(store).enqueue(Turn("I'm allergic to peanuts.", "u"))
    Worker(store, HeuristicExtractor()).run(drain=True)
    done = JobQueue(store).get(job)
    assert done.status == "done" and len(done.memory_ids) == 1
    assert store.get(done.memory_ids[0]).embedding is None
    assert any("sentence-transformers" in e["msg"] for e in done.log)
