"""Episodes made the way agents make them: a turn through the job queue and the worker
(offline extractor), so the desk's episode views see real rows and real links."""

from __future__ import annotations

from datetime import datetime

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Outcome, Worker, WorkerConfig

SAID_AT = datetime(2023, 5, 8, 13, 56)  # a Monday: "last Saturday" is 2023-05-06


def say(store: MemoryStore, text: str, *, user: str = "mel", session: str = "s1",
        speaker: str | None = "Melanie", said_at: datetime | None = SAID_AT) -> Outcome:
    """Store one turn as an agent would; the worker's outcome (episode and unit ids)."""
    JobQueue(store).enqueue(Turn(text, user, session, speaker=speaker, said_at=said_at))
    out = Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).process_one()
    assert out is not None and out.status == "done", out
    return out
