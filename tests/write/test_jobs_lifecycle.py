"""The job queue's states, field by field: what enqueue, claim, release, complete, fail,
retry and cancel leave in a job row (status, attempts, lease, times, error, the log an
operator reads), with a fixed clock so every time is known exactly."""

from __future__ import annotations

import json
import os
import socket
import sys
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select, update

from memdesk.core.errors import NotFoundError, UndoConflictError, ValidationError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed
from memdesk.core.undo.generic import undo_changes, undo_event
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import (
    MAX_ATTEMPTS,
    JobQueue,
    JobRecord,
    JobStateError,
    LeaseLost,
)
from memdesk.core.write.models import Job
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig

T0 = datetime(2026, 3, 4, 5, 6, 7, 123456)
T0_LOG = "2026-03-04T05:06:07"  # the log's times are to the second


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr("memdesk.core.write.jobs.utcnow", c)
    return c


def set_job(store: MemoryStore, job_id: str, **values) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        conn.execute(update(Job.__table__).where(Job.id == job_id).values(**values))


def one_job(store: MemoryStore) -> tuple[JobQueue, str]:
    """The store's queue and the id of the one pending job just put in it."""
    q = JobQueue(store)
    return q, q.enqueue(Turn("I live in Oslo.", "u"))


def msgs(job: JobRecord) -> list[str]:
    return [e["msg"] for e in job.log]


def test_enqueue_stores_the_turn_as_a_pending_job_with_nothing_else_set(
        store: MemoryStore, clock: Clock) -> None:
    q = JobQueue(store)
    job = q.get(q.enqueue(Turn("I live in Oslo.", "alice", "s1", "home")))
    assert (job.status, job.user_id, job.session_id, job.topic, job.text) == (
        "pending", "alice", "s1", "home", "I live in Oslo.")
    assert job.created_at == T0 and job.updated_at == T0
    assert job.attempts == 0
    assert (job.lease_owner, job.lease_until, job.finished_at) == (None, None, None)
    assert (job.extractor, job.model, job.error) == (None, None, None)
    assert job.memory_ids == () and job.log == ()
    assert job.turn == Turn("I live in Oslo.", "alice", "s1", "home")


def test_get_of_an_unknown_id_names_it(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError) as err:
        JobQueue(store).get("nope")
    assert str(err.value) == "No job with id 'nope'"


def test_list_is_newest_first_then_by_id_filtered_and_limited(
        store: MemoryStore, clock: Clock) -> None:
    q = JobQueue(store)
    ids = []
    for i in range(4):
        clock.now = T0 + timedelta(minutes=i)
        ids.append(JobQueue(store).enqueue(Turn(f"I live in town {i}.", "u")))
    # two jobs created at the same instant are ordered by id, ascending
    clock.now = T0 + timedelta(minutes=10)
    tie = sorted([JobQueue(store).enqueue(Turn("a", "u")), JobQueue(store).enqueue(Turn("b", "u"))])
    assert [j.id for j in q.list()] == [*tie, ids[3], ids[2], ids[1], ids[0]]
    assert [j.id for j in q.list(limit=3)] == [*tie, ids[3]]
    q.cancel(ids[1])
    q.cancel(ids[2])
    assert [j.id for j in q.list(("cancelled",))] == [ids[2], ids[1]]
    assert [j.id for j in q.list(("pending",), limit=2)] == tie
    assert [j.id for j in q.list(("cancelled", "pending"), limit=10)] == [
        *tie, ids[3], ids[2], ids[1], ids[0]]
    assert q.list(("done",)) == []
    with pytest.raises(ValueError):
        q.list(("finished",))


def test_counts_has_every_status_with_its_number(store: MemoryStore) -> None:
    q = JobQueue(store)
    assert q.counts() == {"pending": 0, "running": 0, "done": 0, "failed": 0, "cancelled": 0}
    a, b, c, _ = (JobQueue(store).enqueue(Turn(t, "u")) for t in "abcd")
    q.cancel(a)
    assert q.claim("w1").id == b
    assert q.claim("w1").id == c
    q.fail(c, "w1", "boom")
    assert q.counts() == {"pending": 1, "running": 1, "done": 0, "failed": 1, "cancelled": 1}


