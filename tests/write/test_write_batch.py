"""Worker batching and encode dedupe: a worker that finds several pending jobs encodes
all their units in one call, each job still commits (or fails) on its own, exactly
once; identical texts are encoded once and every row gets the vector."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.core import embeddings
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.embed import backfill
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Extraction, Turn
from memdesk.core.write.worker import Worker, WorkerConfig
from tests.helpers.embedders import CountingEmbedder


class Exploding(HeuristicExtractor):
    """The heuristic extractor, except a bug on turns that say "explode"."""

    def extract(self, turn: Turn) -> Extraction:
        if "explode" in turn.text:
            raise RuntimeError("extractor bug")
        return super().extract(turn)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> CountingEmbedder:
    e = CountingEmbedder()
    monkeypatch.setattr(embeddings, "default_embedder", lambda: e)
    return e


def vec_of(store: MemoryStore, mid: str) -> np.ndarray:
    return np.frombuffer(store.get(mid).embedding, dtype="<f4")


TURNS = ["I live in Oslo.", "I work at Acme Corp. I'm allergic to peanuts.",
         "Thanks, that's helpful!", "I live in Oslo.", "I prefer Rust over Java."]


def test_several_jobs_one_encode_call_each_job_done_once_with_its_units(
        store: MemoryStore, fake: CountingEmbedder) -> None:
    ids = [JobQueue(store).enqueue(Turn(t, "u", f"s{i}")) for i, t in enumerate(TURNS)]
    worker = Worker(store, HeuristicExtractor(), WorkerConfig(batch=8))
    outcomes = worker.process_batch()
    assert [o.job_id for o in outcomes] == ids and {o.status for o in outcomes} == {"done"}
    [call] = fake.calls  # one encode for the whole batch, each distinct text once
    texts = [store.get(m).text for o in outcomes for m in o.memory_ids]
    # the units and the turns themselves (their episodes): each distinct text once
    assert len(texts) == 5 and sorted(call) == sorted(set(texts) | set(TURNS))
    assert len(call) == 8
    q = JobQueue(store)
    for job_id, turn, o in zip(ids, TURNS, outcomes, strict=True):
        job = q.get(job_id)
        assert job.status == "done" and job.attempts == 1 and job.text == turn
        assert list(job.memory_ids) == o.memory_ids
        for m in store.get_many(list(job.memory_ids)):
            assert m.source_session == job.session_id  # its own job's units
            assert np.allclose(vec_of(store, m.id), fake.vector(m.text))
        assert sum("done:" in e["msg"] for e in job.log) == 1
    assert store.count() == 10  # 5 units, and each turn as its episode
    assert worker.process_batch() == [] and store.count() == 10  # nothing done twice


def test_a_failing_job_does_not_fail_its_batch_mates(store: MemoryStore,
                                                     fake: CountingEmbedder) -> None:
    texts = ["I live in Oslo.", "explode now", "I work at POISON Corp.", "I prefer Go."]
    ids = [JobQueue(store).enqueue(Turn(t, "u")) for t in texts]
    worker = Worker(store, Exploding(), WorkerConfig(batch=8))
    assert worker.run(drain=True) == 4
    q = JobQueue(store)
    status = [q.get(i).status for i in ids]
    assert status == ["done", "failed", "failed", "done"]
    assert "extractor bug" in q.get(ids[1]).error
    assert "the encoder choked" in q.get(ids[2]).error
    for i in (ids[0], ids[3]):
        [mid] = q.get(i).memory_ids
        assert np.allclose(vec_of(store, mid), fake.vector(store.get(mid).text))
    assert store.count() == 4  # a unit and an episode each; the failed jobs wrote nothing


def test_batch_size_one_encodes_job_by_job(store: MemoryStore, fake: CountingEmbedder) -> None:
    for t in TURNS[:2]:
        JobQueue(store).enqueue(Turn(t, "u"))
    Worker(store, HeuristicExtractor(), WorkerConfig(batch=1)).run(drain=True)
    assert [len(c) for c in fake.calls] == [2, 3]  # each job's units and its turn


def test_stopping_hands_back_claimed_jobs_not_started(store: MemoryStore,
                                                      fake: CountingEmbedder) -> None:
    ids = [JobQueue(store).enqueue(Turn(t, "u")) for t in TURNS[:3]]
    worker = Worker(store, HeuristicExtractor(), WorkerConfig(batch=8))
    worker.stop()
    [first] = worker.process_batch()
    q = JobQueue(store)
    assert first.job_id == ids[0] and q.get(ids[0]).status == "done"
    for i in ids[1:]:
        job = q.get(i)
        assert (job.status, job.attempts, job.lease_owner) == ("pending", 0, None)
        assert "released unprocessed" in job.log[-1]["msg"]


def test_identical_texts_in_a_backfill_are_encoded_once(store: MemoryStore,
                                                        fake: CountingEmbedder) -> None:
    same = "The user prefers dark mode."
    ids = store.add_many([{"user_id": "u", "text": t, "type": "fact"}
                          for t in (same, "The user lives in Lisbon.", same)])
    rep = backfill(store, embedder=fake, batch=2)  # the duplicates span two commits
    assert rep.embedded == 3 and rep.remaining == 0
    assert [sorted(c) for c in fake.calls] == [sorted([same, "The user lives in Lisbon."])]
    assert np.allclose(vec_of(store, ids[0]), fake.vector(same))
    assert vec_of(store, ids[0]).tobytes() == vec_of(store, ids[2]).tobytes()


def test_a_batch_claim_takes_an_abandoned_job_over_once(store: MemoryStore) -> None:
    q = JobQueue(store)
    stale = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    fresh = JobQueue(store).enqueue(Turn("I prefer Go.", "u"))
    assert q.claim("gone-host:1:x").id == stale
    _expire_all(store)
    jobs = q.claim_many("w:2:y", limit=8)
    assert [j.id for j in jobs] == [stale, fresh]
    assert [j.attempts for j in jobs] == [2, 1]
    assert sum("claimed by w:2:y" in e["msg"] for e in q.get(stale).log) == 1


def _expire_all(store: MemoryStore) -> None:
    from datetime import timedelta

    from sqlalchemy import update

    from memdesk.core.ids import utcnow
    from memdesk.core.write.models import Job

    with store.write() as conn:
        conn.execute(update(Job.__table__).values(lease_until=utcnow() - timedelta(seconds=1)))
