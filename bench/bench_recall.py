"""Recall quality that can tell systems apart: memdesk (all channels, each channel
alone, a shuffled control) against Mem0 (faiss, Qdrant local) on a labelled set.

    .venv/bin/pip install -e '.[bench]'            # mem0ai, faiss-cpu (qdrant-client comes along)
    nice -n 10 .venv/bin/python bench/bench_recall.py [--size 2000] [--no-qdrant] [--skip-ingest]

1. The labelled set (bench/data/recall_set.json, ≥ 30 queries in each of six
   categories; bench/recall_set.py) is checked first: a set that fails its integrity
   check (too few queries, a paraphrase sharing a content word with its answer under
   the retriever's own keyword rules, a missing answer) stops the run.
2. Haystack: the demo store (``memdesk demo``'s generator, seed 7, ending today) of
   ``--size`` memories minus the set's, plus the set's memories planted with their ids
   through ``memdesk import``'s engine, spread over the eight demo users (each has
   ~size/8 memories at 2,000, ~2,000 at 100,000).  Then ``memdesk embed`` (backfill)
   and ``memdesk maintain`` (corrections linked, decay), as an agent builder would.
3. Mem0, one store per vector store: the set's memories through ``add(infer=False)``
   one by one (timed: its ingest figure), then the haystack's other rows with the
   same MiniLM vectors through its own ``vector_store.insert``
   (bench/peer_mem0.py).  Mem0 gets every row memdesk was given, superseded ones
   included: with ``infer=False`` it has no way to retire a value.
4. Every query goes to every system in turn (recall_systems.py); per category
   recall@10, MRR, nDCG@10 (recall_metrics.py) and the category's own figure:
   stale@10 (superseded), hit-or-injected (preference), results returned
   (no-answer).  Latency p50/p95 per system over all queries.
5. Ingest both ways (recall_ingest.py) unless ``--skip-ingest``.

Everything runs in this one process on one torch thread (both sides encode at the
same speed).  HF_HUB_OFFLINE=1: nothing is downloaded.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MEM0_TELEMETRY", "False")

import recall_set as rset
from common import machine
from recall_metrics import Outcome, paired_ci, percentile, score, summarise

# Qdrant's embedded local mode is pure Python: fine for a small haystack, hours for a
# large one (docs/benchmarks.md).
QDRANT_MAX = 20_000
CAT_FIGURES = {
    "keyword": ("recall@10", "MRR", "nDCG@10"),
    "paraphrase": ("recall@10", "MRR", "nDCG@10"),
    "superseded": ("recall@10", "MRR", "nDCG@10", "stale@10"),
    "preference": ("recall@10", "MRR", "nDCG@10", "hit_or_injected"),
    "no_answer": ("returned", "injected"),
    "multi": ("recall@10", "MRR", "nDCG@10"),
}


def loadavg() -> str:
    """The 1-, 5- and 15-minute load averages, as /proc/loadavg gives them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def build_store(rs: rset.RecallSet, size: int, folder: Path, end: Any):  # type: ignore[no-untyped-def]
    """The haystack with the set planted, embedded and maintained; returns the store."""
    from memdesk.core import demo
    from memdesk.core.read.maintain import maintain
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.transfer.importer import Importer
    from memdesk.core.transfer.jsonl import JsonlSource
    from memdesk.core.write.embed import backfill

    rows = rset.store_rows(rs, end)
    store = MemoryStore.open(folder / "recall.db")
    t0 = time.perf_counter()
    demo.generate(store, size - len(rows), seed=7, end=end)
    rep = Importer(store, note="recall set").run(
        JsonlSource(io.BytesIO(rset.jsonl(rows)), label="recall set"))
    if rep.bad_count or rep.imported != len(rows):
        raise SystemExit(f"planting the set failed: {rep.summary()}")
    t1 = time.perf_counter()
    emb = backfill(store)
    t2 = time.perf_counter()
    mt = maintain(store)
    t3 = time.perf_counter()
    missing = [m for m in rs.memories if m not in {r.id for r in store.get_many(list(rs.memories))}]
    if missing:
        raise SystemExit(f"labelled memories missing from the store: {missing[:5]}")
    print(f"haystack: {store.count():,} memories ({len(rows)} labelled, planted with their "
          f"ids), {len(store.distinct('user_id'))} users; demo + import {t1 - t0:.1f} s, "
          f"embed {t2 - t1:.1f} s ({emb.embedded:,} vectors), maintain {t3 - t2:.1f} s "
          f"({len(mt.links):,} corrections linked)")
    return store


