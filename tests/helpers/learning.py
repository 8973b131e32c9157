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
# Reflective notes an operator adds by hand (no extractor: source "direct"), worded the
# way the sweep's contemplative hints look for.  The demo's own reflective notes mostly
# come from its conversations (source "heuristic"), so a calibration learns to raise
# direct memories only where a store holds enough of these.
_REFLECTIONS = (
    "Chose not to push the {0} deadline on {1}; sat with the trade-off for a day first.",
    "Sat with {1}'s feedback on the {0} design before answering it.",
    "Practiced letting {1} lead the {0} review instead of correcting every comment.",
    "Honestly, the {0} rewrite was not needed; {1} was right to stop it.",
    "For the first time told {1} early that the {0} estimate was wrong.",
)
_SUBJECTS = ("billing", "search", "onboarding", "export", "sync", "audit", "pricing",
             "mobile", "reporting", "alerts", "scheduler", "importer")
_PEOPLE = ("Ana", "Bo", "Chidi", "Dana", "Emre", "Fei", "Goran", "Hana")


def add_reflective_direct(store: MemoryStore, n: int) -> None:
    """``n`` direct reflective notes in the low band, some read often."""
    reads: dict[str, int] = {}
    for i in range(n):
        text = _REFLECTIONS[i % len(_REFLECTIONS)].format(
            _SUBJECTS[(i // len(_REFLECTIONS)) % len(_SUBJECTS)], _PEOPLE[i % len(_PEOPLE)])
        rec = store.add(actor="operator", user_id=f"u{i % 5}", text=f"{text} (#{i})",
                        type="note", importance=round(BAND[0] + (i % 19) * 0.01, 2))
        reads[rec.id] = i % 13
    for k in range(12):
        store.record_access([m for m, r in reads.items() if r > k])


def planted_template(dirpath: Path, size: int = 3000, *,
                     reflective_direct: int = 0) -> tuple[Path, demo_truth.Truth]:
    """A demo store of ``size`` with planted truth; ``reflective_direct`` more direct
    reflective notes (``add_reflective_direct``) before the truth is planted."""
    path = dirpath / "planted.db"
    if path not in _TEMPLATES:
        s = MemoryStore.open(path)
        demo.generate(s, size, seed=3)
        add_reflective_direct(s, reflective_direct)
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