def test_claim_takes_the_oldest_sets_the_lease_and_logs_the_owner(
        store: MemoryStore, clock: Clock) -> None:
    q = JobQueue(store)
    clock.now = T0 + timedelta(seconds=5)
    newer = JobQueue(store).enqueue(Turn("newer", "u"))
    clock.now = T0
    older = JobQueue(store).enqueue(Turn("older", "u"))
    set_job(store, older, error="left over")
    clock.now = T0 + timedelta(minutes=1)
    job = q.claim("host:1:w", lease_s=30)
    assert job.id == older
    assert job.status == "running" and job.lease_owner == "host:1:w"
    assert job.lease_until == T0 + timedelta(minutes=1, seconds=30)
    assert job.attempts == 1 and job.error is None
    assert job.updated_at == T0 + timedelta(minutes=1) and job.created_at == T0
    assert job.log == ({"at": "2026-03-04T05:07:07", "msg": "claimed by host:1:w"},)
    assert q.claim("host:1:w").id == newer
    # the default lease is DEFAULT_LEASE_S (300 s)
    assert q.get(newer).lease_until == T0 + timedelta(minutes=1, seconds=300)
    assert q.claim("host:1:w") is None


def test_claim_many_takes_up_to_its_limit_oldest_first(store: MemoryStore, clock: Clock) -> None:
    q = JobQueue(store)
    ids = []
    for i in range(4):
        clock.now = T0 + timedelta(seconds=i)
        ids.append(JobQueue(store).enqueue(Turn(str(i), "u")))
    assert [j.id for j in q.claim_many("w", 60, 2)] == ids[:2]
    assert [j.id for j in q.claim_many("w", 60, 0)] == [ids[2]]  # at least one
    assert [j.id for j in q.claim_many("w", 60, 5)] == [ids[3]]
    assert q.claim_many("w", 60, 5) == []
    for j in q.list():
        assert (j.status, j.lease_owner, j.attempts) == ("running", "w", 1)


def test_claim_skips_cancelled_done_and_failed_jobs(store: MemoryStore) -> None:
    q = JobQueue(store)
    a = JobQueue(store).enqueue(Turn("a", "u"))
    q.cancel(a)
    assert q.claim("w") is None
    b = JobQueue(store).enqueue(Turn("b", "u"))
    assert q.claim("w").id == b
    q.fail(b, "w", "boom")
    assert q.claim("w") is None


def test_a_lease_is_taken_over_only_once_it_has_run_out(store: MemoryStore, clock: Clock) -> None:
    q, job_id = one_job(store)
    q.claim("other-host:1:a", lease_s=60)
    clock.now = T0 + timedelta(seconds=60)  # lease_until == now: still held
    assert q.claim("other-host:2:b") is None
    clock.now = T0 + timedelta(seconds=60, microseconds=1)
    job = q.claim("other-host:2:b", lease_s=10)
    assert job.id == job_id and job.lease_owner == "other-host:2:b" and job.attempts == 2
    assert job.lease_until == clock.now + timedelta(seconds=10)
    assert msgs(job) == [
        "claimed by other-host:1:a",
        "taken over from other-host:1:a: its worker stopped or its lease ran out; "
        "nothing it did was kept",
        "claimed by other-host:2:b",
    ]


