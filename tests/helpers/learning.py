"""Shared helpers for the tests of what the desk learns from sweeps: a small demo store
with planted ground truth, and a simulated operator who decides by the true importance."""

from __future__ import annotations

import shutil
from pathlib import Path

from memdesk.core import demo
from memdesk.core.curation.service import Sweeps
from memdesk.core.demo import truth as demo_truth
from memdesk.core.store.memory_store import MemoryStore

BAND = (0.3, 0.49)
_TEMPLATES: dict[Path, demo_truth.Truth] = {}


def planted_template(dirpath: Path, size: int = 3000) -> tuple[Path, demo_truth.Truth]:
    path = dirpath / "planted.db"
    if path not in _TEMPLATES:
        s = MemoryStore.open(path)
        demo.generate(s, size, seed=3)
        _TEMPLATES[path] = demo_truth.plant(s, seed=5)
        s.close()
    return path, _TEMPLATES[path]


def copy_store(template: Path, dest: Path) -> MemoryStore:
    shutil.copy(template, dest)
    return MemoryStore.open(dest)


def review(sweeps: Sweeps, truth: demo_truth.Truth, sweep_id: str) -> None:
    """Decide every undecided item of a sweep as the simulated operator would."""
    for it in sweeps.get(sweep_id).items:
        if not it.decided:
            decision, imp = demo_truth.operator_decision(truth, it.memory_id,
                                                         it.importance_before)
            sweeps.decide(sweep_id, it.pos, decision, importance=imp)


def sweep_and_review(sweeps: Sweeps, truth: demo_truth.Truth, n: int, *,
                     guided: float = 0.0, seed: int | None = None) -> str:
    st = sweeps.start(BAND, n, guided=guided, seed=seed)
    review(sweeps, truth, st.id)
    return st.id
