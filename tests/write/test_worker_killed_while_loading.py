"""A worker killed while it loads the embedding model holds no job (it loads before it
claims), so a turn is done later, never failed for "a worker stopped … 3 times": only
workers stopped while processing it count towards that limit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdesk.core.embeddings import unavailable_reason
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.jobs import JobQueue

CLI = [sys.executable, "-m", "memdesk.app.main"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})


def job(db: str, job_id: str) -> dict:
    r = cli("jobs", "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    return next(j for j in json.loads(r.stdout) if j["id"] == job_id)


def status(db: str, job_id: str) -> tuple[str, str]:
    """(status, lease owner), read in-process: polling through the CLI is too slow."""
    store = MemoryStore.open(db)
    try:
        j = JobQueue(store).get(job_id)
        return j.status, j.lease_owner or ""
    finally:
        store.close()


def loading_the_model(pid: int) -> bool:
    """Whether the process has begun loading the model (torch's library is mapped)."""
    try:
        return "libtorch" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def killed_while_loading(db: str, job_id: str) -> None:
    """Start a worker (vectors on) and kill it once it is loading the embedding model,
    which takes seconds in a fresh process on the PyTorch runtime (ONNX Runtime loads
    in well under one, and never maps torch's library)."""
    worker = subprocess.Popen([*CLI, "worker", "--db", db, "--offline"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "HF_HUB_OFFLINE": "1",
                                   "MEMDESK_EMBED_RUNTIME": "torch"})
    try:
        deadline = time.monotonic() + 120
        while not loading_the_model(worker.pid):
            assert worker.poll() is None, "the worker exited before loading the model"
            assert time.monotonic() < deadline, "the worker never loaded the model"
            if status(db, job_id)[0] == "failed":
                return
            time.sleep(0.02)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=60)


@pytest.mark.skipif(unavailable_reason() is not None, reason="needs the embedding model")
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps")
def test_jobs_of_workers_killed_while_loading_the_model_are_done_later(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    r = cli("store", "--db", db, "--user", "alice", "--session", "s1",
            "I prefer Python for scripting.")
    assert r.returncode == 0, r.stderr
    job_id = r.stdout.split()[-1]
    for _ in range(4):
        killed_while_loading(db, job_id)
    assert job(db, job_id)["status"] in ("pending", "running")  # never failed
    r = cli("worker", "--db", db, "--offline", "--no-embed", "--drain")
    assert r.returncode == 0, r.stderr
    done = job(db, job_id)
    assert done["status"] == "done", done["log"]
    assert done["memory_ids"]
