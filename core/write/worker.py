"""The job worker: extraction → routing → embedding → insert, one transaction per job.

Used by ``memdesk worker`` (a foreground process) and by the GUI (a thread).  The slow
parts (the LLM call, the embedding model) run outside any transaction; the inserts,
their provenance rows and the job's ``done`` mark are one write transaction that only
commits while this worker still holds the job's lease (see core/write/jobs.py).

Units the router finds session-scoped go to working memory (never stored).  Vectors are
written when the embedding model is available and matches the store's recorded model;
otherwise the memories are stored without one and the job's log says why.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import insert

from memdesk.core import embeddings
from memdesk.core.errors import MemdeskError
from memdesk.core.guard.screen import screen_job_in
from memdesk.core.ids import utcnow
from memdesk.core.store.memory_store import validate_fields
from memdesk.core.write.embed import EmbeddingSpaceMismatch, check_space_in, space_problem
from memdesk.core.write.jobs import DEFAULT_LEASE_S, JobQueue, JobRecord, LeaseLost, worker_identity
from memdesk.core.write.models import MemoryProvenance
from memdesk.core.write.router import is_session_scoped, route
from memdesk.core.write.units import ExtractionError, Extractor, Unit
from memdesk.core.write.working import WorkingMemory, working_memory

log = logging.getLogger(__name__)
PT = MemoryProvenance.__table__


@dataclass
class WorkerConfig:
    """``embed``: write vectors (when possible); ``lease_s``: how long a claim holds."""

    embed: bool = True
    lease_s: float = DEFAULT_LEASE_S
    poll_s: float = 1.0


@dataclass
class Outcome:
    job_id: str
    status: str
    memory_ids: list[str] = field(default_factory=list)
    error: str | None = None


class Worker:
    """Processes jobs of one store.  ``process_one`` is the unit of work; ``run`` loops."""

    def __init__(self, store, extractor: Extractor,  # type: ignore[no-untyped-def]
                 config: WorkerConfig | None = None,
                 working: WorkingMemory | None = None) -> None:
        self.store = store
        self.queue = JobQueue(store)
        self.extractor = extractor
        self.config = config or WorkerConfig()
        self.working = working or working_memory()
        self.identity = worker_identity()
        self.stop_event = threading.Event()
        self._vectors_off: str | None = None  # the model cannot load in this process

    # -- one job ------------------------------------------------------------------
    def process_one(self) -> Outcome | None:
        """Claim and process one job; None when the queue is empty."""
        job = self.queue.claim(self.identity, self.config.lease_s)
        if job is None:
            return None
        try:
            return self._process(job)
        except LeaseLost:
            log.warning("job %s was taken over by another worker; dropped our result", job.id)
            return Outcome(job.id, "lost")
        except MemdeskError as exc:
            self.queue.fail(job.id, self.identity, str(exc))
            return Outcome(job.id, "failed", error=str(exc))
        except Exception as exc:  # a bug must fail the job, not kill the worker
            log.exception("job %s failed unexpectedly", job.id)
            error = f"unexpected error: {type(exc).__name__}: {exc}"
            self.queue.fail(job.id, self.identity, error)
            return Outcome(job.id, "failed", error=error)

    def _process(self, job: JobRecord) -> Outcome:
        turn = job.turn
        try:
            extraction = self.extractor.extract(turn)
        except ExtractionError as exc:
            self.queue.fail(job.id, self.identity, str(exc))
            return Outcome(job.id, "failed", error=str(exc))
        notes = list(extraction.notes)
        stored: list[Unit] = []
        for unit in extraction.units:
            if is_session_scoped(unit.text):
                self.working.add(turn.user_id, turn.session_id, unit)
            else:
                stored.append(unit)
        kept = len(extraction.units) - len(stored)
        if kept:
            notes.append(f"{kept} session-scoped unit(s) kept in working memory, not stored")
        blobs = self._vectors(stored, notes)
        rows = [
            validate_fields({
                "user_id": turn.user_id, "text": u.text, "type": u.type,
                "topic": turn.topic, "source_session": turn.session_id,
                "importance": u.importance, "confidence": u.confidence,
                "entity": u.entity, "attribute": u.attribute, "value": u.value,
                "layer": route(u.type).value, "embedding": blob,
            }, creating=True)
            for u, blob in zip(stored, blobs, strict=True)
        ]

        def write() -> None:
            now = utcnow()
            with self.store.write() as conn:
                if any(b is not None for b in blobs):
                    check_space_in(conn)
                for values in rows:
                    self.store.add_in(conn, values, actor="worker", note=f"job {job.id}")
                # The poisoning guard holds what reads as an instruction, in this same
                # transaction, so no reader ever sees it active (core/guard/screen.py).
                screen_job_in(self.store, conn, job, rows)
                if rows:
                    conn.execute(insert(PT), [
                        {"memory_id": r["id"], "extractor": extraction.extractor,
                         "model": extraction.model, "job_id": job.id, "created_at": now}
                        for r in rows])
                self.queue.complete_in(conn, job.id, self.identity, [r["id"] for r in rows],
                                       extraction.extractor, extraction.model, notes)

        try:
            write()
        except EmbeddingSpaceMismatch as exc:  # the space changed since we looked
            notes.append(f"stored without vectors: {exc}")
            for r in rows:
                r["embedding"] = None
            blobs = [None] * len(rows)
            write()
        return Outcome(job.id, "done", [r["id"] for r in rows])

    def _vectors(self, units: list[Unit], notes: list[str]) -> list[bytes | None]:
        if not units or not self.config.embed:
            return [None] * len(units)
        # The package's absence is fixed for the process; the store's recorded model can
        # change under a running worker (`memdesk embed --reembed`), so check it per job.
        problem = self._vectors_off or space_problem(self.store)
        if problem:
            notes.append(f"stored without vectors: {problem}")
            return [None] * len(units)
        try:
            vecs = embeddings.default_embedder().encode([u.text for u in units])
        except embeddings.EmbeddingsUnavailable as exc:
            self._vectors_off = str(exc)
            notes.append(f"stored without vectors: {exc}")
            return [None] * len(units)
        return [embeddings.to_blob(v) for v in vecs]

    # -- the loop -----------------------------------------------------------------
    def run(self, *, drain: bool = False,
            on_outcome: Callable[[Outcome], None] | None = None) -> int:
        """Process jobs until ``stop()`` (or, with ``drain``, until the queue is empty).
        Returns the number of jobs processed."""
        n = 0
        while not self.stop_event.is_set():
            try:
                outcome = self.process_one()
            except MemdeskError as exc:  # the store is locked or gone: wait and try again
                log.warning("worker: %s", exc)
                outcome = None
                if drain:
                    raise
            if outcome is None:
                if drain:
                    break
                self.stop_event.wait(self.config.poll_s)
                continue
            n += 1
            if on_outcome is not None:
                on_outcome(outcome)
        return n

    def stop(self) -> None:
        self.stop_event.set()
