"""Concurrent writers and readers on both backends (docs/scaling.md, "Concurrency").

Run through ``bench_backends.py --concurrency``.  Per backend and size:

* **retrieve alone**: one reader process runs ``Retriever.retrieve`` (all channels,
  injection, k=10, the default config) for a fixed set of 20 users whose snapshots it
  has built first, random queries, for ``--seconds``; p50/p95 of each call.
* **W writers + 1 reader**, W in ``--writers``: W processes each add memories as
  ``memdesk add`` does (one audited transaction per memory: the row plus its audit
  event), for their own agent user, as fast as they can, while the reader runs as
  above.  Reported: total writes/s, each writer's errors (a busy SQLite file refuses a
  writer after its 10 s busy timeout), and the reader's p50/p95.  Every write appends
  an audit event, so the reader's cached per-user snapshot is rebuilt on each call that
  follows a write: that is the real cost of reading while agents write.

Every process opens its own store (its own connections), as separate agents would.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from bench_retrieve import QUERIES  # the same prompts as the retrieve benchmark
from common import machine, pct

READ_USERS = 20


def _wait(start, seconds: float) -> float:  # type: ignore[no-untyped-def]
    """Block until the parent sets the shared start time; returns the stop time."""
    while start.value == 0.0 or time.time() < start.value:
        time.sleep(0.002)
    return start.value + seconds


def _writer(db: str, n: int, start, seconds: float, out: mp.Queue) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(db, create=False)
    done = errors = 0
    first_error = ""
    rng = random.Random(n)
    stop = _wait(start, seconds)
    while time.time() < stop:
        try:
            store.add(user_id=f"agent-{n}", type="note", actor="agent",
                      text=f"Agent {n} noted that the user prefers {rng.choice(QUERIES)} "
                           f"(turn {done})")
            done += 1
        except Exception as exc:  # a refused write is a result here, not a crash
            errors += 1
            first_error = first_error or f"{type(exc).__name__}: {exc}"[:200]
    store.close()
    out.put(("w", n, done, errors, first_error))


def _reader(db: str, users: list[str], start, seconds: float, out: mp.Queue,  # type: ignore[no-untyped-def]
            ready) -> None:
    from memdesk.core.read.config import ReadConfig
    from memdesk.core.read.retriever import Retriever
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(db, create=False)
    r = Retriever(store, ReadConfig())
    rng = random.Random(5)
    for u in users:  # load the model, build each user's snapshot
        r.retrieve(rng.choice(QUERIES), u)
    ready.set()
    stop = _wait(start, seconds)
    lat: list[float] = []
    errors = 0
    while time.time() < stop:
        t = time.perf_counter()
        try:
            r.retrieve(rng.choice(QUERIES), rng.choice(users))
            lat.append((time.perf_counter() - t) * 1000)
        except Exception:
            errors += 1
    r.flush()
    store.close()
    out.put(("r", 0, lat, errors, ""))


def phase(db: str, users: list[str], writers: int, seconds: float) -> dict:
    ctx = mp.get_context("spawn")  # clean processes: no engine inherited over fork
    out: mp.Queue = ctx.Queue()
    ready = ctx.Event()
    start = ctx.Value("d", 0.0)  # set once the reader has its model and snapshots
    procs = [ctx.Process(target=_reader, args=(db, users, start, seconds, out, ready))]
    procs += [ctx.Process(target=_writer, args=(db, n, start, seconds, out))
              for n in range(writers)]
    for p in procs:
        p.start()
    if not ready.wait(600):
        raise RuntimeError("the reader did not get ready in 10 minutes")
    time.sleep(3)  # let the writers open their stores
    start.value = time.time() + 0.5
    results = [out.get(timeout=seconds + 300) for _ in procs]
    for p in procs:
        p.join(60)
    writes = sum(r[2] for r in results if r[0] == "w")
    werr = sum(r[3] for r in results if r[0] == "w")
    first_err = next((r[4] for r in results if r[0] == "w" and r[4]), "")
    [lat] = [r[2] for r in results if r[0] == "r"]
    rerr = sum(r[3] for r in results if r[0] == "r")
    return {"writers": writers, "writes_s": writes / seconds, "write_errors": werr,
            "first_error": first_err, "reads": len(lat), "read_errors": rerr,
            "p50": pct(lat, 50) if lat else float("nan"),
            "p95": pct(lat, 95) if lat else float("nan")}


def measure(label: str, db: str, writer_counts: list[int], seconds: float) -> None:
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(db, create=False)
    with store.read() as conn:
        users = [r[0] for r in conn.exec_driver_sql(
            "SELECT DISTINCT user_id FROM memories ORDER BY user_id")]
    rows = store.count()
    store.close()
    users = random.Random(3).sample(users, min(READ_USERS, len(users)))
    print(f"[{label}] {rows:,} rows; reader: {len(users)} users, {seconds:.0f} s per phase",
          flush=True)
    for w in [0, *writer_counts]:
        res = phase(db, users, w, seconds)
        load = os.getloadavg()
        err = f", {res['write_errors']} refused ({res['first_error']})" \
            if res["write_errors"] else ""
        print(f"[{label}] writers {w}: {res['writes_s']:.0f} writes/s{err} | retrieve "
              f"p50 {res['p50']:.1f} ms p95 {res['p95']:.1f} ms ({res['reads']} calls"
              f"{', ' + str(res['read_errors']) + ' failed' if res['read_errors'] else ''})"
              f" | load {load[0]:.2f} {load[1]:.2f}", flush=True)


def main(args) -> None:  # type: ignore[no-untyped-def]
    from scaling_data import load_pg, sqlite_store

    writer_counts = [int(x) for x in args.writers.split(",") if x]
    print(f"# concurrency, {args.size:,} rows; {machine()}; load {os.getloadavg()}",
          flush=True)
    src = sqlite_store(args.size)
    if args.only != "postgresql":
        # Writers grow the file: measure on a copy so the cached store stays as built.
        with tempfile.TemporaryDirectory(dir=src.parent) as tmp:
            import shutil

            db = Path(tmp) / "s.db"
            shutil.copyfile(src, db)
            measure("sqlite", str(db), writer_counts, args.seconds)
    if args.only == "sqlite":
        return
    server = None
    url = args.pg_url
    if url is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.helpers.pg import start_server

        server = start_server(durable=True)
        url = server.new_database(prefix="scale")
    try:
        secs = load_pg(url, src)
        print(f"[postgresql] COPY-loaded {args.size:,} rows (indexes rebuilt, ANALYZE) in "
              f"{secs:.0f} s", flush=True)
        measure("postgresql", url, writer_counts, args.seconds)
    finally:
        if server is not None:
            server.stop()