def build_mem0(rs: rset.RecallSet, store: Any, folder: Path, providers: list[str],
               end: Any) -> tuple[list[Any], dict[str, dict[str, float]]]:
    from peer_mem0 import fill_mem0, mem0_memory
    from recall_systems import Mem0

    systems, ingest = [], {}
    planted = rset.store_rows(rs, end)
    for provider in providers:
        try:
            sysm = Mem0(f"Mem0 {provider}", mem0_memory(folder / f"mem0-{provider}", provider))
        except Exception as exc:  # an optional store that cannot start: say so, go on
            print(f"Mem0 {provider}: not run ({type(exc).__name__}: {exc})")
            continue
        t0 = time.perf_counter()
        for row in planted:
            sysm.add(row["text"], row["user_id"], row["id"])
        ingest[sysm.name] = {"n": len(planted), "s": time.perf_counter() - t0}
        fill_s = fill_mem0(sysm.memory, store, where="1=1", skip=set(rs.memories))
        print(f"{sysm.name}: {len(planted)} labelled memories added one by one in "
              f"{ingest[sysm.name]['s']:.1f} s; the rest of the haystack inserted with "
              f"memdesk's vectors in {fill_s:.1f} s")
        systems.append(sysm)
    return systems, ingest


def run_queries(rs: rset.RecallSet, ours: Any, mem0s: list[Any]) -> dict[str, Any]:
    """Every query to every system; per system and category the per-query figures."""
    names = ours.names() + [m.name for m in mem0s]
    per: dict[str, dict[str, list[dict[str, float]]]] = {n: {} for n in names}
    ms: dict[str, list[float]] = {n: [] for n in names}
    for q in rs.queries:
        outs: dict[str, Outcome] = ours.run(q.text, q.user)
        for m in mem0s:
            outs[m.name] = m.run(q.text, q.user)
        for name, out in outs.items():
            per[name].setdefault(q.cat, []).append(score(q.cat, out, q.answers, q.stale))
            if name != "memdesk shuffled":  # it reuses the all-channel call's time
                ms[name].append(out.ms)
    ours.flush()
    return {"names": names, "per": per, "ms": ms}


def print_results(rs: rset.RecallSet, res: dict[str, Any]) -> dict[str, Any]:
    names, per, ms = res["names"], res["per"], res["ms"]
    counts = {c: len(v) for c, v in rs.by_category().items()}
    table: dict[str, Any] = {}
    for cat, figs in CAT_FIGURES.items():
        print(f"\n### {cat} ({counts.get(cat, 0)} queries)")
        print("| system | " + " | ".join(figs) + " |")
        print("|---|" + "---|" * len(figs))
        for name in names:
            s = summarise(per[name].get(cat, []))
            table.setdefault(name, {})[cat] = s
            cells = []
            for f in figs:
                if f in s:
                    cells.append(f"{s[f]:.2f}" if cat == "no_answer" else f"{s[f]:.3f}")
                else:
                    cells.append("—")
            print(f"| {name} | " + " | ".join(cells) + " |")
    print("\n### latency per query (ms)")
    print("| system | p50 | p95 | calls |\n|---|---|---|---|")
    for name in names:
        if ms[name]:
            print(f"| {name} | {percentile(ms[name], 50):.1f} | {percentile(ms[name], 95):.1f} "
                  f"| {len(ms[name])} |")
            table[name]["latency"] = {"p50": percentile(ms[name], 50),
                                      "p95": percentile(ms[name], 95)}
    compare(names, per)
    return table


def compare(names: list[str], per: dict[str, Any], against: str = "Mem0 faiss") -> None:
    """memdesk minus Mem0 in MRR per category, with a paired bootstrap 95 % interval."""
    if against not in names:
        return
    print(f"\n### MRR difference against {against} (mean over the same queries, "
          "95 % paired bootstrap interval)")
    cats = [c for c in CAT_FIGURES if c != "no_answer"]
    print("| system | " + " | ".join(cats) + " |\n|---|" + "---|" * len(cats))
    for name in names:
        if name == against:
            continue
        cells = []
        for c in cats:
            mean, lo, hi = paired_ci([r["MRR"] for r in per[name].get(c, [])],
                                     [r["MRR"] for r in per[against].get(c, [])])
            cells.append(f"{mean:+.2f} [{lo:+.2f}, {hi:+.2f}]")
        print(f"| {name} | " + " | ".join(cells) + " |")


