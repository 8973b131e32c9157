"""Workers as real processes: a SIGKILLed worker's job is recovered exactly once; two
workers on one store never process the same job; SIGTERM stops a worker cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.models import MemoryProvenance
from memdesk.core.write.units import Turn
from tests.helpers.fake_ollama import FakeOllama, Reply, unit, units

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

WAIT_S = 90.0  # generous: the CI machine may be busy; each wait polls and ends early


def worker(db: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "memdesk.app.main", "--db", str(db), "worker", "--no-embed",
         "--poll", "0.05", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def wait_for(cond, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT_S
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def count(store: MemoryStore, table=Memory) -> int:  # type: ignore[no-untyped-def]
    with store.read() as conn:
        return int(conn.execute(select(func.count()).select_from(table.__table__)).scalar_one())


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=30)


def test_a_job_of_a_killed_worker_is_recovered_exactly_once(store_path: Path) -> None:
    store = MemoryStore.open(store_path)
    queue = JobQueue(store)
    job_id = JobQueue(store).enqueue(Turn("I'm allergic to peanuts. I live in Oslo.", "alice"))
    with FakeOllama([Reply(delay=120)]) as fake:  # the model never answers in time
        doomed = worker(store_path, "--ollama-host", fake.host, "--timeout", "300")
        try:
            wait_for(lambda: queue.get(job_id).status == "running", "the first claim")
            doomed.send_signal(signal.SIGKILL)
            doomed.wait(30)
        finally:
            stop(doomed)
    job = queue.get(job_id)
    assert job.status == "running" and count(store) == 0  # killed mid-job: nothing written

    rescuer = worker(store_path, "--offline", "--drain")
    _out, errs = rescuer.communicate(timeout=WAIT_S)
    assert rescuer.returncode == 0, errs
    job = queue.get(job_id)
    assert job.status == "done" and job.attempts == 2
    assert any("taken over from" in e["msg"] for e in job.log)
    # two units, and the turn kept as said (its episode): written once
    assert count(store) == 3 and sorted(job.memory_ids) == sorted(
        r.id for r in store.page(limit=None) if r.type != "episode")

    again = worker(store_path, "--offline", "--drain")  # nothing left: not done twice
    _out, errs = again.communicate(timeout=WAIT_S)
    assert again.returncode == 0 and "after 0 job(s)" in errs
    assert count(store) == 3 and queue.get(job_id).attempts == 2
    store.close()


def test_two_workers_never_process_the_same_job(store_path: Path) -> None:
    store = MemoryStore.open(store_path)
    reply = units(unit("The user prefers Python.", "preference", 0.8, 0.9))
    reply.delay = 0.05  # a model that takes a moment, so both workers stay busy
    with FakeOllama([reply]) as fake:
        procs = [worker(store_path, "--ollama-host", fake.host, "--no-fallback")
                 for _ in range(2)]
        try:
            for p in procs:  # both are up and polling before the first job exists
                line = p.stderr.readline()
                assert "ready" in line, line + p.stderr.read()
            jobs = [JobQueue(store).enqueue(Turn(f"I prefer Python ({i}).", "bob"))
                    for i in range(24)]
            queue = JobQueue(store)
            wait_for(lambda: queue.counts()["done"] == len(jobs), "every job done")
            for p in procs:
                p.send_signal(signal.SIGTERM)
            results = [p.communicate(timeout=WAIT_S) for p in procs]
        finally:
            for p in procs:
                stop(p)
    assert [p.returncode for p in procs] == [0, 0]
    assert all("worker stopped" in errs for _out, errs in results)
    handled = [{line.split()[0] for line in out.splitlines()} for out, _errs in results]
    assert handled[0] and handled[1], "both workers took jobs"
    assert handled[0].isdisjoint(handled[1]) and handled[0] | handled[1] == set(jobs)
    done = [queue.get(j) for j in jobs]
    assert all(j.status == "done" and j.attempts == 1 and len(j.memory_ids) == 1
               for j in done)
    # each job's unit and its turn's episode, each with its provenance, written once
    assert count(store) == 2 * len(jobs) == count(store, MemoryProvenance)
    store.close()