def test_a_job_is_failed_instead_of_taken_over_after_max_attempts(
        store: MemoryStore, clock: Clock) -> None:
    q = JobQueue(store)
    job_id = JobQueue(store).enqueue(Turn("I crash workers.", "u"))
    clock.now = T0 + timedelta(seconds=1)
    later = JobQueue(store).enqueue(Turn("I am fine.", "u"))
    for i in range(1, MAX_ATTEMPTS):
        clock.now = T0 + timedelta(hours=i)
        assert q.claim("x:1:a", lease_s=1).id == job_id
    clock.now = T0 + timedelta(hours=MAX_ATTEMPTS)
    # attempts == MAX_ATTEMPTS - 1 when the lease runs out: taken over once more
    last = q.claim("x:1:a", lease_s=1)
    assert last.id == job_id and last.attempts == MAX_ATTEMPTS
    clock.now = T0 + timedelta(hours=MAX_ATTEMPTS + 1)
    # now it is failed, and the same claim goes on to the next job
    assert q.claim("x:2:b").id == later
    job = q.get(job_id)
    error = ("a worker stopped while processing this job 3 times; retry it once the "
             "cause is fixed")
    assert (job.status, job.error, job.attempts) == ("failed", error, MAX_ATTEMPTS)
    assert (job.lease_owner, job.lease_until) == (None, None)
    assert job.finished_at == clock.now and job.updated_at == clock.now
    assert msgs(job)[-2:] == [
        "taken over from x:1:a: its worker stopped or its lease ran out; nothing it did "
        "was kept", error]


def test_release_gives_a_claimed_job_back_without_counting_the_attempt(
        store: MemoryStore, clock: Clock) -> None:
    q, job_id = one_job(store)
    q.claim("w1")
    assert q.release(job_id, "w2") is False
    assert q.get(job_id).status == "running"
    clock.now = T0 + timedelta(seconds=9)
    assert q.release(job_id, "w1") is True
    job = q.get(job_id)
    assert (job.status, job.lease_owner, job.lease_until, job.attempts) == (
        "pending", None, None, 0)
    assert job.updated_at == T0 + timedelta(seconds=9)
    assert job.log[-1] == {"at": "2026-03-04T05:06:16",
                           "msg": "released unprocessed by w1 (stopping)"}
    assert q.release(job_id, "w1") is False  # pending: no longer anyone's
    assert q.get(job_id).log == job.log


def test_complete_marks_done_with_its_memories_extractor_and_notes(
        store: MemoryStore, clock: Clock) -> None:
    q, job_id = one_job(store)
    q.claim("w1")
    set_job(store, job_id, error="stale")
    clock.now = T0 + timedelta(seconds=3)
    with store.write() as conn:
        q.complete_in(conn, job_id, "w1", ["m1", "m2"], "ollama", "qwen", ["note one"])
    job = q.get(job_id)
    assert job.status == "done" and job.memory_ids == ("m1", "m2")
    assert (job.extractor, job.model, job.error) == ("ollama", "qwen", None)
    assert (job.lease_owner, job.lease_until) == (None, None)
    assert job.finished_at == clock.now and job.updated_at == clock.now
    assert msgs(job) == ["claimed by w1", "note one", "done: 2 memories"]
    assert job.log[-1]["at"] == "2026-03-04T05:06:10"


def test_complete_by_a_worker_that_lost_the_lease_raises_and_writes_nothing(
        store: MemoryStore) -> None:
    q, job_id = one_job(store)
    q.claim("w1")
    with pytest.raises(LeaseLost) as err, store.write() as conn:
        q.complete_in(conn, job_id, "w2", [], None, None, [])
    assert err.value.args == (job_id,)
    assert q.get(job_id).status == "running" and msgs(q.get(job_id)) == ["claimed by w1"]


def test_fail_records_the_error_notes_and_finish_time(store: MemoryStore, clock: Clock) -> None:
    q, job_id = one_job(store)
    q.claim("w1")
    clock.now = T0 + timedelta(seconds=2)
    assert q.fail(job_id, "w1", "model down", ["tried twice"]) is True
    job = q.get(job_id)
    assert (job.status, job.error, job.lease_owner, job.lease_until) == (
        "failed", "model down", None, None)
    assert job.finished_at == clock.now and job.updated_at == clock.now
    assert msgs(job) == ["claimed by w1", "tried twice", "failed: model down"]


def test_fail_without_notes_logs_only_the_failure(store: MemoryStore) -> None:
    q, job_id = one_job(store)
    q.claim("w1")
    assert q.fail(job_id, "w1", "boom") is True
    assert msgs(q.get(job_id)) == ["claimed by w1", "failed: boom"]


