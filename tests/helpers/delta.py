"""A stored drift diff whose recommended review is "dampen the search source"
(shared by the delta store, delta edge and undo tests)."""

from __future__ import annotations

from datetime import datetime, timedelta

from memdesk.core.delta.contracts import Action, Candidate
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.store.memory_store import MemoryStore

T0 = datetime(2026, 10, 1, 9)


def flagged_diff(dm: DeltaMemory) -> int:
    """Two snapshots of goal "g" in which the search source gains two hits; the diff id."""
    base = [Candidate("search", f"hit {i}", 1, 1) for i in range(3)] + [
        Candidate("context", "the task", 1, 1)]
    dm.snapshot("g", None, base, created_at=T0, use_database=False)
    saved = dm.snapshot("g", None, base + [Candidate("search", f"new {i}", 1, 1)
                                           for i in range(2)],
                        created_at=T0 + timedelta(hours=1), use_database=False)
    assert saved.diff.decision.action is Action.DAMPEN
    return saved.diff_id


def flagged(store: MemoryStore) -> tuple[DeltaMemory, int]:
    """The store's delta memory and the id of a ``flagged_diff`` stored in it."""
    dm = DeltaMemory(store)
    return dm, flagged_diff(dm)


def weight(dm: DeltaMemory, name: str) -> float:
    """The configured weight of source ``name`` (which must exist)."""
    src = dm.config().source(name)
    assert src is not None
    return src.weight
