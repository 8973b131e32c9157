"""Helpers for the belief tests: a stub extractor the worker runs, an embedder that is
never available (the retriever runs its keyword and graph channels), and one call that
hands a turn to the worker the way an agent's ``store_memory`` does."""

from __future__ import annotations

from memdesk.core.embeddings import EmbeddingsUnavailable
from memdesk.core.guard.origin import AgentOrigin
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.intake import enqueue_from_agent
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Extraction, Turn, Unit
from memdesk.core.write.worker import Outcome, Worker, WorkerConfig


class Said:
    """Answers each turn with the units queued for it (one list per turn, in order)."""

    name, model = "stub", None

    def __init__(self) -> None:
        self.answers: list[list[Unit]] = []

    def extract(self, turn: Turn) -> Extraction:
        return Extraction(self.answers.pop(0) if self.answers else [], "stub")


class NoVectors:
    def encode(self, texts: list[str]):  # type: ignore[no-untyped-def]
        raise EmbeddingsUnavailable("vectors are off in this test")


def agent_turn(store: MemoryStore, units: list[Unit], user: str = "alice",
               text: str = "a turn") -> Outcome:
    """One agent turn through the job queue and the worker; the job's outcome."""
    said = Said()
    said.answers.append(units)
    enqueue_from_agent(store, Turn(text, user), AgentOrigin("test-agent", "s1", "stdio"))
    worker = Worker(store, said, WorkerConfig(embed=False))
    out = worker.process_one()
    assert out is not None
    return out


def job_notes(store: MemoryStore, job_id: str) -> list[str]:
    return [e["msg"] for e in JobQueue(store).get(job_id).log]


def retrieve_texts(store: MemoryStore, query: str, user: str = "alice") -> list[str]:
    r = Retriever(store, ReadConfig(record=False), embedder=NoVectors()).retrieve(query, user)
    return [h.text for h in r.results] + [p.text for p in r.preferences]


def fact(text: str, value: str, attribute: str = "works_at", *, type: str = "fact",
         entity: str = "user", framing: str | None = None,
         confidence: float = 0.85) -> Unit:
    return Unit(text, type, 0.7, confidence, entity, attribute, value, framing)
