"""Recall checks at scale: 1,000 checks over a 100,000-memory store (target: under 30 s
on 2 cores), the batched run's verdicts against one cold retrieval per check, and a
deliberately broken store that makes checks fail.

    .venv/bin/python bench/bench_checks.py [--size 100000] [--checks 1000] [--verify 50]

The store is the demo store the other benchmarks use (bench/common.py: seed 7, built
once and cached) with a real all-MiniLM-L6-v2 vector on every row (bench/read_data.py),
copied so the checks never touch the cache.  Each check is a real memory of its user
with the query made of that memory's first words (what an operator pins from the
inspector): it must be returned in the top 10.  Timed: ``RecallChecks.run()`` from a
cold start of the checks (no user snapshot built, no query encoded; the model loaded
beforehand and timed apart).  Then ``--verify`` checks are run one at a time
(``run_one``) and their verdicts compared with the batched run's; then 10 % of the
expected memories are soft-deleted and the run repeated: exactly those checks must
fail.  Exit 0 when all three hold.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import million_store  # bench/ is the script's folder: on sys.path

from memdesk.core.read.checks import RecallChecks
from memdesk.core.store.memory_store import MemoryStore


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")),
                       cpu)
    except OSError:
        pass
    return f"nproc {os.cpu_count()} · {cpu} · Python {platform.python_version()}"


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def prepared(size: int) -> Path:
    """The cached demo store of ``size`` rows, every row with a real vector."""
    from read_data import ensure_read_tables, fill_embeddings

    path = million_store(size)
    store = MemoryStore.open(path, allow_upgrade=True)
    ensure_read_tables(store)
    n, secs = fill_embeddings(store)
    if n:
        print(f"(embedded {n:,} distinct texts into the cache in {secs:.0f} s)")
    store.checkpoint()
    store.close()
    return path


def pick(store: MemoryStore, n: int, seed: int = 11) -> list[tuple[str, str, str]]:
    """(user, query, memory id) for ``n`` active, recallable memories spread over users."""
    with store.read() as conn:
        rows = conn.exec_driver_sql(
            "SELECT id, user_id, text FROM memories WHERE deleted_at IS NULL AND "
            "superseded_by IS NULL AND valid_until IS NULL AND quarantined_at IS NULL AND "
            "framing IS NULL AND confidence >= 0.4 AND type NOT IN ('episode') "
            "ORDER BY seq").all()
    rng = random.Random(seed)
    chosen = rng.sample(rows, min(n, len(rows)))
    return [(u, " ".join(t.split()[:8]), mid) for mid, u, t in chosen]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=100_000, help="memories in the store")
    ap.add_argument("--checks", type=int, default=1000, help="checks to run")
    ap.add_argument("--verify", type=int, default=50,
                    help="checks also run one at a time and compared with the batched run")
    ap.add_argument("--target", type=float, default=30.0, help="seconds the run must stay under")
    args = ap.parse_args()
    print(f"# bench_checks · {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    print(f"# {machine()}")
    print(f"# {load()}")
    src = prepared(args.size)
    work = Path(tempfile.mkdtemp(prefix="memdesk-bench-checks-")) / "store.db"
    shutil.copyfile(src, work)
    ok = True
    try:
        store = MemoryStore.open(work)
        specs = pick(store, args.checks)
        checks = RecallChecks(store)
        t = time.perf_counter()
        for user, query, mid in specs:
            checks.add(user, query, [mid])
        users = len({u for u, _, _ in specs})
        print(f"added {len(specs):,} checks over {users} users in "
              f"{time.perf_counter() - t:.1f} s (not timed below)")
        t = time.perf_counter()
        checks.retriever().embedder().encode(["warm up"])
        print(f"model loaded in {time.perf_counter() - t:.1f} s (not timed below)")

        run = checks.run()
        met = run.seconds < args.target
        ok &= met
        print(f"run: {len(run.results):,} checks in {run.seconds:.1f} s "
              f"({run.seconds / max(len(run.results), 1) * 1000:.1f} ms each); "
              f"{len(run.results) - len(run.failed):,} passed, {len(run.failed):,} failed; "
              f"target < {args.target:.0f} s: {'met' if met else 'NOT MET'}")
        for note in run.notes:
            print(f"  note: {note}")

        sample = random.Random(5).sample(list(run.results), min(args.verify, len(run.results)))
        t = time.perf_counter()
        same = sum(checks.run_one(r.check).verdict() == r.verdict() for r in sample)
        each = (time.perf_counter() - t) / max(len(sample), 1) * 1000
        ok &= same == len(sample)
        print(f"one at a time: {same} of {len(sample)} verdicts equal to the batched run's "
              f"({each:.1f} ms per check alone)")

        broken = random.Random(9).sample(specs, max(1, len(specs) // 10))
        with store.write() as conn:  # a broken store: what a bad cleanup would leave
            conn.exec_driver_sql(
                "UPDATE memories SET deleted_at = '2026-11-29 00:00:00' WHERE id IN "
                f"({','.join('?' * len(broken))})", tuple(m for _, _, m in broken))
        run2 = checks.run()
        failed = {r.check.expect[0] for r in run2.failed}
        caught = failed >= {m for _, _, m in broken}
        ok &= caught
        print(f"broken store ({len(broken)} expected memories deleted): "
              f"{len(run2.failed):,} checks fail ({len(run2.broke):,} broke since the "
              f"last run), in {run2.seconds:.1f} s; every deleted one caught: {caught}")
        store.close()
    finally:
        shutil.rmtree(work.parent, ignore_errors=True)
    print(f"# {load()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
