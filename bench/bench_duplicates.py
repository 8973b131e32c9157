"""Benchmark of the duplicates queue: quality on planted clusters, speed at 1,000,000.

Run: ``HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python bench/bench_duplicates.py
[--users 150] [--scale PATH] [--writes 200]``.

1. Quality: ``bench/duplicates_data.py`` plants, per user, facts restated exactly and
   reworded, near-misses with another value ("User works at Acme." / "… Globex.") and
   unrelated memories, embedded with the packaged MiniLM model.  Pairwise precision and
   recall of the clusters ``Duplicates.find`` returns (targets: >= 0.95 and >= 0.90),
   at several thresholds, and with the value checks switched off: a weaker matcher
   must score worse here (the benchmark can fail).
2. Scale (``--scale``: a store with 1,000,000 memories and their vectors, e.g. the demo
   store of bench/common.million_store embedded by bench/read_data.py): the full scan's
   wall time (target < 60 s) and the write path's check of one new memory
   (``flag_duplicates_in`` in the worker's transaction; target < 20 ms), each new
   memory a restatement or a new text of a random user, rolled back after timing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from functools import partial
from itertools import combinations
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from common import CACHE, machine, pct
from duplicates_data import plant

from memdesk.core import embeddings
from memdesk.core.curation.duplicates import Duplicates
from memdesk.core.ids import new_id
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write import duplicate_flags as F
from memdesk.core.write import duplicates as W

PRECISION_TARGET, RECALL_TARGET = 0.95, 0.90


Truth = dict[str, tuple[str, tuple[str, str]]]  # memory id -> (user, fact key)


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def load_planted(users: int, seed: int = 11) -> tuple[MemoryStore, Truth, str]:
    planted = plant(users, seed)
    texts = sorted({p.text for p in planted})
    t = time.perf_counter()
    cache = CACHE / "dups-planted-vectors.npz"  # the encoding is the slow part: once
    known: dict[str, bytes] = {}
    if cache.exists():
        z = np.load(cache, allow_pickle=False)
        known = {str(tx): v.astype("<f4").tobytes() for tx, v in zip(z["texts"], z["vecs"],
                                                                      strict=True)}
    todo = [tx for tx in texts if tx not in known]
    if todo:
        vecs = embeddings.default_embedder().encode(todo)
        known.update({tx: vecs[i].astype("<f4").tobytes() for i, tx in enumerate(todo)})
        CACHE.mkdir(parents=True, exist_ok=True)
        keys = sorted(known)
        np.savez(cache, texts=np.array(keys),
                 vecs=np.stack([np.frombuffer(known[k], "<f4") for k in keys]))
    encode_s = time.perf_counter() - t
    blob = known
    folder = Path(tempfile.mkdtemp(prefix="dups-bench-"))
    store = MemoryStore.open(folder / "planted.db")
    rows = []
    truth: dict[str, tuple[str, tuple[str, str]]] = {}
    for p in planted:
        mid = new_id()
        e, a, v = p.triple or (None, None, None)
        rows.append({"id": mid, "user_id": p.user_id, "text": p.text, "type": "fact",
                     "entity": e, "attribute": a, "value": v, "embedding": blob[p.text]})
        truth[mid] = (p.user_id, p.key)
    store.add_many(rows, actor="bench", audit=False)
    kinds: dict[str, int] = {}
    for p in planted:
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
    mix = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    desc = (f"{len(planted):,} memories of {users} users ({mix}); "
            f"{len(texts):,} distinct texts encoded in {encode_s:.1f} s")
    return store, truth, desc


def true_pairs(truth: dict[str, tuple[str, tuple[str, str]]]) -> set[frozenset[str]]:
    by_key: dict[tuple[str, tuple[str, str]], list[str]] = {}
    for mid, key in truth.items():
        by_key.setdefault(key, []).append(mid)
    return {frozenset(p) for ids in by_key.values() for p in combinations(ids, 2)}


def score(store: MemoryStore, truth: dict, threshold: float) -> tuple[float, float, int, float]:
    t = time.perf_counter()
    clusters = Duplicates(store).find(threshold=threshold)
    took = time.perf_counter() - t
    found = {frozenset(p) for c in clusters for p in combinations(c.member_ids, 2)}
    want = true_pairs(truth)
    hit = len(found & want)
    precision = hit / len(found) if found else 1.0
    recall = hit / len(want) if want else 1.0
    # False pairs on one topic: a near-miss (another value) taken for a duplicate.
    near = sum(1 for p in found - want if len({truth[i][1][0] for i in p}) == 1)
    return precision, recall, near, took


def quality(users: int, seed: int) -> bool:
    store, truth, desc = load_planted(users, seed)
    print(f"planted: {desc}")
    print(f"{'matcher':<34} {'threshold':>9} {'precision':>9} {'recall':>7} "
          f"{'near-miss merged':>16} {'scan':>7}")
    ok = True
    for label, thresholds, patch in (
        ("value checks (default)", (0.5, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95), False),
        ("cosine only (no value checks)", (0.8, 0.85, 0.9, 0.95), True),
    ):
        for th in thresholds:
            ctx = (mock.patch.object(W, "head_edges", partial(W.head_edges,
                                                              check_values=False))
                   if patch else contextlib.nullcontext())
            with ctx:
                p, r, near, took = score(store, truth, th)
            verdict = "PASS" if p >= PRECISION_TARGET and r >= RECALL_TARGET else "fail"
            default = " *" if (th == W.DEFAULT_THRESHOLD and not patch) else "  "
            print(f"{label:<34} {th:>8.2f}{default} {p:>9.3f} {r:>7.3f} {near:>16} "
                  f"{took:>6.2f}s  {verdict}")
            if th == W.DEFAULT_THRESHOLD and not patch:
                ok = verdict == "PASS"
    store.close()
    return ok


class _Rollback(Exception):
    pass


def scale(path: Path, writes: int) -> None:
    store = MemoryStore.open(path)
    with store.read() as conn:
        n = conn.exec_driver_sql("SELECT count(*) FROM memories").scalar()
        nv = conn.exec_driver_sql("SELECT count(*) FROM memory_vectors").scalar()
        users = W.active_users(conn)
    print(f"scale store: {n:,} memories, {nv:,} vectors, {len(users)} users with active ones")
    load = loadavg()
    t = time.perf_counter()
    cpu = time.process_time()
    clusters = 0
    members = 0
    pairs = 0
    for c in Duplicates(store).find():
        clusters += 1
        members += len(c.members)
        pairs += len(c.pairs)
    full, cpu = time.perf_counter() - t, time.process_time() - cpu
    print(f"full scan: {full:.1f} s wall, {cpu:.1f} s CPU of this process, for "
          f"{clusters:,} clusters ({members:,} memories, {pairs:,} joining pairs shown); "
          f"load before {load}, after {loadavg()}")

    # The worker's writes: a few users at a time (agents' sessions), each user's first
    # write in this process reads the user's rows (cold), later ones check and extend
    # the worker's per-user rows (warm).  Half restate a memory (its text and vector),
    # half are new texts; each is rolled back after timing.
    rng = random.Random(5)
    per_user = max(2, writes // 10)
    times: dict[str, list[float]] = {"cold": [], "warm": []}
    cpu_ms: dict[str, list[float]] = {"cold": [], "warm": []}
    flagged = 0
    for user in rng.sample(users, max(1, writes // per_user)):
        with store.read() as conn:
            rows = W.active_rows(conn, user)
        for i in range(per_user):
            src = rng.choice(rows)
            restate = rng.random() < 0.5
            text = src.text if restate else f"User mentioned project {new_id()[:6]} today."
            values = {"id": new_id(), "user_id": user, "text": text, "type": "fact",
                      "embedding": src.vector, "importance": 0.5, "confidence": 0.5,
                      "layer": "semantic",
                      "created_at": datetime.now(UTC).replace(tzinfo=None)}
            kind = "cold" if i == 0 else "warm"
            try:
                with store.write() as conn:
                    store.add_in(conn, values, actor="worker")
                    t, c = time.perf_counter(), time.process_time()
                    found = F.flag_duplicates_in(conn, [values])
                    times[kind].append((time.perf_counter() - t) * 1000)
                    cpu_ms[kind].append((time.process_time() - c) * 1000)
                    flagged += bool(found)
                    raise _Rollback
            except _Rollback:
                pass
    for kind in ("warm", "cold"):
        ms, cms = times[kind], cpu_ms[kind]
        print(f"write-path check, {kind} ({len(ms)} writes): median {pct(ms, 50):.1f} ms, "
              f"p95 {pct(ms, 95):.1f} ms, max {max(ms):.1f} ms (CPU median "
              f"{pct(cms, 50):.1f} ms, p95 {pct(cms, 95):.1f} ms)")
    print(f"  {flagged} of {sum(map(len, times.values()))} writes flagged; load {loadavg()}")
    store.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=150)
    ap.add_argument("--seed", type=int, default=23,
                    help="planting seed (the default was tuned on seed 11; 23 is held out)")
    ap.add_argument("--scale", type=Path, help="a store of ~1,000,000 memories with vectors")
    ap.add_argument("--writes", type=int, default=200)
    ap.add_argument("--skip-quality", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    print(f"{machine()} · {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · load {loadavg()}")
    ok = True
    if not args.skip_quality:
        ok = quality(args.users, args.seed)
    if args.scale:
        scale(args.scale, args.writes)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