def test_the_log_keeps_the_last_fifty_entries(store: MemoryStore) -> None:
    q, job_id = one_job(store)
    q.claim("w1")
    notes = [f"note {i}" for i in range(60)]
    q.fail(job_id, "w1", "boom", notes)
    # 1 claim + 60 notes + 1 failure = 62; the oldest 12 are dropped
    assert msgs(q.get(job_id)) == [*notes[11:], "failed: boom"]


def test_the_log_keeps_non_ascii_text_as_it_is(store: MemoryStore) -> None:
    q = JobQueue(store)
    job_id = JobQueue(store).enqueue(Turn("Ich wohne in Köln.", "u"))
    q.claim("w1")
    q.fail(job_id, "w1", "Modell lädt nicht")
    with store.read() as conn:
        raw = conn.execute(select(Job.log).where(Job.id == job_id)).scalar_one()
    assert "failed: Modell lädt nicht" in raw
    assert msgs(q.get(job_id))[-1] == "failed: Modell lädt nicht"


def test_retry_puts_a_failed_job_back_and_remembers_the_error(
        store: MemoryStore, clock: Clock) -> None:
    q, job_id = one_job(store)
    q.claim("w1")
    q.fail(job_id, "w1", "boom")
    clock.now = T0 + timedelta(seconds=4)
    job = q.retry(job_id)
    assert (job.status, job.error, job.finished_at, job.attempts) == ("pending", None, None, 0)
    assert job.updated_at == clock.now
    assert msgs(job) == ["claimed by w1", "failed: boom", "retry requested (last error: boom)"]
    assert job == q.get(job_id)
    assert q.claim("w2").id == job_id


def test_retry_refuses_a_job_that_did_not_fail(store: MemoryStore) -> None:
    q, job_id = one_job(store)
    with pytest.raises(ValidationError) as err:
        q.retry(job_id)
    assert err.value.field == "status"
    assert str(err.value) == f"status: job {job_id} is pending; only failed jobs are retried"
    assert q.get(job_id).log == ()


def test_cancel_is_audited_as_one_undoable_group(store: MemoryStore, clock: Clock) -> None:
    q, job_id = one_job(store)
    clock.now = T0 + timedelta(seconds=1)
    changes = q.cancel(job_id, actor="agent")
    [ev] = store.events("*")
    assert (ev.memory_id, ev.stream, ev.actor, ev.action, ev.note) == (
        None, "job", "agent", "cancel_job", f"job {job_id} cancelled")
    assert ev.before == {"job_id": job_id, "status": "pending"}
    assert ev.after == {"job_id": job_id, "status": "cancelled"}
    assert ev.group_id == changes.group_id and ev.group_id is not None
    assert changes.event_ids == (ev.id,)
    assert changes.kinds == Changed.JOBS | Changed.HISTORY
    assert changes.memory_ids == ()
    job = q.get(job_id)
    assert job.status == "cancelled"
    assert job.finished_at == clock.now and job.updated_at == clock.now
    assert job.log == ({"at": "2026-03-04T05:06:08",
                        "msg": f"cancelled by the agent (event {ev.id})"},)


def test_a_cancel_by_default_is_the_operators(store: MemoryStore) -> None:
    q, job_id = one_job(store)
    q.cancel(job_id)
    [ev] = store.events("*")
    assert ev.actor == "operator"
    assert msgs(q.get(job_id)) == [f"cancelled by the operator (event {ev.id})"]


def test_cancel_refusals_say_why(store: MemoryStore) -> None:
    q = JobQueue(store)
    running = JobQueue(store).enqueue(Turn("a", "u"))
    q.claim("w1")
    with pytest.raises(JobStateError) as err:
        q.cancel(running)
    assert str(err.value) == (
        f"job {running} is running: a worker is processing it now and may be writing its "
        "memories, so it cannot be cancelled. Wait for it to finish (then undo or delete "
        "what it wrote), or stop that worker.")
    cancelled = JobQueue(store).enqueue(Turn("b", "u"))
    q.cancel(cancelled)
    with pytest.raises(JobStateError) as err:
        q.cancel(cancelled)
    assert str(err.value) == f"job {cancelled} is already cancelled"
    q.fail(running, "w1", "boom")
    with pytest.raises(JobStateError) as err:
        q.cancel(running)
    assert str(err.value) == f"job {running} is failed; only pending jobs can be cancelled"
    assert len(store.events("*")) == 1  # only the one cancel that happened


