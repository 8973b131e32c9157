"""Read-path benchmarks (issue 9): vector search options, retrieve latency, maintain.

    .venv/bin/python bench/bench_retrieve.py vectors    # numpy / faiss / hnswlib / sqlite-vec
    .venv/bin/python bench/bench_retrieve.py retrieve   # p50/p95 on the 1M demo store
    .venv/bin/python bench/bench_retrieve.py maintain   # decay + linking over 1M rows

``vectors`` uses synthetic L2-normalised vectors (embedding 1M texts on two CPU cores
is far too slow, and speed does not depend on what the vectors mean).  ``retrieve``
uses real all-MiniLM-L6-v2 vectors: the demo's ~5,000 distinct texts are embedded once
and copied to their rows (bench/read_data.py).  ``maintain`` runs on a copy.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, million_store, pct

DIM = 384
QUERIES = [
    "which test framework do I use?", "what database does atlas use?",
    "how should I organize imports in Python files?", "where does the user live?",
    "timeout connecting to Redis during the deploy", "which editor and theme?",
    "why did we choose PostgreSQL?", "prefer simplicity over cleverness",
    "deploys on Fridays", "what went wrong with the staging API?",
    "the ledger migration slipped", "who does the user work for?",
    "backend language preference", "the benchmark workflow tool",
    "honestly the simplest version was good enough", "Kafka incident last week",
]


def synthetic(n: int, seed: int = 1):  # type: ignore[no-untyped-def]
    import numpy as np

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, DIM), dtype=np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x


def bench_vectors(sizes: list[int], repeat: int, hnsw_max: int) -> None:
    import numpy as np

    print(f"# vector top-10, {DIM} dims, synthetic normalised vectors, {repeat} queries each")
    print(f"# {machine()}")
    for n in sizes:
        x = synthetic(n)
        qs = synthetic(repeat, seed=2)
        exact = []
        t = []
        for q in qs:
            t0 = time.perf_counter()
            s = x @ q
            top = np.argpartition(-s, 10)[:10]
            top = top[np.argsort(-s[top])]
            t.append((time.perf_counter() - t0) * 1000)
            exact.append(set(top.tolist()))
        print(f"n={n:>9,}  numpy matmul+argpartition  p50 {pct(t, 50):7.1f} ms  "
              f"p95 {pct(t, 95):7.1f} ms  recall@10 1.000  build 0 s")
        try:
            import faiss

            faiss.omp_set_num_threads(1)
            t0 = time.perf_counter()
            idx = faiss.IndexFlatIP(DIM)
            idx.add(x)
            build = time.perf_counter() - t0
            t = []
            for q in qs:
                t0 = time.perf_counter()
                idx.search(q[None, :], 10)
                t.append((time.perf_counter() - t0) * 1000)
            print(f"n={n:>9,}  faiss IndexFlatIP (1 thr)   p50 {pct(t, 50):7.1f} ms  "
                  f"p95 {pct(t, 95):7.1f} ms  recall@10 1.000  build {build:.1f} s")
            del idx
        except ImportError:
            print("faiss-cpu not installed")
        try:
            if n > hnsw_max:
                raise ImportError(f"skipped above {hnsw_max:,} rows (--hnsw-max)")
            import hnswlib

            t0 = time.perf_counter()
            h = hnswlib.Index(space="ip", dim=DIM)
            h.init_index(max_elements=n, ef_construction=100, M=16)
            h.set_num_threads(2)
            h.add_items(x, np.arange(n))
            build = time.perf_counter() - t0
            h.set_ef(64)
            t, hit = [], 0
            for q, ex in zip(qs, exact, strict=True):
                t0 = time.perf_counter()
                labels, _ = h.knn_query(q, k=10)
                t.append((time.perf_counter() - t0) * 1000)
                hit += len(ex & set(labels[0].tolist()))
            print(f"n={n:>9,}  hnswlib M=16 ef=64         p50 {pct(t, 50):7.1f} ms  "
                  f"p95 {pct(t, 95):7.1f} ms  recall@10 {hit / (10 * len(qs)):.3f}  "
                  f"build {build:.1f} s")
            del h
        except ImportError:
            print(f"n={n:>9,}  hnswlib: not measured here")
        try:
            import pysqlite3
            import sqlite_vec

            con = pysqlite3.connect(":memory:")
            con.enable_load_extension(True)
            sqlite_vec.load(con)
            t0 = time.perf_counter()
            con.execute(f"CREATE VIRTUAL TABLE v USING vec0(e float[{DIM}] distance_metric=cosine)")
            con.executemany("INSERT INTO v(rowid, e) VALUES (?, ?)",
                            ((i, x[i].tobytes()) for i in range(n)))
            build = time.perf_counter() - t0
            t = []
            for q in qs:
                t0 = time.perf_counter()
                con.execute("SELECT rowid FROM v WHERE e MATCH ? AND k = 10",
                            (q.tobytes(),)).fetchall()
                t.append((time.perf_counter() - t0) * 1000)
            print(f"n={n:>9,}  sqlite-vec vec0 (brute)    p50 {pct(t, 50):7.1f} ms  "
                  f"p95 {pct(t, 95):7.1f} ms  recall@10 1.000  build {build:.1f} s")
            con.close()
        except ImportError:
            print("sqlite-vec / pysqlite3 not installed")
        del x


def prepared_store() -> Path:
    from read_data import ensure_read_tables, fill_embeddings

    from memdesk.core.store.memory_store import MemoryStore

    path = million_store()
    s = MemoryStore.open(path)
    ensure_read_tables(s)
    n, secs = fill_embeddings(s)
    if n:
        print(f"(embedded {n:,} distinct texts into the cache in {secs:.0f} s)")
    s.close()
    return path


def bench_retrieve(repeat: int) -> None:
    from memdesk.core.read.config import ReadConfig
    from memdesk.core.read.retriever import Retriever
    from memdesk.core.store.memory_store import MemoryStore

    path = prepared_store()
    store = MemoryStore.open(path)
    with store.read() as conn:
        users = [r[0] for r in conn.exec_driver_sql(
            "SELECT DISTINCT user_id FROM memories ORDER BY user_id")]
        per_user = conn.exec_driver_sql(
            "SELECT count(*) * 1.0 / count(DISTINCT user_id) FROM memories").scalar()
    rng = random.Random(3)
    chosen = rng.sample(users, max(1, repeat // 5))
    print(f"# retrieve on {path.name}: {len(users)} users, {per_user:,.0f} memories each; "
          f"{len(chosen)} users x 5 queries (random), k=10, no reranker. 'first' = the user's "
          "first call (builds the user's snapshot), 'warm' = the next four")
    print(f"# {machine()}; load average {os.getloadavg()[0]:.1f}")
    r = Retriever(store, ReadConfig())
    r.retrieve("warm up the model", users[0])
    for label, channels, inject in (("all channels + injection", None, True),
                                    ("fts only", "fts", False), ("vector only", "vector", False),
                                    ("graph only", "graph", False)):
        r.snapshots._items.clear()
        first, warm = [], []
        for u in chosen:
            for j in range(5):
                q = rng.choice(QUERIES)
                t0 = time.perf_counter()
                r.retrieve(q, u, channels=channels, inject=inject)
                (warm if j else first).append((time.perf_counter() - t0) * 1000)
        r.flush()
        print(f"{label:<26} warm p50 {pct(warm, 50):6.1f} ms  p95 {pct(warm, 95):6.1f} ms  "
              f"| first p50 {pct(first, 50):6.1f} ms  p95 {pct(first, 95):6.1f} ms")
    calls = [(rng.choice(QUERIES), u) for u in chosen]
    from memdesk.core.embeddings import default_embedder

    e = default_embedder()
    t = []
    for q, _ in calls[:50]:
        t0 = time.perf_counter()
        e.encode([q])
        t.append((time.perf_counter() - t0) * 1000)
    print(f"{'(of which: query encoding)':<26} p50 {pct(t, 50):6.1f} ms  p95 {pct(t, 95):6.1f} ms")
    store.close()


def curate_some(store, n: int, seed: int = 3) -> int:  # type: ignore[no-untyped-def]
    """Give ``n`` random memories with a triple an operator edit event (raw, as a
    long-used store would have them), so maintain's curated check has work to do.

    The demo generator writes no audit rows; a store filled by the write path has an
    "add" per memory, so those are written first: the curated check must find the
    operator's few events among a million others."""
    from memdesk.core.ids import utcnow

    with store.write() as conn:
        if conn.exec_driver_sql("SELECT count(*) FROM memory_events").scalar() < n:
            conn.exec_driver_sql(
                "INSERT INTO memory_events (memory_id, actor, action, before, after, at) "
                "SELECT id, 'worker', 'add', '{}', '{}', created_at FROM memories")
        seqs = [r[0] for r in conn.exec_driver_sql(
            "SELECT id FROM memories WHERE entity IS NOT NULL AND attribute IS NOT NULL")]
        pick = random.Random(seed).sample(seqs, min(n, len(seqs)))
        conn.exec_driver_sql(
            "INSERT INTO memory_events (memory_id, actor, action, before, after, at) "
            "VALUES (?, 'operator', 'edit', '{}', '{}', ?)",
            [(mid, utcnow()) for mid in pick])
    return len(pick)


