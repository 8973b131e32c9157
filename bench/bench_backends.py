"""SQLite file vs PostgreSQL on the same demo data (docs/scaling.md).

    .venv/bin/python bench/bench_backends.py --size 100000
    .venv/bin/python bench/bench_backends.py --size 100000 --pg-url postgresql+psycopg://…
    .venv/bin/python bench/bench_backends.py --concurrency --size 1000000 [--pg-url …]

``--concurrency`` (bench/scaling.py): writer processes (agents adding memories) and a
reader process (retrieve) at the same time, on stores with a real vector on every row.

Without ``--pg-url`` a throwaway PostgreSQL server is started from the Debian binaries
(tests/helpers/pg.py, with fsync and synchronous commit on) and stopped at the end.  Per
backend: demo load time, audited single-row writes per second (one transaction each,
as ``memdesk add`` does), and median / p95 of the browser's first page (sorted by
created_at), a text-filter page, an as-you-type prefix page and a filtered count.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import END

from memdesk.core import demo
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter


def _ms(fn, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    out.sort()
    return statistics.median(out), out[min(len(out) - 1, int(len(out) * 0.95))]


def run(label: str, db: str, size: int, writes: int, repeat: int) -> None:
    store = MemoryStore.open(db)
    t = time.perf_counter()
    demo.generate(store, size, seed=7, end=END)
    load = time.perf_counter() - t
    print(f"[{label}] demo load {size:,} rows: {load:.1f} s")
    if store.dialect == "postgresql":
        with store.write() as conn:
            conn.exec_driver_sql("ANALYZE")
    t = time.perf_counter()
    for i in range(writes):
        store.add(user_id="bench", text=f"benchmark write {i} prefers tea", type="note")
    rate = writes / (time.perf_counter() - t)
    print(f"[{label}] audited single-row writes: {rate:.0f}/s ({writes} writes)")
    cases = {
        "first page, created_at desc": lambda: store.page(limit=100),
        "text 'python' page": lambda: store.page(MemoryFilter(text="python"), limit=100),
        "as-you-type 'pyt' page": lambda: store.page(MemoryFilter(text="pyt"), limit=100),
        "count importance 0.3-0.49": lambda: store.count(MemoryFilter(importance=(0.3, 0.49))),
        "count text 'python'": lambda: store.count(MemoryFilter(text="python")),
    }
    for name, fn in cases.items():
        fn()  # warm
        med, p95 = _ms(fn, repeat)
        print(f"[{label}] {name}: median {med:.1f} ms, p95 {p95:.1f} ms")
    store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--writes", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--pg-url")
    ap.add_argument("--only", choices=("sqlite", "postgresql"))
    ap.add_argument("--concurrency", action="store_true",
                    help="writers x readers scaling run (bench/scaling.py)")
    ap.add_argument("--writers", default="1,4,8")
    ap.add_argument("--seconds", type=float, default=15.0, help="per concurrency phase")
    args = ap.parse_args()
    if args.concurrency:
        from scaling import main as scaling_main

        scaling_main(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        if args.only != "postgresql":
            run("sqlite", str(Path(tmp) / "bench.db"), args.size, args.writes, args.repeat)
    if args.only == "sqlite":
        return
    if args.pg_url:
        run("postgresql", args.pg_url, args.size, args.writes, args.repeat)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo, for tests.pg
    from tests.helpers.pg import start_server

    server = start_server(durable=True)  # fsync and synchronous commit on, as deployed
    try:
        run("postgresql", server.new_database(prefix="bench"), args.size, args.writes,
            args.repeat)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
