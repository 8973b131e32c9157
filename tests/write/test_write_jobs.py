"""The async store: jobs persist at once, a worker extracts → routes → embeds → inserts in
one transaction, failures are readable and retryable, leases keep workers apart."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import numpy as np
import pytest
from sqlalchemy import func, select, update

from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.ids import utcnow
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory
from memdesk.core.write.extract import FallbackExtractor
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.extract_ollama import OllamaExtractor
from memdesk.core.write.jobs import MAX_ATTEMPTS, JobQueue, LeaseLost
from memdesk.core.write.models import Job, MemoryProvenance
from memdesk.core.write.provenance import provenance
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig
from tests.helpers.fake_ollama import FakeOllama, Reply, unit, units

TURN = Turn("I'm allergic to peanuts. I work at Acme Corp. Thanks!", "alice", "s1", "health")


def count(store: MemoryStore, table=Memory) -> int:  # type: ignore[no-untyped-def]
    with store.read() as conn:
        return int(conn.execute(select(func.count()).select_from(table.__table__)).scalar_one())


def test_store_memory_returns_a_pending_job_and_writes_no_memory(store: MemoryStore) -> None:
    job_id = JobQueue(store).enqueue(TURN)
    job = JobQueue(store).get(job_id)
    assert job.status == "pending" and job.text == TURN.text and job.session_id == "s1"
    assert count(store) == 0
    assert JobQueue(store).counts() == {"pending": 1, "running": 0, "done": 0, "failed": 0,
                                        "cancelled": 0}


def test_worker_extracts_routes_embeds_and_inserts(store: MemoryStore, embedder) -> None:  # type: ignore[no-untyped-def]
    job_id = JobQueue(store).enqueue(TURN)
    assert Worker(store, HeuristicExtractor()).run(drain=True) == 1
    job = JobQueue(store).get(job_id)
    assert job.status == "done" and job.extractor == "heuristic" and job.attempts == 1
    mems = store.get_many(list(job.memory_ids))
    assert {(m.attribute, m.value, m.layer) for m in mems} == {
        ("allergic_to", "peanuts", "semantic"), ("works_at", "Acme Corp", "semantic")}
    for m in mems:
        assert (m.user_id, m.source_session, m.topic) == ("alice", "s1", "health")
        vec = np.frombuffer(m.embedding, dtype="<f4")
        assert vec.shape == (384,) and abs(float(np.linalg.norm(vec)) - 1) < 1e-4
        assert provenance(store, m.id).extractor == "heuristic"
        assert provenance(store, m.id).job_id == job_id
        [ev] = store.events(m.id)
        assert ev.actor == "worker" and ev.note == f"job {job_id}"
    # the vectors are the model's: the allergy memory is nearest to an allergy query
    q = embedder.encode(["food allergy"])[0]
    best = max(mems, key=lambda m: float(np.frombuffer(m.embedding, "<f4") @ q))
    assert best.attribute == "allergic_to"


def test_pleasantry_job_is_done_with_no_memories(store: MemoryStore) -> None:
    job_id = JobQueue(store).enqueue(Turn("Thanks, that's helpful!", "alice"))
    Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).run(drain=True)
    job = JobQueue(store).get(job_id)
    # no unit; the turn is kept as said (an episode), and only it
    assert job.status == "done" and job.memory_ids == () and count(store) == 1


def test_ollama_units_carry_their_model_as_provenance(store: MemoryStore) -> None:
    job_id = JobQueue(store).enqueue(Turn("I work at Acme.", "bob"))
    good = unit("The user works at Acme.", "fact", 0.7, 0.9, "user", "works_at", "Acme")
    with FakeOllama([units(good)]) as fake:
        ex = FallbackExtractor(OllamaExtractor(fake.host, "qwen-test", timeout=5))
        Worker(store, ex, WorkerConfig(embed=False)).run(drain=True)
    job = JobQueue(store).get(job_id)
    [mid] = job.memory_ids
    p = provenance(store, mid)
    assert (p.extractor, p.model, job.model) == ("ollama", "qwen-test", "qwen-test")
    assert store.get(mid).layer == "semantic"


@pytest.mark.parametrize("reply", [Reply("{not json"), Reply(status=404, error="no model"),
                                   Reply(delay=3.0)])
def test_bad_ollama_falls_back_and_logs_the_reason_on_the_job(
        store: MemoryStore, reply: Reply) -> None:
    job_id = JobQueue(store).enqueue(Turn("What if I were a doctor?", "carol"))
    with FakeOllama([reply]) as fake:
        ex = FallbackExtractor(OllamaExtractor(fake.host, "m", timeout=0.5))
        Worker(store, ex, WorkerConfig(embed=False)).run(drain=True)
    job = JobQueue(store).get(job_id)
    assert job.status == "done" and job.extractor == "heuristic"
    assert any(e["msg"].startswith("ollama failed:") for e in job.log)
    [m] = store.get_many(list(job.memory_ids))
    assert m.confidence <= 0.3
    assert provenance(store, m.id).extractor == "heuristic"


def test_without_fallback_the_job_fails_readably_then_retry_succeeds(store: MemoryStore) -> None:
    job_id = JobQueue(store).enqueue(Turn("I prefer Python.", "dan"))
    queue = JobQueue(store)
    with FakeOllama([Reply(status=404, error="model 'm' not found"),
                     units(unit())]) as fake:
        worker = Worker(store, OllamaExtractor(fake.host, "m", timeout=5),
                        WorkerConfig(embed=False))
        worker.run(drain=True)
        failed = queue.get(job_id)
        assert failed.status == "failed" and "has no model 'm'" in failed.error
        assert count(store) == 0  # nothing half-written
        with pytest.raises(ValidationError, match="only failed jobs"):
            queue.retry(JobQueue(store).enqueue(Turn("x y", "dan")))
        assert queue.retry(job_id).status == "pending"
        worker.process_one()
    job = queue.get(job_id)
    assert job.status == "done" and len(job.memory_ids) == 1 and job.error is None
    assert any("retry requested" in e["msg"] for e in job.log)


def test_unknown_job_is_not_found(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError):
        JobQueue(store).retry("nope")


def test_two_claims_never_get_the_same_job(store: MemoryStore) -> None:
    a, b = JobQueue(store).enqueue(TURN), JobQueue(store).enqueue(TURN)
    q = JobQueue(store)
    first, second = q.claim("w1"), q.claim("w2")
    assert {first.id, second.id} == {a, b}
    assert q.claim("w3") is None


def test_jobs_of_the_same_instant_are_claimed_in_id_order(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    # Oldest first; jobs enqueued in the same clock tick (coarse clocks make that
    # common) go by id, as in list(): the same order on every backend, whatever the
    # insertion order.  Ids are handed out in reverse so insertion order differs.
    ids = iter(["job-c", "job-b", "job-a"])
    monkeypatch.setattr("memdesk.core.write.jobs.new_id", lambda: next(ids))
    q = JobQueue(store)
    for _ in range(3):
        q.enqueue(TURN)
    with store.write() as conn:
        conn.execute(update(Job.__table__).values(created_at=datetime(2026, 3, 1, 12)))
    assert [q.claim("h:1:w").id for _ in range(3)] == ["job-a", "job-b", "job-c"]


def test_a_claim_in_progress_holds_only_the_job_it_took(store: MemoryStore,
                                                         backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("SQLite serialises claims (BEGIN IMMEDIATE): a second one waits")
    q = JobQueue(store)
    for _ in range(3):
        q.enqueue(TURN)
    # claim_many's transaction held open: worker A has taken the oldest job and holds
    # its row lock; worker B, meanwhile, skips that one row and takes the next.
    with store.write() as conn:
        (a,) = q._claim_in(conn, "h:1:a", 60.0, 1)
        b = JobQueue(store).claim("h:2:b")
    assert b is not None and b.id != a.id
    assert {j.lease_owner for j in q.list(("running",))} == {"h:1:a", "h:2:b"}


def _expire(store: MemoryStore, job_id: str) -> None:
    with store.write() as conn:
        conn.execute(update(Job.__table__).where(Job.id == job_id)
                     .values(lease_until=utcnow() - timedelta(seconds=1)))


def test_expired_lease_is_taken_over_and_the_old_owner_writes_nothing(
        store: MemoryStore) -> None:
    job_id = JobQueue(store).enqueue(TURN)
    q = JobQueue(store)
    assert q.claim("old-host:1:a").id == job_id
    assert q.claim("w2") is None  # leased
    _expire(store, job_id)
    again = q.claim("new-host:2:b")
    assert again.id == job_id and again.attempts == 2
    assert any("taken over from old-host:1:a" in e["msg"] for e in again.log)
    # the first owner finishes late: its transaction must not commit anything
    with pytest.raises(LeaseLost), store.write() as conn:
        store.add_in(conn, {"id": "late", "user_id": "u", "text": "late", "type": "fact",
                            "importance": 0.5, "confidence": 0.5, "access_count": 0,
                            "created_at": utcnow()}, actor="worker")
        q.complete_in(conn, job_id, "old-host:1:a", ["late"], "heuristic", None, [])
    assert count(store) == 0 and q.get(job_id).status == "running"
    assert q.fail(job_id, "old-host:1:a", "late failure") is False


def test_a_job_that_keeps_killing_workers_fails_after_max_attempts(store: MemoryStore) -> None:
    job_id = JobQueue(store).enqueue(TURN)
    q = JobQueue(store)
    for i in range(MAX_ATTEMPTS):
        assert q.claim(f"h:{i}:x").id == job_id
        _expire(store, job_id)
    assert q.claim("h:last:x") is None
    job = q.get(job_id)
    assert job.status == "failed" and "stopped while processing" in job.error
    assert q.retry(job_id).attempts == 0


def test_provenance_of_an_operator_memory_is_none(store: MemoryStore) -> None:
    rec = store.add(user_id="u", text="typed by hand", type="note")
    assert provenance(store, rec.id) is None
    assert count(store, MemoryProvenance) == 0


def test_a_job_as_json_is_every_field_with_iso_times_and_lists(store: MemoryStore) -> None:
    q = JobQueue(store)
    job_id = JobQueue(store).enqueue(Turn("I live in Oslo.", "u", "s1", "home"))
    q.cancel(job_id)
    job = q.get(job_id)
    out = job.to_json()
    assert set(out) == set(job.__dataclass_fields__)
    assert (out["id"], out["status"], out["user_id"], out["session_id"], out["topic"],
            out["text"]) == (job_id, "cancelled", "u", "s1", "home", "I live in Oslo.")
    assert out["created_at"] == job.created_at.isoformat()
    assert out["finished_at"] == job.finished_at.isoformat()
    assert datetime.fromisoformat(out["updated_at"]) == job.updated_at
    assert out["lease_until"] is None and out["memory_ids"] == []
    assert isinstance(out["log"], list) and out["log"] == list(job.log)
    assert json.loads(json.dumps(out)) == out  # JSON-safe as it is


def test_fail_says_whether_the_job_was_still_ours(store: MemoryStore) -> None:
    q = JobQueue(store)
    job_id = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    assert q.claim("w1").id == job_id
    assert q.fail(job_id, "w2", "not mine") is False  # another worker's lease
    assert q.get(job_id).status == "running"
    assert q.fail(job_id, "w1", "boom") is True
    job = q.get(job_id)
    assert (job.status, job.error, job.lease_owner) == ("failed", "boom", None)
    assert q.fail(job_id, "w1", "again") is False  # no longer running
    assert q.get(job_id).error == "boom"


def test_list_gives_at_most_500_jobs_unless_told_otherwise(store: MemoryStore) -> None:
    q = JobQueue(store)
    with store.write() as conn:
        for i in range(501):
            q.enqueue_in(conn, Turn(f"turn {i}", "u"))
    assert len(q.list()) == 500
    assert len(q.list(limit=501)) == 501
    assert len(q.list(("pending",))) == 500


def test_resolve_names_a_job_by_prefix_or_says_there_is_none(store: MemoryStore) -> None:
    q = JobQueue(store)
    job_id = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    assert q.resolve(job_id) == job_id and q.resolve(job_id[:8]) == job_id
    with pytest.raises(NotFoundError) as err:
        q.resolve("zzzzzzzz")
    assert str(err.value) == "No job 'zzzzzzzz'"
