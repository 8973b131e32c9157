"""The worker, job by job: what it stores from an extraction (every field, provenance,
the job's log), what it keeps in working memory, the outcome and error of each kind of
failure, when memories are stored without vectors and the note that says why, stopping
mid-batch, and the run loop.  A stub extractor and a fake encoder stand in for models."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from sqlalchemy import update

from memdesk.core import embeddings
from memdesk.core.errors import MemdeskError
from memdesk.core.store.episodes import Episodes
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.embed import reembed_all
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.models import Job
from memdesk.core.write.provenance import provenance
from memdesk.core.write.units import Extraction, ExtractionError, Turn, Unit
from memdesk.core.write.worker import Outcome, Worker, WorkerConfig
from memdesk.core.write.working import WorkingMemory

FACT = Unit("The user works at Acme.", "fact", 0.7, 0.85, "user", "works_at", "Acme")
PREF = Unit("The user prefers tabs.", "preference", 0.8, 0.9, "user", "prefers", "tabs")
SCOPED = Unit("The user uses Python for this task.", "decision", 0.5, 0.8)


class Stub:
    """Answers every turn with ``units``; turns naming a failure raise it."""

    name, model = "stub", "stub-1"

    def __init__(self, units: list[Unit], notes: list[str] | None = None) -> None:
        self.units, self.notes = units, notes or []
        self.before_answer = lambda turn: None

    def extract(self, turn: Turn) -> Extraction:
        self.before_answer(turn)
        if "unreachable" in turn.text:
            raise ExtractionError("the model server is unreachable")
        if "crash" in turn.text:
            raise RuntimeError("extractor bug")
        return Extraction(list(self.units), "stub", "stub-1", list(self.notes))


class Encoder:
    name, dim = embeddings.MODEL_NAME, embeddings.DIM

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.before_answer = lambda: None

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        self.calls.append(list(texts))
        self.before_answer()
        if any("POISON" in t for t in texts):
            raise RuntimeError("the encoder choked")
        return np.array([self.vector(t) for t in texts], dtype=np.float32).reshape(-1, 384)

    @staticmethod
    def vector(text: str) -> np.ndarray:
        v = np.zeros(384, dtype=np.float32)
        v[len(text) % 384] = 1.0
        return v


@pytest.fixture
def enc(monkeypatch: pytest.MonkeyPatch) -> Encoder:
    e = Encoder()
    monkeypatch.setattr(embeddings, "default_embedder", lambda: e)
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: None)
    return e


def logged(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records
            if r.name == "memdesk.core.write.worker"]


def msgs(store: MemoryStore, job_id: str) -> list[str]:
    return [e["msg"] for e in JobQueue(store).get(job_id).log]


def test_the_default_config() -> None:
    c = WorkerConfig()
    assert (c.embed, c.lease_s, c.poll_s, c.batch) == (True, 300.0, 1.0, 8)


def test_an_empty_queue_gives_no_outcome(store: MemoryStore, enc: Encoder) -> None:
    w = Worker(store, Stub([FACT]))
    assert w.process_one() is None and w.process_batch() == [] and w.run(drain=True) == 0


def test_a_job_stores_each_unit_with_the_turns_fields_provenance_and_vector(
        store: MemoryStore, enc: Encoder) -> None:
    job_id = JobQueue(store).enqueue(Turn("I work at Acme and prefer tabs.", "alice", "s1", "work"))
    w = Worker(store, Stub([FACT, PREF], ["a note"]))
    out = w.process_one()
    assert out is not None and (out.job_id, out.status, out.error) == (job_id, "done", None)
    job = JobQueue(store).get(job_id)
    assert list(job.memory_ids) == out.memory_ids and len(out.memory_ids) == 2
    assert (job.status, job.extractor, job.model) == ("done", "stub", "stub-1")
    assert msgs(store, job_id) == [f"claimed by {w.identity}", "a note", "done: 2 memories"]
    fact, pref = store.get_many(out.memory_ids)
    assert (fact.user_id, fact.text, fact.type, fact.topic, fact.source_session) == (
        "alice", FACT.text, "fact", "work", "s1")
    assert (fact.importance, fact.confidence, fact.entity, fact.attribute, fact.value) == (
        0.7, 0.85, "user", "works_at", "Acme")
    assert (fact.layer, pref.layer) == ("semantic", "procedural")
    assert fact.embedding == Encoder.vector(FACT.text).tobytes()
    assert pref.embedding == Encoder.vector(PREF.text).tobytes()
    # the turn itself is kept as said, as the units' episode, with its own vector
    assert [sorted(c) for c in enc.calls] == [sorted(
        [FACT.text, PREF.text, "I work at Acme and prefer tabs."])]
    episode = store.get(out.episode_id or "")
    assert (episode.type, episode.layer, episode.text, episode.source_session) == (
        "episode", "episodic", "I work at Acme and prefer tabs.", "s1")
    assert episode.embedding == Encoder.vector(episode.text).tobytes()
    assert Episodes(store).units_of(episode.id) == [fact.id, pref.id]
    source = Episodes(store).source_of(pref.id)
    assert source is not None and source.id == episode.id and source.session_id == "s1"
    prov = provenance(store, fact.id)
    assert prov is not None and (prov.extractor, prov.model, prov.job_id) == (
        "stub", "stub-1", job_id)
    [ev] = store.events(fact.id)
    assert (ev.actor, ev.note) == ("worker", f"job {job_id}")


def test_session_scoped_units_go_to_working_memory_and_the_log_says_so(
        store: MemoryStore, enc: Encoder) -> None:
    job_id = JobQueue(store).enqueue(Turn("For this task use Python; I work at Acme.", "bob", "s9"))
    working = WorkingMemory()
    out = Worker(store, Stub([SCOPED, FACT]), working=working).process_one()
    assert out is not None and out.status == "done" and len(out.memory_ids) == 1
    assert store.get(out.memory_ids[0]).text == FACT.text
    assert [i.unit for i in working.get("bob", "s9")] == [SCOPED]
    assert msgs(store, job_id)[-2:] == [
        "1 session-scoped unit(s) kept in working memory, not stored", "done: 1 memories"]
    assert [sorted(c) for c in enc.calls] == [sorted(
        [FACT.text, "For this task use Python; I work at Acme."])]


def test_a_job_with_no_units_to_store_is_done_without_encoding(
        store: MemoryStore, enc: Encoder) -> None:
    job_id = JobQueue(store).enqueue(Turn("For now use Python.", "bob"))
    working = WorkingMemory()
    out = Worker(store, Stub([SCOPED]), working=working).process_one()
    assert out is not None and (out.job_id, out.status, out.memory_ids) == (job_id, "done", [])
    # nothing typed is stored, but the turn is kept as said: one encode, for it alone
    assert enc.calls == [["For now use Python."]] and store.count() == 1
    assert store.get(out.episode_id or "").text == "For now use Python."
    assert [i.unit for i in working.get("bob", None)] == [SCOPED]


def test_an_extraction_error_fails_the_job_with_its_message(
        store: MemoryStore, enc: Encoder) -> None:
    job_id = JobQueue(store).enqueue(Turn("The server is unreachable.", "u"))
    w = Worker(store, Stub([FACT]))
    assert w.process_one() == Outcome(job_id, "failed", [], "the model server is unreachable")
    job = JobQueue(store).get(job_id)
    assert (job.status, job.error) == ("failed", "the model server is unreachable")


def test_an_extractor_bug_fails_the_job_and_names_the_exception(
        store: MemoryStore, enc: Encoder, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    job_id = JobQueue(store).enqueue(Turn("Please crash.", "u"))
    error = "unexpected error: RuntimeError: extractor bug"
    assert Worker(store, Stub([FACT])).process_one() == Outcome(job_id, "failed", [], error)
    assert JobQueue(store).get(job_id).error == error
    assert logged(caplog) == [(logging.ERROR, f"job {job_id} failed unexpectedly")]


def test_a_unit_the_store_refuses_fails_its_job_with_the_stores_reason(
        store: MemoryStore, enc: Encoder) -> None:
    bad = Unit("The user is odd.", "fact", 1.5, 0.5)  # no extractor's gate ran
    job_id = JobQueue(store).enqueue(Turn("I am odd.", "u"))
    out = Worker(store, Stub([bad]), WorkerConfig(embed=False)).process_one()
    error = "importance: must be in [0, 1], got 1.5"  # the store's own check (taxonomy)
    assert out == Outcome(job_id, "failed", [], error)
    assert JobQueue(store).get(job_id).error == error and store.count() == 0


def test_a_job_taken_over_during_extraction_is_lost_and_writes_nothing(
        store: MemoryStore, enc: Encoder, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    job_id = JobQueue(store).enqueue(Turn("I work at Acme.", "u"))
    stub = Stub([FACT])

    def steal(turn: Turn) -> None:
        with store.write() as conn:
            conn.execute(update(Job.__table__).where(Job.id == job_id)
                         .values(lease_owner="another:1:w"))

    stub.before_answer = steal
    assert Worker(store, stub).process_one() == Outcome(job_id, "lost")
    assert store.count() == 0 and JobQueue(store).get(job_id).status == "running"
    assert logged(caplog) == [(logging.WARNING, f"job {job_id} was taken over by another "
                               "worker; dropped our result")]


def test_without_embedding_no_vector_and_no_note(store: MemoryStore, enc: Encoder) -> None:
    job_id = JobQueue(store).enqueue(Turn("I work at Acme.", "u"))
    out = Worker(store, Stub([FACT]), WorkerConfig(embed=False)).process_one()
    assert out is not None and store.get(out.memory_ids[0]).embedding is None
    assert enc.calls == [] and msgs(store, job_id)[1:] == ["done: 1 memories"]


def test_without_the_model_the_memories_are_stored_and_the_log_says_why(
        store: MemoryStore, enc: Encoder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: "vectors are off: test")
    job_id = JobQueue(store).enqueue(Turn("I work at Acme.", "u"))
    out = Worker(store, Stub([FACT])).process_one()
    assert out is not None and store.get(out.memory_ids[0]).embedding is None
    assert msgs(store, job_id)[1:] == ["stored without vectors: vectors are off: test",
                                       "done: 1 memories"]
    assert enc.calls == []


def test_a_model_that_fails_to_load_is_not_tried_again_by_that_worker(
        store: MemoryStore, enc: Encoder) -> None:
    def unavailable() -> None:
        raise embeddings.EmbeddingsUnavailable("vectors are off: broken install")

    enc.before_answer = unavailable
    w = Worker(store, Stub([FACT]))
    first = JobQueue(store).enqueue(Turn("I work at Acme.", "u"))
    w.process_one()
    second = JobQueue(store).enqueue(Turn("I work at Acme too.", "u"))
    w.process_one()
    assert len(enc.calls) == 1
    for job_id in (first, second):
        assert msgs(store, job_id)[1] == "stored without vectors: vectors are off: broken install"
        assert JobQueue(store).get(job_id).status == "done"


def test_a_text_that_breaks_the_encoder_fails_only_its_job(
        store: MemoryStore, enc: Encoder, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    good = JobQueue(store).enqueue(Turn("fine", "u"))
    bad = JobQueue(store).enqueue(Turn("poison", "u"))

    class PerTurn(Stub):
        def extract(self, turn: Turn) -> Extraction:
            text = "POISON unit." if turn.text == "poison" else FACT.text
            return Extraction([Unit(text, "fact", 0.5, 0.5)], "stub", None, [])

    outs = Worker(store, PerTurn([])).process_batch()
    error = "unexpected error: RuntimeError: the encoder choked"
    assert [(o.job_id, o.status, o.error) for o in outs] == [
        (good, "done", None), (bad, "failed", error)]
    assert [sorted(c) for c in enc.calls] == [
        sorted([FACT.text, "fine", "POISON unit.", "poison"]), sorted([FACT.text, "fine"]),
        sorted(["POISON unit.", "poison"])]
    assert store.get(outs[0].memory_ids[0]).embedding == Encoder.vector(FACT.text).tobytes()
    assert JobQueue(store).get(bad).error == error
    assert logged(caplog) == [(logging.ERROR, "batch encode failed; encoding job by job")]


def test_a_model_change_under_the_worker_stores_without_vectors(
        store: MemoryStore, enc: Encoder) -> None:
    job_id = JobQueue(store).enqueue(Turn("I work at Acme.", "u"))
    enc.before_answer = lambda: reembed_all(store, "other-model", 384)
    out = Worker(store, Stub([FACT])).process_one()
    assert out is not None and out.status == "done"
    assert store.get(out.memory_ids[0]).embedding is None
    note = msgs(store, job_id)[1]
    assert note.startswith("stored without vectors: The store's vectors were made by "
                           "other-model (384 dims); this memdesk embeds with all-MiniLM-L6-v2")


def test_a_batch_claims_up_to_its_size_and_reports_in_queue_order(
        store: MemoryStore, enc: Encoder) -> None:
    ids = [JobQueue(store).enqueue(Turn(t, "u")) for t in ("one", "crash", "three")]
    w = Worker(store, Stub([FACT]), WorkerConfig(batch=2))
    outs = w.process_batch()
    assert [(o.job_id, o.status) for o in outs] == [(ids[0], "done"), (ids[1], "failed")]
    assert JobQueue(store).get(ids[2]).status == "pending"
    assert [o.job_id for o in w.process_batch()] == [ids[2]]


def test_stopping_mid_batch_hands_back_the_jobs_not_started(
        store: MemoryStore, enc: Encoder) -> None:
    ids = [JobQueue(store).enqueue(Turn(t, "u")) for t in ("one", "two", "three")]
    stub = Stub([FACT])
    w = Worker(store, stub, WorkerConfig(batch=3))
    stub.before_answer = lambda turn: w.stop()
    outs = w.process_batch()
    assert [(o.job_id, o.status) for o in outs] == [(ids[0], "done")]
    for job_id in ids[1:]:
        job = JobQueue(store).get(job_id)
        assert (job.status, job.attempts, job.lease_owner) == ("pending", 0, None)
        assert msgs(store, job_id)[-1] == f"released unprocessed by {w.identity} (stopping)"


def test_run_drains_the_queue_and_reports_each_outcome(store: MemoryStore, enc: Encoder) -> None:
    ids = [JobQueue(store).enqueue(Turn(t, "u")) for t in ("one", "crash", "three")]
    seen: list[Outcome] = []
    w = Worker(store, Stub([FACT]), WorkerConfig(batch=2))
    assert w.run(drain=True, on_outcome=seen.append) == 3
    assert [(o.job_id, o.status) for o in seen] == [
        (ids[0], "done"), (ids[1], "failed"), (ids[2], "done")]


def test_a_stopped_worker_processes_nothing(store: MemoryStore, enc: Encoder) -> None:
    JobQueue(store).enqueue(Turn("one", "u"))
    w = Worker(store, Stub([FACT]))
    w.stop()
    assert w.run() == 0 and JobQueue(store).counts()["pending"] == 1


def test_a_store_error_stops_a_draining_run_and_is_waited_out_otherwise(
        store: MemoryStore, enc: Encoder, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    w = Worker(store, Stub([FACT]), WorkerConfig(poll_s=0.0))
    calls: list[int] = []

    def locked() -> list[Outcome]:
        calls.append(1)
        if len(calls) == 2:
            w.stop()
        raise MemdeskError("the store is locked")

    monkeypatch.setattr(w, "process_batch", locked)
    with pytest.raises(MemdeskError, match="the store is locked"):
        w.run(drain=True)
    assert len(calls) == 1
    assert w.run() == 0 and len(calls) == 2  # logged, waited, tried again until stopped
    assert logged(caplog) == [(logging.WARNING, "worker: the store is locked")] * 2


def test_an_idle_run_polls_until_stopped(store: MemoryStore, enc: Encoder) -> None:
    w = Worker(store, Stub([FACT]), WorkerConfig(poll_s=0.0))
    polls: list[int] = []
    real = w.process_batch

    def batch() -> list[Outcome]:
        polls.append(1)
        if len(polls) == 3:
            w.stop()
        return real()

    w.process_batch = batch  # type: ignore[method-assign]
    assert w.run() == 0 and len(polls) == 3
