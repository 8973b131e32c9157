"""Benchmark for curation on the 1,000,000-row demo store.

Run: ``.venv/bin/python bench/bench_curation.py``.  Prints, for the revaluation sweep,
the time to sample N memories from the 0.30–0.49 band (targets: < 50 ms), with and
without user/type filters, and the time of a full contradiction scan (target < 2 s).
"""

from __future__ import annotations

import random
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, million_store, pct, timed
from sqlalchemy import inspect

from memdesk.core.curation import sampling
from memdesk.core.curation.service import Contradictions, Sweeps
from memdesk.core.store.memory_store import MemoryStore


def ensure_curation_schema(store: MemoryStore) -> None:
    """The shared cache may predate migration 0003's content (it was reserved empty
    when the cache was built at the head revision): add the curation tables and
    indexes once, in place.  Only for this development cache; real stores migrate."""
    with store.read() as conn:
        has_tables = "sweeps" in inspect(conn).get_table_names()
        cols = [i for i in inspect(conn).get_indexes("memories")
                if i["name"] == "ix_memories_active_triple"]
        if has_tables and cols and "deleted_at" in cols[0]["column_names"]:
            return
    from alembic.operations import Operations
    from alembic.runtime.migration import MigrationContext

    from memdesk.core.store.migrations.versions import m0003_issue4

    t = time.perf_counter()
    with store.write() as conn:
        # Built from an earlier draft of 0003: start from the base schema again.
        for table in ("sweep_items", "sweeps", "contradiction_dismissals"):
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS {table}")
        for index in ("ix_memories_active_triple", "ix_memories_session_created"):
            conn.exec_driver_sql(f"DROP INDEX IF EXISTS {index}")
        with Operations.context(MigrationContext.configure(conn)):
            m0003_issue4.upgrade()
        conn.exec_driver_sql("ANALYZE")
    print(f"added curation tables/indexes to the cached store in {time.perf_counter() - t:.1f}s")


def line(label: str, ms: list[float], extra: str = "") -> None:
    print(f"{label:<42} median {pct(ms, 50):7.1f} ms  p95 {pct(ms, 95):7.1f} ms  {extra}")


def main() -> int:
    path = million_store()
    store = MemoryStore.open(path)
    ensure_curation_schema(store)
    total = store.counts()["total"]
    print(f"memdesk curation benchmark · {date.today()} · {machine()}")
    print(f"store: {path} ({total:,} rows)\n")

    rng = random.Random(1)
    users = store.distinct("user_id", limit=10)
    cases = [
        ("sweep sample n=20, band 0.30–0.49", dict()),
        ("sweep sample n=100, band 0.30–0.49", dict(n=100)),
        ("sweep sample n=20, type=correction", dict(type_="correction")),
        (f"sweep sample n=20, user={users[0]}", dict(user=users[0])),
        ("sweep sample n=20, band 0.995–1.00", dict(band=(0.995, 1.0))),
    ]
    for label, kw in cases:
        band = kw.pop("band", (0.3, 0.49))
        n = kw.pop("n", 20)
        out: list[sampling.Sample] = []

        def run(band=band, n=n, kw=kw, out=out) -> None:
            with store.read() as conn:
                out.append(sampling.sample_band(conn, band, n, rng, **kw))

        ms = timed(run, repeat=30)
        s = out[-1]
        line(label, ms, f"[{s.method}, {len(s.rows)} rows, population ≈ {s.population:,}]")
    ms = timed(lambda: Sweeps(store).start(n=20, seed=rng.randrange(10**9)), repeat=10)
    line("start_sweep n=20 (sample + persist)", ms)
    print()
    groups: list = []
    ms = timed(lambda: groups.append(Contradictions(store).find()), repeat=5)
    g = groups[-1]
    kinds = sum(1 for x in g if x.kind == "correction")
    line("full contradiction scan", ms, f"[{len(g):,} groups, {kinds:,} unlinked corrections, "
          f"{sum(x.member_count for x in g):,} members]")
    ms = timed(lambda: Contradictions(store).find(user=users[0]), repeat=20)
    line("contradiction scan, one user", ms)
    ms = timed(lambda: Contradictions(store).load(g[0].key), repeat=20)
    line("load one group (cards + suggestion)", ms, f"[{g[0].member_count} members]")
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
