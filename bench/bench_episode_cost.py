"""What keeping every turn as an episode costs at 1M turns: store size and retrieve p95.

    .venv/bin/python bench/bench_episode_cost.py [--size 1000000] [--users 25]

Two stores, compared in the same run on the same queries and users:

- **units only** (before episodes): the 1M-row demo store of bench_retrieve.py, read
  as what 1M turns left when the write path kept only the units it extracted (one
  unit per turn: the demo's rows are typed units);
- **units + episodes**: a copy of it where every unit's turn is also kept as an
  episode (a ``memories`` row of type ``episode`` with its FTS entry and vector, its
  ``episodes`` side row, and the unit's ``memory_provenance.episode_id``), as the write
  path now does.

The turns are the shipped conversational set's (bench/data/conversations.json), cycled
over the units: the vocabulary and lengths of real turns, so the full-text index and
the vectors grow as they would (a cycled text costs the index the same postings as a
distinct one with the same words; vectors are copied per text, as bench_retrieve.py
does, since embedding 1M texts on 2 cores takes hours).  Retrieval runs every channel
with injection, k = 10, on 5 queries per user: "first" is the user's first call (its
snapshot is built), "warm" the four after.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_retrieve import QUERIES, prepared_store
from common import machine, pct

DATA = Path(__file__).parent / "data" / "conversations.json"


def turns() -> list[tuple[str, str]]:
    """(speaker, text) of every turn of the shipped conversational set."""
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    out: list[tuple[str, str]] = []
    for sample in raw:
        conv = sample["conversation"]
        for key in sorted(k for k in conv if k.startswith("session_") and k[8:].isdigit()):
            out += [(t["speaker"], t["text"]) for t in conv[key]]
    return out


def add_episodes(path: Path) -> tuple[int, float]:
    """Give every memory of the store at ``path`` an episode; (episodes, seconds)."""
    from memdesk.core.embeddings import default_embedder, to_blob
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.store.statistics import refresh_statistics

    t0 = time.perf_counter()
    said = turns()
    texts = sorted({t for _, t in said})
    vecs = default_embedder().encode(texts, batch_size=128)
    store = MemoryStore.open(path)
    with store.write() as conn:
        sql = conn.exec_driver_sql
        sql("CREATE TEMP TABLE turn (i INTEGER PRIMARY KEY, speaker TEXT, text TEXT)")
        sql("INSERT INTO turn VALUES (?, ?, ?)",
            [(i, s, t) for i, (s, t) in enumerate(said)])
        sql("CREATE TEMP TABLE turn_vec (text TEXT PRIMARY KEY, v BLOB)")
        sql("INSERT INTO turn_vec VALUES (?, ?)",
            [(t, to_blob(v)) for t, v in zip(texts, vecs, strict=True)])
        n_turns = len(said)
        # One episode per unit, in the unit's order: the unit's user, session and time.
        sql("CREATE TEMP TABLE ep (unit TEXT PRIMARY KEY, id TEXT, i INTEGER)")
        sql(f"INSERT INTO ep SELECT m.id, 'ep' || m.seq, (m.seq % {n_turns}) "
            "FROM memories m WHERE m.type != 'episode'")
        sql("INSERT INTO memories (id, user_id, text, type, layer, importance, confidence, "
            "source_session, created_at, access_count) "
            "SELECT ep.id, m.user_id, turn.text, 'episode', 'episodic', 0.3, 0.9, "
            "m.source_session, m.created_at, 0 "
            "FROM ep JOIN memories m ON m.id = ep.unit JOIN turn ON turn.i = ep.i "
            "ORDER BY m.seq")
        sql("INSERT INTO episodes (memory_id, user_id, session_id, speaker, said_at, "
            "dedup_key) SELECT ep.id, m.user_id, m.source_session, turn.speaker, "
            "m.created_at, ep.id FROM ep JOIN memories m ON m.id = ep.unit "
            "JOIN turn ON turn.i = ep.i")
        sql("INSERT INTO memory_vectors (seq, vector) SELECT e.seq, v.v FROM ep "
            "JOIN memories e ON e.id = ep.id JOIN turn ON turn.i = ep.i "
            "JOIN turn_vec v ON v.text = turn.text ORDER BY e.seq")
        sql("INSERT INTO memory_provenance (memory_id, extractor, created_at, episode_id) "
            "SELECT ep.unit, 'rules', m.created_at, ep.id FROM ep "
            "JOIN memories m ON m.id = ep.unit WHERE true "
            "ON CONFLICT (memory_id) DO UPDATE SET episode_id = excluded.episode_id")
        n = sql("SELECT count(*) FROM ep").scalar() or 0
    # The worker refreshes the planner's statistics as it goes idle after storing turns
    # (core/store/statistics.py); rows written here behind its back get the same.
    refresh_statistics(store)
    store.checkpoint()
    store.close()
    return int(n), time.perf_counter() - t0


def episode_store(base: Path) -> tuple[Path, str]:
    """A copy of ``base`` with an episode per unit (built once, then reused)."""
    path = base.with_name(base.stem + "-episodes.db")
    marker = path.with_suffix(".ok")
    if not marker.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        shutil.copyfile(base, path)
        n, secs = add_episodes(path)
        marker.write_text(f"{n:,} episodes added in {secs:.0f} s\n")
    return path, marker.read_text().strip()


def size_mb(path: Path) -> float:
    return sum(Path(str(path) + s).stat().st_size for s in ("", "-wal")
               if Path(str(path) + s).exists()) / 1e6


def latencies(path: Path, users: list[str], seed: int) -> tuple[list[float], list[float]]:
    from memdesk.core.read.config import ReadConfig
    from memdesk.core.read.retriever import Retriever
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(path)
    r = Retriever(store, ReadConfig(record=False))
    r.retrieve("warm up the model", users[0])
    r.snapshots._items.clear()
    rng = random.Random(seed)
    first: list[float] = []
    warm: list[float] = []
    for u in users:
        for j in range(5):
            q = rng.choice(QUERIES)
            t0 = time.perf_counter()
            r.retrieve(q, u)
            (warm if j else first).append((time.perf_counter() - t0) * 1000)
    store.close()
    return first, warm


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=25, help="users asked (5 queries each)")
    ap.add_argument("--build-only", action="store_true",
                    help="build the two stores (cached in bench/.cache) and stop")
    args = ap.parse_args()
    from memdesk.core.store.memory_store import MemoryStore

    base = prepared_store()
    s = MemoryStore.open(base)
    s.checkpoint()
    with s.read() as conn:
        users = [r[0] for r in conn.exec_driver_sql(
            "SELECT DISTINCT user_id FROM memories ORDER BY user_id")]
        rows = conn.exec_driver_sql("SELECT count(*) FROM memories").scalar() or 0
    s.close()
    both, built = episode_store(base)
    if args.build_only:
        print(f"{both}: {built}")
        return 0
    chosen = random.Random(3).sample(users, min(args.users, len(users)))
    print(f"# what episodes cost: {rows:,} units (one per turn), and the same with an "
          f"episode each ({built}); {len(chosen)} users x 5 queries, k=10, all channels "
          "+ injection")
    print(f"# {machine()}; load average {os.getloadavg()[0]:.1f}")
    for label, path in (("units only", base), ("units + episodes", both)):
        first, warm = latencies(path, chosen, seed=5)
        print(f"{label:<18} size {size_mb(path):8.0f} MB  warm p50 {pct(warm, 50):6.1f} "
              f"ms  p95 {pct(warm, 95):6.1f} ms  | first p50 {pct(first, 50):6.1f} ms  "
              f"p95 {pct(first, 95):6.1f} ms")
    print(f"# load average after {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
