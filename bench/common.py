"""Shared benchmark helpers: a cached 1,000,000-row demo store and timing utilities."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from memdesk.core import demo
from memdesk.core.store.memory_store import MemoryStore

CACHE = Path(os.environ.get("MEMDESK_BENCH_CACHE", Path(__file__).parent / ".cache"))
END = datetime(2026, 11, 1)


def million_store(size: int = 1_000_000) -> Path:
    """Path of a demo store with ``size`` rows (built once, then reused)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"demo-{size}.db"
    marker = path.with_suffix(".ok")
    if not marker.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        t = time.perf_counter()
        store = MemoryStore.open(path)
        demo.generate(store, size, seed=7, end=END)
        store.checkpoint()
        store.close()
        marker.write_text(f"built in {time.perf_counter() - t:.1f}s\n")
        print(f"built {path} ({size:,} rows) in {time.perf_counter() - t:.1f}s")
    return path


def timed(fn: Callable[[], object], repeat: int = 20) -> list[float]:
    """Wall-clock milliseconds of ``repeat`` calls."""
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    py = platform.python_version()
    return f"{platform.node()} · {cpu} · {os.cpu_count()} cores · Python {py}"