def curated_read(store, index: bool) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """Seconds and size of the curated set, with the operator-event index or without
    (the weaker design: a scan of the whole audit log)."""
    from memdesk.core.guard.curated import curated_set

    if not index:
        with store.write() as conn:
            conn.exec_driver_sql("DROP INDEX ix_memory_events_operator")
    t0 = time.perf_counter()
    with store.read() as conn:
        n = len(curated_set(conn))
    return time.perf_counter() - t0, n


def bench_maintain(curated: int) -> None:
    from memdesk.core.read.maintain import maintain
    from memdesk.core.store.memory_store import MemoryStore

    src = prepared_store()
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-bench-"))
    try:
        dst = tmp / "m.db"
        shutil.copyfile(src, dst)
        store = MemoryStore.open(dst)
        print(f"# maintain over {store.count():,} memories (a copy of {src.name})")
        print(f"# {machine()}")
        print(f"# load average before (1, 5, 15 min): {os.getloadavg()}")
        if curated:
            print(f"# {curate_some(store, curated):,} memories with a triple curated "
                  "(an operator edit event each)")
        t0 = time.perf_counter()
        rep = maintain(store)
        total = time.perf_counter() - t0
        print(f"first run: {total:.1f} s — decayed {rep.decayed:,}, linked {len(rep.links):,}, "
              f"held for review {len(rep.held):,}")
        t0 = time.perf_counter()
        rep = maintain(store)
        print(f"second run: {time.perf_counter() - t0:.1f} s — decayed {rep.decayed:,}, "
              f"linked {len(rep.links):,}")
        t0 = time.perf_counter()
        rep = maintain(store, link=False)
        print(f"decay only: {time.perf_counter() - t0:.1f} s")
        with_ix, n = curated_read(store, index=True)
        without, _ = curated_read(store, index=False)
        print(f"curated set ({n:,} memories): {with_ix * 1000:.0f} ms from the operator-event "
              f"index, {without * 1000:.0f} ms scanning the audit log without it")
        print(f"# load average (1, 5, 15 min): {os.getloadavg()}")
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("part", choices=["vectors", "retrieve", "maintain", "all"])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--curated", type=int, default=10_000,
                    help="maintain: memories given an operator event first")
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--hnsw-max", type=int, default=1_000_000,
                    help="skip hnswlib above this size (its 1M build takes minutes)")
    args = ap.parse_args()
    os.environ.setdefault("MEMDESK_TORCH_THREADS", "1")
    if args.part in ("vectors", "all"):
        bench_vectors([int(s) for s in args.sizes.split(",")], min(args.repeat, 50),
                      args.hnsw_max)
    if args.part in ("retrieve", "all"):
        bench_retrieve(args.repeat)
    if args.part in ("maintain", "all"):
        bench_maintain(args.curated)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
