"""Reading extraction provenance: which extractor and model produced a memory, from
which job (``memory_provenance``, written by the worker in the insert's transaction)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select

from memdesk.core.write.models import MemoryProvenance

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore

PT = MemoryProvenance.__table__


@dataclass(frozen=True)
class Provenance:
    extractor: str
    model: str | None
    job_id: str | None
    created_at: datetime

    def describe(self) -> str:
        """One line for people: "ollama (llama3.2), job 1a2b…"."""
        who = self.extractor + (f" ({self.model})" if self.model else "")
        return who + (f", job {self.job_id}" if self.job_id else "")


def provenance(store: MemoryStore, memory_id: str) -> Provenance | None:
    """None for memories that were not extracted (operator adds, imports, demo rows)."""
    with store.read() as conn:
        row = conn.execute(select(PT.c.extractor, PT.c.model, PT.c.job_id, PT.c.created_at)
                           .where(PT.c.memory_id == memory_id)).first()
    return Provenance(row.extractor, row.model, row.job_id, row.created_at) if row else None
