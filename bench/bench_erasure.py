"""The cost of a proven erasure (docs/guarantees.md) on a demo store.

    .venv/bin/python bench/bench_erasure.py --size 20000 --purges 3

Writes a demo store of ``--size`` memories to a temporary folder, then purges
``--purges`` memories one after another (each: the erasure transaction with its FTS
merge, the scrub of the file, the proof over every channel, the receipt) and prints,
per purge, the seconds of each phase, whether the file needed a VACUUM, and the file
size.  The machine, its load and the date go with the figures (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import itertools
import os
import tempfile
import time
from pathlib import Path

from memdesk.core import demo
from memdesk.core.erasure.service import Erasure
from memdesk.core.store.memory_store import MemoryStore


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=20_000)
    ap.add_argument("--purges", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        store = MemoryStore.open(path)
        t0 = time.perf_counter()
        demo.generate(store, args.size, seed=7)
        print(f"demo store: {args.size:,} memories in {time.perf_counter() - t0:.1f} s, "
              f"{path.stat().st_size / 1e6:.1f} MB")
        ids = [r.id for r in store.page(limit=args.purges * 7)][:: 7][: args.purges]
        for mid in ids:
            marks: list[tuple[str, float]] = [("start", time.perf_counter())]
            erased = Erasure(store).purge(
                mid, progress=lambda step, m=marks: m.append((step, time.perf_counter())))
            marks.append(("done", time.perf_counter()))
            phases = ", ".join(f"{a[0]} {b[1] - a[1]:.2f} s"
                               for a, b in itertools.pairwise(marks))
            scrub = erased.receipt["scrub"]
            print(f"purge of {len(erased.receipt['erased'])} memor"
                  f"{'y' if len(erased.receipt['erased']) == 1 else 'ies'}: "
                  f"{marks[-1][1] - marks[0][1]:.2f} s ({phases}); vacuum: "
                  f"{scrub['vacuumed']}; verdict {erased.verdict}; searches "
                  f"{erased.receipt['proof']['searches']}; file "
                  f"{path.stat().st_size / 1e6:.1f} MB")
            for c in erased.receipt["proof"]["copies_found"]:
                print(f"  copy left in {c['where']} ({c['channel']}: {c['hits']})")
        store.close()
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