def control_fails(table: dict[str, Any], margin: float = 0.2) -> list[str]:
    """Categories where the shuffled control is not clearly worse than memdesk's best
    system: there, the benchmark cannot tell a ranking from chance."""
    out = []
    for cat in CAT_FIGURES:
        if cat == "no_answer":
            continue
        best = max(v[cat].get("MRR", 0.0) for k, v in table.items()
                   if k.startswith("memdesk") and k != "memdesk shuffled" and cat in v)
        shuffled = table.get("memdesk shuffled", {}).get(cat, {}).get("MRR", 0.0)
        if shuffled > best - margin:
            out.append(f"{cat}: shuffled MRR {shuffled:.2f} vs best {best:.2f}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=2000, help="haystack size (default 2000)")
    ap.add_argument("--set", type=Path, default=rset.SET_PATH, help="labelled set (JSON)")
    ap.add_argument("--no-mem0", action="store_true", help="memdesk systems only")
    ap.add_argument("--no-qdrant", action="store_true", help="Mem0 with faiss only")
    ap.add_argument("--qdrant", action="store_true",
                    help=f"Qdrant local above {QDRANT_MAX:,} memories too (slow: see below)")
    ap.add_argument("--skip-ingest", action="store_true")
    ap.add_argument("--ingest", type=int, default=2000, help="bulk-import size")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--keep", type=Path, help="build in this folder and keep it")
    args = ap.parse_args()

    rs, shape = rset.load(args.set)
    bad = rset.problems(rs, shape)
    if bad:
        print("the labelled set is not sound:\n  " + "\n  ".join(bad))
        return 2
    if args.size < len(rs.memories) + 500:
        print(f"--size must leave room for a haystack: at least {len(rs.memories) + 500}")
        return 2
    qdrant = not args.no_qdrant and (args.qdrant or args.size <= QDRANT_MAX)
    providers = [] if args.no_mem0 else ["faiss"] + (["qdrant"] if qdrant else [])
    if not args.no_mem0 and not qdrant and not args.no_qdrant:
        print(f"Mem0 with Qdrant local is skipped above {QDRANT_MAX:,} memories (its embedded "
              "mode inserted 1,650 rows in 34 s and searched at p50 122 ms at 2,000 here; "
              "--qdrant runs it anyway)")
    if providers:
        try:
            import mem0  # noqa: F401
        except ImportError as exc:
            print(f"mem0ai is not installed ({exc}); pip install -e '.[bench]' or --no-mem0")
            return 2
    import torch

    from memdesk.core.ids import utcnow

    torch.set_num_threads(1)  # both sides: see the module docstring
    end = utcnow().replace(hour=0, minute=0, second=0, microsecond=0)
    print(f"# recall benchmark: {len(rs.queries)} queries, {len(rs.memories)} labelled "
          f"memories, haystack {args.size:,} ({machine()}; load average "
          f"{loadavg()}; {utcnow():%Y-%m-%d %H:%M} UTC)")
    folder = args.keep or Path(tempfile.mkdtemp(prefix="memdesk-recall-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        store = build_store(rs, args.size, folder, end)
        mem0s, mem0_ingest = build_mem0(rs, store, folder, providers, end)
        from recall_systems import Memdesk

        ours = Memdesk(store)
        print(f"memdesk opened as `memdesk mcp` opens it (model loaded, {ours.warmed} users' "
              f"snapshots warmed) in {ours.warm_s:.1f} s")
        t0 = time.perf_counter()
        res = run_queries(rs, ours, mem0s)
        print(f"queries run in {time.perf_counter() - t0:.0f} s; load average "
              f"{loadavg()}")
        table = print_results(rs, res)
        weak = control_fails(table)
        print("\nsanity check: " + ("FAILED, the shuffled control is not clearly worse in "
                                    + "; ".join(weak) if weak else
                                    "the shuffled control scores clearly worse (MRR at least "
                                    "0.2 below memdesk's best) in every category with answers"))
        store.close()
        bulk = agents = None
        if not args.skip_ingest:
            from recall_ingest import agents_path, bulk_import, print_ingest

            bulk = bulk_import(args.ingest, folder, end)
            turns = [(m.user, m.text) for m in rs.memories.values()]
            agents = agents_path(turns, folder)
            print_ingest(bulk, agents, mem0_ingest)
        if args.json:
            args.json.write_text(json.dumps({
                "size": args.size, "machine": machine(),
                "loadavg": loadavg(),
                "at": f"{utcnow():%Y-%m-%d %H:%M}", "table": table,
                "ingest": {"bulk": bulk, "agents": agents, "mem0": mem0_ingest}}, indent=1))
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 1 if weak else 0


if __name__ == "__main__":
    raise SystemExit(main())
