"""What the relevance floor can and cannot buy: every pair of bars, at every store size.

    .venv/bin/python bench/bench_recall.py --size 2000 --keep /tmp/r2k      # build stores
    .venv/bin/python bench/bench_recall.py --size 100000 --keep /tmp/r100k
    .venv/bin/python bench/recall_frontier.py /tmp/r2k/recall.db /tmp/r100k/recall.db \\
        --mem0 0.758,0.921 --mem0 0.721,0.834

For each query of the labelled set with an answer or none (paraphrase, multi-fact,
no-answer), the vector channel runs once, as the retriever runs it (centred cosines,
the calibrated background of calibrate.py); then every pair of bars — the best
candidate's ``floor_best_z`` and everyone else's ``floor_z``, each raised with the
user's size as ``calibrate.for_size`` raises it, or not raised — is applied to the
same cosines.  That is the vector channel's ranking under every floor, which on these
categories is what memdesk returns (they share no word with their answers, and name no
entity); bench_recall.py's full runs check the default bars against it.

It prints the ranking with no floor at all, then, per store, the pairs that keep
no-answer questions at one result or fewer, best first by their worst MRR margin over
Mem0's figures (``--mem0 paraphrase,multi``, one per store, from bench_recall.py's run
on the same store).  The question it answers: is there a floor that meets both targets
(MRR ≥ Mem0's and ≤ 1 result for questions without an answer) on every store?
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np
import recall_set as rset

CATS = ("paraphrase", "multi", "no_answer")
BEST_Z = np.arange(0.0, 6.01, 0.25)
FLOOR_Z = np.arange(0.0, 9.01, 0.25)


@dataclass
class Query:
    cat: str
    n: int  # the user's eligible memories with a vector
    median: float
    scale: float
    top: list[tuple[float, bool]]  # the channel's top 10: cosine, is an answer


def collect(path: Path) -> list[Query]:
    """Run the vector channel once per query of the set, on the store at ``path``."""
    from memdesk.core.embeddings import DIM
    from memdesk.core.read import channels as ch
    from memdesk.core.read.config import ReadConfig
    from memdesk.core.read.query_vectors import query_vector
    from memdesk.core.read.retriever import Retriever
    from memdesk.core.store.memory_store import MemoryStore

    rs, _ = rset.load()
    store = MemoryStore.open(path)
    retriever = Retriever(store, ReadConfig().with_(record=False))
    cfg = retriever.config
    out: list[Query] = []
    for q in rs.queries:
        if q.cat not in CATS:
            continue
        qvec = query_vector(retriever.embedder(), q.text)
        with store.read() as conn:
            snap = retriever.snapshots.get(conn, q.user, DIM)
            ok = ch.eligible(snap, cfg)
            vec = ch.vector_channel(snap, qvec, cfg, ok)
        bg = vec.background
        assert bg is not None, f"{q.user} has no vectors: run bench_recall.py to build"
        answers = set(q.answers)
        top = [(float(vec.cosine(s) or 0.0), snap.ids[snap.row_of[s]] in answers)
               for s in vec.ranked[:10]]
        out.append(Query(q.cat, int(ok[snap.vec_rows].sum()), bg.median, bg.scale, top))
    store.close()
    return out


def figures(queries: list[Query], best_z: float, floor_z: float, scaled: bool) -> dict[str, float]:
    """MRR per category with answers and results per no-answer question, under these bars."""
    from memdesk.core.read import calibrate
    from memdesk.core.read.config import ReadConfig

    cfg = ReadConfig()
    per: dict[str, list[float]] = {c: [] for c in CATS}
    for q in queries:
        ref = cfg.floor_reference_n if scaled else 0
        fz = calibrate.for_size(floor_z, q.n, ref)
        bz = min(calibrate.for_size(best_z, q.n, ref), fz)
        floor = min(q.median + fz * q.scale, cfg.floor_cap)
        best = min(q.median + bz * q.scale, cfg.floor_cap)
        kept = [a for j, (cos, a) in enumerate(q.top) if cos >= floor or (j == 0 and cos >= best)]
        if q.cat == "no_answer":
            per[q.cat].append(len(kept))
        else:
            per[q.cat].append(next((1.0 / (j + 1) for j, a in enumerate(kept) if a), 0.0))
    return {c: float(np.mean(v)) for c, v in per.items()}


def unfloored(queries: list[Query]) -> dict[str, float]:
    return figures([replace(q, median=-9.0, scale=0.0) for q in queries], 0.0, 0.0, False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stores", nargs="+", type=Path, help="recall.db of bench_recall.py --keep")
    ap.add_argument("--mem0", action="append", default=[],
                    help="Mem0's paraphrase,multi MRR on the store of the same position")
    ap.add_argument("--show", type=int, default=5, help="pairs to print (default 5)")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    mem0 = [tuple(float(x) for x in m.split(",")) for m in args.mem0]
    if mem0 and len(mem0) != len(args.stores):
        raise SystemExit("give one --mem0 per store, in the same order")
    data = [collect(p) for p in args.stores]
    from memdesk.core.read.config import ReadConfig

    cfg = ReadConfig()
    for p, qs in zip(args.stores, data, strict=True):
        users_n = sorted({q.n for q in qs})
        print(f"{p}: memories per labelled user {users_n[0]:,}–{users_n[-1]:,}")
        print("  no floor:       " + fmt(unfloored(qs)))
        print(f"  default bars ({cfg.floor_best_z}, {cfg.floor_z}, scaled): "
              + fmt(figures(qs, cfg.floor_best_z, cfg.floor_z, True)))
    grid = []
    for bz, fz, scaled in itertools.product(BEST_Z, FLOOR_Z, (True, False)):
        if bz > fz:
            continue
        figs = [figures(qs, bz, fz, scaled) for qs in data]
        no_answer = max(f["no_answer"] for f in figs)
        margin = (min(min(f["paraphrase"] - m[0], f["multi"] - m[1])
                      for f, m in zip(figs, mem0, strict=True)) if mem0 else
                  min(f["paraphrase"] for f in figs))
        grid.append((margin, no_answer, bz, fz, scaled, figs))
    print(f"\n{len(grid)} pairs of bars tried (best {BEST_Z[0]}–{BEST_Z[-1]}, others "
          f"{FLOOR_Z[0]}–{FLOOR_Z[-1]}, raised with size or not)")
    what = "worst MRR margin over Mem0" if mem0 else "worst paraphrase MRR"
    for title, rows in (
        ("keeping no-answer questions at ≤ 1 result on every store",
         sorted((g for g in grid if g[1] <= 1.0), key=lambda g: -g[0])),
        ("at or above Mem0 everywhere (margin ≥ 0), fewest no-answer results",
         sorted((g for g in grid if g[0] >= 0), key=lambda g: g[1])),
    ):
        print(f"\n{title}: {len(rows)} pairs")
        for margin, no_answer, bz, fz, scaled, figs in rows[: args.show]:
            print(f"  best {bz:.2f} others {fz:.2f} {'scaled' if scaled else 'fixed '} "
                  f"{what} {margin:+.3f}, no-answer ≤ {no_answer:.2f}: "
                  + " | ".join(fmt(f) for f in figs))
    return 0


def fmt(f: dict[str, float]) -> str:
    return (f"paraphrase {f['paraphrase']:.3f}  multi {f['multi']:.3f}  "
            f"no-answer {f['no_answer']:.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