def test_undoing_a_cancel_puts_the_job_back_to_pending_and_logs_it(
        store: MemoryStore, clock: Clock) -> None:
    q, job_id = one_job(store)
    cancel = q.cancel(job_id)
    [cancel_ev] = cancel.event_ids
    clock.now = T0 + timedelta(seconds=30)
    undone = undo_changes(store, cancel, actor="agent")
    job = q.get(job_id)
    assert job.status == "pending" and job.finished_at is None
    assert (job.lease_owner, job.lease_until) == (None, None)
    assert job.updated_at == clock.now
    assert msgs(job) == [f"cancelled by the operator (event {cancel_ev})",
                         f"pending again: the agent undid event {cancel_ev}"]
    [undo_ev] = undone.event_ids
    ev = store.event(undo_ev)
    assert (ev.memory_id, ev.stream, ev.actor, ev.action, ev.undoes) == (
        None, "job", "agent", "undo", cancel_ev)
    assert ev.before == {"job_id": job_id, "status": "cancelled"}
    assert ev.after == {"job_id": job_id, "status": "pending"}
    assert ev.note == f"job {job_id} back to pending"
    assert ev.group_id == undone.group_id
    assert store.event(cancel_ev).undone_by == undo_ev
    with pytest.raises(UndoConflictError) as err:
        undo_event(store, cancel_ev)
    assert str(err.value) == f"Action {cancel_ev} was already undone."
    # redo: cancelled again, the job's finish time set again
    clock.now = T0 + timedelta(seconds=40)
    undo_changes(store, undone)
    job = q.get(job_id)
    assert job.status == "cancelled" and job.finished_at == clock.now
    assert msgs(job)[-1] == f"cancelled again: the operator undid event {undo_ev}"


def test_undoing_a_single_cancel_event_outside_its_group(store: MemoryStore) -> None:
    q, job_id = one_job(store)
    [cancel_ev] = q.cancel(job_id).event_ids
    changes = undo_event(store, cancel_ev)
    [undo_ev] = changes.event_ids
    assert store.event(undo_ev).group_id is None
    assert q.get(job_id).status == "pending"


def test_undo_of_a_cancel_refuses_once_the_job_moved_on(store: MemoryStore) -> None:
    q, job_id = one_job(store)
    [cancel_ev] = q.cancel(job_id).event_ids
    set_job(store, job_id, status="done")
    with pytest.raises(UndoConflictError) as err:
        undo_event(store, cancel_ev)
    assert str(err.value) == (
        f"Cannot undo action {cancel_ev} on job {job_id}: it is done now, not cancelled. "
        "A worker may have claimed it since.")
    assert store.event(cancel_ev).undone_by is None
    assert q.get(job_id).status == "done"


def test_undo_of_a_cancel_of_a_job_that_is_gone_says_so(store: MemoryStore) -> None:
    q, job_id = one_job(store)
    [cancel_ev] = q.cancel(job_id).event_ids
    with store.write() as conn:
        conn.execute(Job.__table__.delete().where(Job.id == job_id))
    with pytest.raises(NotFoundError) as err:
        undo_event(store, cancel_ev)
    assert str(err.value) == f"No job with id {job_id!r}"


def test_a_cancel_is_a_job_stream_event_about_no_memory(store: MemoryStore) -> None:
    job_id = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    [ev_id] = JobQueue(store).cancel(job_id).event_ids
    ev = store.event(ev_id)
    assert (ev.memory_id, ev.stream, ev.target) == (None, "job", job_id)
    mem = store.add(user_id="u", text="x", type="fact").changes.event_ids[0]
    assert store.event(mem).stream == "memory"


