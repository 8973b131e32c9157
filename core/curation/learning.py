"""The state of what the desk has learned, in one value for the CLI and the sweep view:
the guided-sweep model in force (training date, decision count) or why there is none."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memdesk.core.curation import guided as G
from memdesk.core.curation.decisions import latest_per_memory, load_decisions
from memdesk.core.store.memory_store import MemoryStore


@dataclass(frozen=True)
class Guidance:
    ready: bool
    trained_at: datetime | None
    decisions_trained: int
    decisions_now: int
    message: str


def guidance(store: MemoryStore) -> Guidance:
    with store.read() as conn:
        model = G.latest(conn)
        ds = latest_per_memory(load_decisions(conn))
    cold = G.cold_start_reason(ds)
    if model is None:
        return Guidance(False, None, 0, len(ds), cold or (
            f"{len(ds)} decisions; no guided model trained yet (memdesk sweep train)."))
    msg = (f"Guided model trained {model.trained_at:%Y-%m-%d %H:%M} on {model.decisions} "
           f"decisions ({model.raised} raised); {len(ds)} decisions now.")
    return Guidance(True, model.trained_at, model.decisions, len(ds), msg)
