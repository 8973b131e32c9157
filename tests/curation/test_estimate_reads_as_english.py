"""The band estimate's line reads as English: the number of memories sits beside the
share it counts ("would be raised (≈ 569 memories)", not before "… lowered"), and one
decision, sweep or guided pick is singular."""

from __future__ import annotations

from memdesk.core.curation.service import Sweeps
from memdesk.core.store.memory_store import MemoryStore


def test_the_estimate_line_reads_as_english(demo_store: MemoryStore) -> None:
    sweeps = Sweeps(demo_store)
    state = sweeps.start(band=(0.3, 0.49), n=1, seed=4)
    sweeps.decide(state.id, 0, "revalue", importance=0.8)
    line = sweeps.estimate().headline()
    assert "of the 0.30–0.49 band would be raised (≈ " in line
    assert " memories), and " in line
    assert line.endswith(") lowered — from 1 uniform decision in 1 sweep")
