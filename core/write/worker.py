"""The job worker: extraction → routing → embedding → insert, one transaction per job.

Used by ``memdesk worker`` (a foreground process) and by the GUI (a thread).  The slow
parts (the LLM call, the embedding model) run outside any transaction; the inserts,
their provenance rows and the job's ``done`` mark are one write transaction that only
commits while this worker still holds the job's lease (see core/write/jobs.py).

A worker claims up to ``WorkerConfig.batch`` jobs at once, extracts each, encodes all
their units in one call (identical texts once), then commits each job on its own: a job
whose extraction, encoding or insert fails is failed alone, and a job is still done
exactly once (the lease check in ``complete_in``).  Stopping hands back the claimed
jobs not yet started.

After a job's inserts, in its transaction, the worker runs the hooks it was given
(``InsertHook``): the layers above the write path bind them (the calibration's
auto-apply, ``memdesk.core.curation.calibration.calibrate_at_write``), as the action
registry binds each stream's undo.  A hook that fails fails the job, which is retried.

Units the router finds session-scoped go to working memory (never stored).  Vectors are
written when the embedding model is available and matches the store's recorded model;
otherwise the memories are stored without one and the job's log says why.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar, cast

from sqlalchemy import Connection, Table, insert

from memdesk.core import embeddings
from memdesk.core.errors import MemdeskError
from memdesk.core.guard import (  # the guard's interface to the write path
    SecretPolicy,
    apply_policy,
    link_new_corrections_in,
    screen_job_in,
    secret_check,
)
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store.memory_store import MemoryStore, validate_fields
from memdesk.core.store.statistics import refresh_statistics
from memdesk.core.taxonomy import HYPOTHETICAL_MAX_CONFIDENCE
from memdesk.core.write import settings
from memdesk.core.write.duplicate_flags import flag_duplicates_in
from memdesk.core.write.embed import (
    EmbeddingSpaceMismatch,
    check_space_in,
    encode_unique,
    space_problem,
)
from memdesk.core.write.episodes import (
    VERBATIM,
    DateResolver,
    episode_values,
    existing_episode_in,
    record_episode_in,
)
from memdesk.core.write.jobs import DEFAULT_LEASE_S, JobQueue, JobRecord, LeaseLost, worker_identity
from memdesk.core.write.models import MemoryProvenance
from memdesk.core.write.router import is_session_scoped, route
from memdesk.core.write.units import Extraction, ExtractionError, Extractor, Turn, Unit
from memdesk.core.write.when import EventDate, episode_dates
from memdesk.core.write.working import WorkingMemory, working_memory

STATISTICS_EVERY = 5_000  # jobs between refreshes of the planner's statistics

log = logging.getLogger(__name__)
# Declarative types __table__ as a FromClause; MemoryProvenance maps a plain Table.
PT = cast(Table, MemoryProvenance.__table__)


@dataclass
class WorkerConfig:
    """``embed``: write vectors (when possible); ``lease_s``: how long a claim holds."""

    embed: bool = True
    lease_s: float = DEFAULT_LEASE_S
    poll_s: float = 1.0
    # Jobs claimed together, their units encoded in one call (one short text per encode
    # call is mostly the model's fixed cost).  Small: claimed jobs wait on the batch's
    # extractions, which are slow with an LLM, while another worker may be idle.
    batch: int = 8


@dataclass
class Outcome:
    job_id: str
    status: str
    memory_ids: list[str] = field(default_factory=list)  # the units extracted
    error: str | None = None
    # The turn's episode: new, or the stored one of an identical turn.
    episode_id: str | None = None


_T = TypeVar("_T")

# (store, the job's write transaction, job id, extractor, the job's new memory ids) ->
# lines for the job's log.  Runs after the inserts, the guard and the provenance rows.
InsertHook = Callable[[Any, Connection, str, str | None, list[str]], list[str]]


@dataclass
class _Prepared:
    """One claimed job between extraction and its write: units to store and vectors."""

    job: JobRecord
    extraction: Extraction
    units: list[Unit]
    notes: list[str]
    blobs: list[bytes | None]
    error: str | None = None  # set when encoding this job's units failed
    # The turn's episode (its ``memories`` row, vector filled by ``_vectors``) and when
    # what it tells of happened.
    episode: dict[str, Any] | None = None
    event: EventDate | None = None
    date_note: str | None = None  # why the turn's time could not be dated
    # The secrets lane: the store's policy, the session's turn before this one, and the
    # turn's text if the worker masked it (the policy changed since it was queued).
    policy: SecretPolicy = field(default_factory=SecretPolicy)
    preceding: str | None = None
    masked_text: str | None = None


class Worker:
    """Processes jobs of one store.  ``process_batch`` is the unit of work (a few jobs
    claimed together, one encode call, one transaction per job); ``run`` loops."""

    def __init__(self, store: MemoryStore, extractor: Extractor,
                 config: WorkerConfig | None = None,
                 working: WorkingMemory | None = None,
                 hooks: Sequence[InsertHook] = (),
                 dates: DateResolver | None = None) -> None:
        self.store = store
        self.dates = dates or episode_dates
        self.hooks = tuple(hooks)
        self.queue = JobQueue(store)
        self.extractor = extractor
        self.config = config or WorkerConfig()
        self.working = working or working_memory()
        self.identity = worker_identity()
        self.stop_event = threading.Event()
        self._vectors_off: str | None = None  # the model cannot load in this process

    # -- one batch of jobs -----------------------------------------------------------
    def process_one(self) -> Outcome | None:
        """Claim and process one job; None when the queue is empty."""
        outcomes = self._process_claimed(self.queue.claim_many(
            self.identity, self.config.lease_s, 1))
        return outcomes[0] if outcomes else None

    def process_batch(self) -> list[Outcome]:
        """Claim up to ``config.batch`` jobs, encode all their units in one call, and
        finish each job in its own transaction; [] when the queue is empty."""
        return self._process_claimed(self.queue.claim_many(
            self.identity, self.config.lease_s, self.config.batch))

    def _process_claimed(self, jobs: list[JobRecord]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        prepared: list[_Prepared] = []
        for i, job in enumerate(jobs):
            if i and self.stop_event.is_set():  # stopping: hand back what we did not start
                for rest in jobs[i:]:
                    self.queue.release(rest.id, self.identity)
                break
            result = self._guard(job, partial(self._prepare, job))
            if isinstance(result, Outcome):
                outcomes.append(result)
            else:
                prepared.append(result)
        self._vectors(prepared)
        for p in prepared:
            outcomes.append(self._guard(p.job, partial(self._write, p)))
        order = {job.id: i for i, job in enumerate(jobs)}
        return sorted(outcomes, key=lambda o: order[o.job_id])

    def _guard(self, job: JobRecord, step: Callable[[], _T]) -> _T | Outcome:
        """Run one job's step; its failure fails that job only, never its batch-mates."""
        try:
            return step()
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

    def _prepare(self, job: JobRecord) -> _Prepared | Outcome:
        """Extract and route one job's turn (no transaction is open)."""
        turn = job.turn
        with self.store.read() as conn:
            policy = settings.secret_policy_in(conn)
            preceding = self.queue.preceding_text_in(conn, turn, before=job.created_at)
        # The queue keeps a turn masked already; a policy that masks more since it was
        # queued is applied before anything reads it (extraction, vectors, the episode).
        screened = apply_policy(turn.text, policy, preceding)
        masked_text = screened.text if screened.text != turn.text else None
        if masked_text is not None:
            turn = dataclasses.replace(turn, text=masked_text)
        try:
            extraction = self.extractor.extract(without_speaker_label(turn))
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
        event, date_note = self.dates(turn.text, turn.said_at)
        if date_note:
            notes.append(date_note)
        if turn.said_at is not None and turn.said_at > utcnow():
            notes.append(f"the session time {turn.said_at:%Y-%m-%d %H:%M} is in the future; "
                         "kept as given")
        return _Prepared(job, extraction, stored, notes, [None] * len(stored),
                         episode=episode_values(turn), event=event, date_note=date_note,
                         policy=policy, preceding=preceding, masked_text=masked_text)

    def _write(self, p: _Prepared) -> Outcome:
        """One job's inserts, provenance and ``done`` mark: one transaction."""
        if p.error is not None:
            raise MemdeskError(p.error)
        job, extraction, notes = p.job, p.extraction, p.notes
        turn = job.turn
        if p.masked_text is not None:
            turn = dataclasses.replace(turn, text=p.masked_text)
        secrets = secret_check(p.policy, turn.text, p.preceding)
        capped = sum(1 for u in p.units
                     if u.framing and u.confidence > HYPOTHETICAL_MAX_CONFIDENCE)
        if capped:
            notes.append(f"{capped} hypothetical unit(s) stored at confidence "
                         f"{HYPOTHETICAL_MAX_CONFIDENCE} (a supposition is no belief)")
        rows = [
            validate_fields({
                "user_id": turn.user_id, "text": u.text, "type": u.type,
                "topic": turn.topic, "source_session": turn.session_id,
                **({"agent_id": turn.agent_id} if turn.agent_id else {}),
                **({"run_id": turn.run_id} if turn.run_id else {}),
                "importance": u.importance,
                "confidence": (min(u.confidence, HYPOTHETICAL_MAX_CONFIDENCE) if u.framing
                               else u.confidence),
                "entity": u.entity, "attribute": u.attribute, "value": u.value,
                "layer": route(u.type).value, "embedding": blob, "framing": u.framing,
            }, creating=True)
            for u, blob in zip(p.units, p.blobs, strict=True)
        ]
        blobs = p.blobs
        episode = p.episode

        def write() -> None:
            now = utcnow()
            with self.store.write() as conn:
                if any(b is not None for b in blobs) or (
                        episode is not None and episode.get("embedding") is not None):
                    check_space_in(conn)
                # The turn as said, first: an identical turn is stored once (an agent's
                # retry), and its units link to the one episode.
                episode_id = None
                new_episode: list[dict[str, Any]] = []
                if episode is not None:
                    episode_id = existing_episode_in(conn, turn)
                    if episode_id is None:
                        episode_id = episode["id"]
                        self.store.add_in(conn, episode, actor="worker", note=f"job {job.id}")
                        record_episode_in(conn, episode_id, turn, job.id, p.event,
                                          p.date_note)
                        new_episode = [episode]
                for values in rows:
                    self.store.add_in(conn, values, actor="worker", note=f"job {job.id}")
                # The poisoning guard holds what reads as an instruction, in this same
                # transaction, so no reader ever sees it active (core/guard/screen.py).
                # A supposition contradicts nothing: screened without its value, so the
                # curated-contradiction rule leaves it be (the text rules still apply).
                # The episode is screened too: a held turn is no episode until approved.
                # The secrets lane's holds join the same quarantine (secret_check).
                held = screen_job_in(
                    self.store, conn, dataclasses.replace(job, text=turn.text),
                    new_episode + [{**r, "value": None} if r.get("framing") else r
                                   for r in rows], more=secrets)
                if p.masked_text is not None:
                    self.queue.mask_text_in(conn, job.id, p.masked_text)
                    done_notes_pre = ["secrets masked in the turn (the store's policy)"]
                else:
                    done_notes_pre = []
                kept_secrets = sorted({f.rule_id for fs in held.values() for f in fs
                                       if f.rule_id.startswith("secret.")})
                flag_duplicates_in(conn, rows)  # restates an active memory: queue it
                # A correction takes effect in the same transaction: the agent's next
                # retrieve sees the new value, not the old one beside it.  What it may
                # supersede, and what is held instead, is core/guard/curated.py's.
                plan = link_new_corrections_in(self.store, conn, [r["id"] for r in rows],
                                               actor="worker", note=f"job {job.id}",
                                               group_id=new_id())
                linked = [x for x in plan.links if x.new_id not in plan.holds]
                done_notes = list(notes) + done_notes_pre
                if kept_secrets:
                    done_notes.append("held for review, it holds a secret: "
                                      + ", ".join(kept_secrets))
                if linked:
                    done_notes.append(f"the correction superseded {len(linked)} memor"
                                      f"{'y' if len(linked) == 1 else 'ies'}")
                if plan.holds:
                    done_notes.append(f"{len(plan.holds)} correction(s) held for review "
                                      "instead of superseding: " + ", ".join(
                                          f.rule_id for fs in plan.holds.values() for f in fs))
                if new_episode:  # which job (and so which agent) the turn came from
                    conn.execute(insert(PT), [{
                        "memory_id": episode_id, "extractor": VERBATIM, "model": None,
                        "job_id": job.id, "created_at": now, "episode_id": None}])
                if rows:
                    conn.execute(insert(PT), [
                        {"memory_id": r["id"], "extractor": extraction.extractor,
                         "model": extraction.model, "job_id": job.id, "created_at": now,
                         "episode_id": episode_id}
                        for r in rows])
                    for hook in self.hooks:
                        done_notes += hook(self.store, conn, job.id, extraction.extractor,
                                           [r["id"] for r in rows])
                if episode is not None and not new_episode:
                    done_notes.append(f"the same turn is stored already: episode {episode_id}")
                self.queue.complete_in(conn, job.id, self.identity, [r["id"] for r in rows],
                                       extraction.extractor, extraction.model, done_notes)
                kept_episode[:] = [episode_id]

        kept_episode: list[str | None] = [None]
        try:
            write()
        except EmbeddingSpaceMismatch as exc:  # the space changed since we looked
            notes.append(f"stored without vectors: {exc}")
            for r in rows:
                r["embedding"] = None
            if episode is not None:
                episode["embedding"] = None
            blobs = [None] * len(rows)
            write()
        return Outcome(job.id, "done", [r["id"] for r in rows], episode_id=kept_episode[0])

    def load_model(self) -> None:
        """Load the embedding model now, before the first claim (``memdesk worker`` does
        this; the GUI's worker does not, so the window opens without torch).  Loading
        takes seconds, tens on a busy machine, in a fresh process; a worker killed
        meanwhile then holds no job, where otherwise it counts a stopped attempt against
        every job it claimed and, killed three times, fails healthy jobs for good."""
        if not self.config.embed or self._vectors_off:
            return
        embedder = embeddings.default_embedder()
        if not isinstance(embedder, embeddings.Embedder) or embedder.loaded:
            return  # a stand-in without a model to load, or loaded already
        try:
            embedder.load()
        except embeddings.EmbeddingsUnavailable as exc:
            self._vectors_off = str(exc)

    def _vectors(self, prepared: list[_Prepared]) -> None:
        """Fill every prepared job's ``blobs``: one encode call for the whole batch."""
        wanted = [p for p in prepared if p.units or p.episode is not None]
        if not wanted or not self.config.embed:
            return
        # The package's absence is fixed for the process; the store's recorded model can
        # change under a running worker (`memdesk embed --reembed`), so check it per batch.
        problem = self._vectors_off or space_problem(self.store)
        if problem:
            for p in wanted:
                p.notes.append(f"stored without vectors: {problem}")
            return
        embedder = embeddings.default_embedder()
        try:
            found = encode_unique(embedder, [t for p in wanted for t in _texts(p)])
        except embeddings.EmbeddingsUnavailable as exc:
            self._vectors_off = str(exc)
            for p in wanted:
                p.notes.append(f"stored without vectors: {exc}")
            return
        except Exception:  # one job's text broke the encoder: find it, spare the others
            log.exception("batch encode failed; encoding job by job")
            for p in wanted:
                try:
                    one = encode_unique(embedder, _texts(p))
                except Exception as exc:
                    p.error = f"unexpected error: {type(exc).__name__}: {exc}"
                    continue
                _fill(p, one)
            return
        for p in wanted:
            _fill(p, found)

    # -- the loop -----------------------------------------------------------------
    def run(self, *, drain: bool = False,
            on_outcome: Callable[[Outcome], None] | None = None) -> int:
        """Process jobs until ``stop()`` (or, with ``drain``, until the queue is empty).
        Returns the number of jobs processed."""
        n = 0
        unanalysed = 0  # jobs stored since the planner's statistics were last refreshed
        while not self.stop_event.is_set():
            try:
                outcomes = self.process_batch()
            except MemdeskError as exc:  # the store is locked or gone: wait and try again
                log.warning("worker: %s", exc)
                outcomes = []
                if drain:
                    raise
            if not outcomes:
                if unanalysed:  # going idle after growing the store (core/store/statistics.py)
                    refresh_statistics(self.store)
                    unanalysed = 0
                if drain:
                    break
                self.stop_event.wait(self.config.poll_s)
                continue
            n += len(outcomes)
            unanalysed += len(outcomes)
            if unanalysed >= STATISTICS_EVERY:  # a long backlog: do not wait for idle
                refresh_statistics(self.store)
                unanalysed = 0
            if on_outcome is not None:
                for outcome in outcomes:
                    on_outcome(outcome)
        return n

    def stop(self) -> None:
        self.stop_event.set()


def _texts(p: _Prepared) -> list[str]:
    """What one job needs encoded: its units and its turn."""
    return [u.text for u in p.units] + ([p.episode["text"]] if p.episode is not None else [])


def _fill(p: _Prepared, found: dict[str, bytes]) -> None:
    p.blobs = [found[u.text] for u in p.units]
    if p.episode is not None:
        p.episode["embedding"] = found[p.episode["text"]]



def without_speaker_label(turn: Turn) -> Turn:
    """The turn as the extractor should read it: a transcript line "Caroline: I went…"
    whose label is the turn's speaker is read without the label (the episode keeps the
    line as said)."""
    label = f"{turn.speaker}:" if turn.speaker else None
    if label is None or not turn.text.startswith(label) or not turn.text[len(label):].strip():
        return turn
    return dataclasses.replace(turn, text=turn.text[len(label):].strip())