def test_a_job_as_json_converts_every_time_and_keeps_the_rest(
        store: MemoryStore, clock: Clock) -> None:
    q, job_id = one_job(store)
    q.claim("w1", lease_s=60)
    with store.write() as conn:
        q.complete_in(conn, job_id, "w1", ["m1"], "heuristic", None, [])
    out = q.get(job_id).to_json()
    assert out == {
        "id": job_id, "status": "done", "user_id": "u", "session_id": None, "topic": None,
        "text": "I live in Oslo.", "created_at": "2026-03-04T05:06:07.123456",
        "updated_at": "2026-03-04T05:06:07.123456", "attempts": 1, "lease_owner": None,
        "lease_until": None, "finished_at": "2026-03-04T05:06:07.123456",
        "extractor": "heuristic", "model": None, "memory_ids": ["m1"], "error": None,
        "log": [{"at": T0_LOG, "msg": "claimed by w1"}, {"at": T0_LOG, "msg": "done: 1 memories"}],
        "agent_id": None, "run_id": None, "speaker": None, "said_at": None,
    }
    assert json.loads(json.dumps(out)) == out


def test_a_worker_claims_as_host_pid_and_a_token(store: MemoryStore) -> None:
    job_id = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).run(drain=True)
    claimed = msgs(JobQueue(store).get(job_id))[0]
    assert claimed.startswith("claimed by ")
    host, pid, token = claimed.removeprefix("claimed by ").split(":")
    assert host == socket.gethostname() and pid == str(os.getpid()) and len(token) == 8


def taken_over(store: MemoryStore, owner: str) -> bool:
    """Whether a job ``owner`` holds, with an hour of lease left, goes to another worker."""
    q = JobQueue(store)
    job_id = q.enqueue(Turn("I live in Oslo.", "u"))
    assert q.claim(owner, lease_s=3600) is not None
    other = q.claim("w2")
    assert other is None or other.id == job_id
    return other is not None


@pytest.mark.parametrize(("owner", "gone"), [
    ("", False),
    (f"{socket.gethostname()}:{os.getpid()}:tok", False),  # ourselves
    (f"{socket.gethostname()}:999999999:tok", True),  # no such process
    (f"{socket.gethostname()}:999999999", True),  # no token
    (f"not-{socket.gethostname()}:999999999:tok", False),  # another machine's
    (f"{socket.gethostname()}:pid:tok", False),  # not a pid
    ("w1", False),
], ids=["none", "ourselves", "dead-pid", "dead-pid-no-token", "other-host", "not-a-pid",
        "bare-name"])  # fixed ids: one pid in a test id differs between parallel workers
def test_a_leased_job_is_taken_over_only_from_a_dead_process_on_this_host(
        store: MemoryStore, owner: str, gone: bool) -> None:
    assert taken_over(store, owner) is gone


@pytest.mark.parametrize(("kill", "gone"), [
    (None, False),  # the signal was delivered: alive
    (ProcessLookupError(), True),
    (PermissionError(), False),  # alive, another user's
])
def test_owner_life_is_asked_with_signal_zero(store: MemoryStore,
                                              monkeypatch: pytest.MonkeyPatch,
                                              kill: Exception | None, gone: bool) -> None:
    sent: list[tuple[int, int]] = []

    def fake_kill(pid: int, sig: int) -> None:
        sent.append((pid, sig))
        if kill is not None:
            raise kill

    monkeypatch.setattr(os, "kill", fake_kill)
    assert taken_over(store, f"{socket.gethostname()}:4242:tok") is gone
    assert sent == [(4242, 0)]


def test_owner_life_is_never_asked_on_windows(store: MemoryStore,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    assert taken_over(store, f"{socket.gethostname()}:999999999:tok") is False


def test_a_job_whose_owner_process_died_is_taken_over_before_its_lease_ends(
        store: MemoryStore) -> None:
    q, job_id = one_job(store)
    dead = f"{socket.gethostname()}:999999999:tok"
    q.claim(dead, lease_s=3600)
    job = q.claim("w2")
    assert job.id == job_id and job.lease_owner == "w2" and job.attempts == 2
    assert msgs(job)[1].startswith(f"taken over from {dead}: ")
