"""Delta-memory benchmark: diff of two 10,000-candidate sets (target < 50 ms) and a
render of the source-dominance plot for 10,000 snapshots (target < 200 ms, offscreen).

Run: .venv/bin/python bench/bench_delta.py
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, pct, timed

from memdesk.core.delta.compose import build_memory_set
from memdesk.core.delta.contracts import DEFAULT_SOURCES, Candidate, DeltaConfig
from memdesk.core.delta.diff import diff
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.store.memory_store import MemoryStore

N = 10_000
SOURCES = [s.name for s in DEFAULT_SOURCES]


def candidate_sets(n: int) -> tuple[list[Candidate], list[Candidate]]:
    rng = random.Random(5)
    before = [Candidate(SOURCES[i % 4], f"memory {i}", rng.random(), rng.random(),
                        candidate_id=f"m{i}") for i in range(n)]
    after = []
    for c in before:
        r = rng.random()
        if r < 0.1:
            continue  # removed
        if r < 0.4:
            c = Candidate(c.source, c.text, c.confidence, rng.random(), candidate_id=c.candidate_id)
        after.append(c)
    after += [Candidate("search", f"new {i}", rng.random(), rng.random(), candidate_id=f"n{i}")
              for i in range(n - len(after))]
    return before, after


def bench_diff() -> dict[str, float]:
    # top_k = 0: no per-source cap, so all 10,000 candidates stay in each set.
    cfg = DeltaConfig(tuple(replace(s, top_k=0) for s in DEFAULT_SOURCES))
    b, a = candidate_sets(N)
    before = build_memory_set("bench", None, b, cfg)
    after = build_memory_set("bench", None, a, cfg)
    assert len(before.contributions) == N and len(after.contributions) == N
    compose = timed(lambda: build_memory_set("bench", None, a, cfg), repeat=10)
    times = timed(lambda: diff(before, after), repeat=30)
    d = diff(before, after)
    print(f"diff 10,000 vs 10,000 candidates: median {pct(times, 50):.1f} ms, "
          f"p95 {pct(times, 95):.1f} ms ({len(d.candidate_deltas):,} deltas, "
          f"{d.health.status.value}, risk {d.health.risk_score:.3f})")
    print(f"compose 10,000 candidates:        median {pct(compose, 50):.1f} ms")
    return {"diff_p50": pct(times, 50), "diff_p95": pct(times, 95)}


def synthetic_store(path: Path, n: int) -> None:
    """A store holding one goal with ``n`` snapshots (5 candidates each) and their diffs."""
    store = MemoryStore.open(path)
    dm = DeltaMemory(store)
    cfg = dm.config()
    rng = random.Random(9)
    t0 = datetime(2025, 1, 1)
    sets = []
    for i in range(n):
        cands = [Candidate(SOURCES[k % 4], f"fact {k}", 0.9, min(1.0, 0.2 + rng.random()))
                 for k in range(5)]
        sets.append(build_memory_set("ten thousand", None, cands, cfg,
                                     created_at=t0 + timedelta(hours=i)))
    dm.save_series(sets, cfg.dominance_threshold)
    store.close()


def bench_plot() -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])  # noqa: F841 (must exist)
    from memdesk.ui.delta.plot import SnapshotPlot

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        t = time.perf_counter()
        synthetic_store(path, N)
        build_s = time.perf_counter() - t
        store = MemoryStore.open(path)
        dm = DeltaMemory(store)
        load = timed(lambda: dm.series("ten thousand"), repeat=5)
        series = dm.series("ten thousand")
        plot = SnapshotPlot()
        plot.resize(1200, 600)
        plot.show()

        def render() -> None:
            plot.set_series(series, 0.6)
            plot.grab()

        render()  # first paint builds pyqtgraph caches
        times = timed(render, repeat=10)
        first = plot.grab()
        assert first.width() > 0
        plot.close()
        store.close()
    print(f"store 10,000 snapshots + diffs:   {build_s * 1000:.0f} ms (one transaction)")
    print(f"load series of 10,000 snapshots:  median {pct(load, 50):.1f} ms")
    print(f"plot 10,000 snapshots (set_series + offscreen render): median "
          f"{pct(times, 50):.1f} ms, p95 {pct(times, 95):.1f} ms")
    return {"plot_p50": pct(times, 50), "plot_p95": pct(times, 95), "load_p50": pct(load, 50)}


def main() -> int:
    print(f"machine: {machine()}")
    d = bench_diff()
    p = bench_plot()
    ok = d["diff_p95"] < 50 and p["plot_p95"] < 200
    print(f"targets: diff < 50 ms, plot < 200 ms -> {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
