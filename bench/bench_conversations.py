"""Conversational recall: memdesk (turns imported; the agents' path) against Mem0 and
two controls, on any file in the public LoCoMo layout.

    .venv/bin/pip install -e '.[bench]'            # mem0ai, faiss-cpu
    nice -n 5 .venv/bin/python bench/bench_conversations.py [--file locomo10.json]
        [--no-mem0] [--limit-conversations N] [--json figures.json] [--dump q.jsonl]

Without ``--file`` it runs the shipped set (bench/data/conversations.json, built by
bench/conv_set.py).  The file is read by bench/conv_locomo.py (a malformed one gets a
message saying where); the systems are bench/conv_systems.py's, all in this one
process on one torch thread; the figures bench/conv_metrics.py's, per category
(single-hop, multi-hop, temporal, open-domain; no-answer: results returned only):
hit@5, hit@10, recall@10, MRR, results returned; then each system's ingest time and
retrieve p50/p95.  The run fails (exit 1) when the shuffled control is not clearly
worse than the best system (the benchmark could not tell a ranking from chance).
The issue's targets are checked and printed, not enforced.
"""

from __future__ import annotations

import argparse
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

import conv_locomo as cl
from common import machine
from conv_metrics import control_fails, percentile, score, summarise

DEFAULT_FILE = Path(__file__).parent / "data" / "conversations.json"
FIGS = ("hit@5", "hit@10", "recall@10", "MRR", "returned")


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(ds: cl.Dataset, folder: Path, mem0: bool, dump: Any = None) -> dict[str, Any]:
    from conv_systems import (
        Mem0System,
        MemdeskSystems,
        build_agents,
        build_imported,
        turn_key,
        user_of,
    )

    convs = ds.conversations
    ingest: dict[str, dict[str, Any]] = {}
    store, to_turns, ingest["memdesk imported"] = build_imported(convs, folder)
    print(f"memdesk, turns imported: {ingest['memdesk imported']['turns']:,} turns, import "
          f"{ingest['memdesk imported']['import_s']:.1f} s, embed "
          f"{ingest['memdesk imported']['embed_s']:.1f} s, maintain "
          f"{ingest['memdesk imported']['maintain_s']:.1f} s", flush=True)
    astore, a_turns, ingest["memdesk agents"] = build_agents(convs, folder)
    a = ingest["memdesk agents"]
    print(f"memdesk, agents' path: {a['turns']:,} turns queued in {a['queued_s']:.1f} s, all "
          f"jobs done in {a['total_s']:.1f} s ({a['memories']:,} memories, {a['failed']} "
          f"failed; a turn's own time passed to the façade: "
          f"{'yes' if a['turn_time_passed'] else 'no, it takes none today'})", flush=True)
    systems: dict[str, Any] = {
        "imported": MemdeskSystems(store, to_turns, controls=True),
        "agents": MemdeskSystems(astore, a_turns, controls=False),
    }
    m0 = None
    if mem0:
        m0 = Mem0System(folder)
        ingest["Mem0"] = m0.fill(convs)
        print(f"Mem0: {ingest['Mem0']['turns']:,} turns added one by one in "
              f"{ingest['Mem0']['total_s']:.1f} s", flush=True)
    names = {("imported", "default"): "memdesk imported",
             ("imported", "floor off"): "memdesk imported floor=false",
             ("imported", "plain cosine"): "plain cosine",
             ("imported", "shuffled"): "shuffled",
             ("agents", "default"): "memdesk agents",
             ("agents", "floor off"): "memdesk agents floor=false"}
    per: dict[str, dict[str, list[dict[str, float]]]] = {}
    ms: dict[str, list[float]] = {}
    t0 = time.perf_counter()
    for c in convs:
        user = user_of(c)
        for q in c.questions:
            answers = {}
            for sname, sysm in systems.items():
                for variant, ans in sysm.ask(q.text, user).items():
                    answers[names[(sname, variant)]] = ans
            if m0 is not None:
                answers["Mem0"] = m0.ask(q.text, user)
            evidence = [turn_key(c, e) for e in q.evidence]
            line: dict[str, Any] = {"id": q.id, "cat": q.category, "question": q.text,
                                    "evidence": list(q.evidence), "systems": {}}
            for name, ans in answers.items():
                figs = score(q.category, ans.turns, evidence, ans.returned)
                per.setdefault(name, {}).setdefault(q.category, []).append(figs)
                if name != "shuffled":
                    ms.setdefault(name, []).append(ans.ms)
                line["systems"][name] = {"turns": [t.split("|", 1)[1] for t in ans.turns[:10]],
                                         **figs}
            if dump is not None:
                dump.write(json.dumps(line, ensure_ascii=False) + "\n")
    for sysm in systems.values():
        sysm.flush()
    print(f"{ds.questions():,} questions asked of {len(per)} systems in "
          f"{time.perf_counter() - t0:.0f} s; load average {loadavg()}", flush=True)
    store.close()
    astore.close()
    table = {n: {cat: summarise(rows) for cat, rows in cats.items()} for n, cats in per.items()}
    latency = {n: {"p50": percentile(v, 50), "p95": percentile(v, 95), "calls": len(v)}
               for n, v in ms.items()}
    return {"table": table, "latency": latency, "ingest": ingest}


def print_tables(ds: cl.Dataset, res: dict[str, Any]) -> None:
    table = res["table"]
    counts = {k: sum(q.category == k for c in ds.conversations for q in c.questions)
              for k in cl.ORDER}
    for cat in cl.ORDER:
        if not counts[cat]:
            continue
        figs = ("returned",) if cat == "no_answer" else FIGS
        label = "no-answer: results returned (fewer is better)" if cat == "no_answer" else cat
        print(f"\n### {label} ({counts[cat]} questions)")
        print("| system | " + " | ".join(figs) + " |\n|---|" + "---|" * len(figs))
        for name, cats in table.items():
            s = cats.get(cat, {})
            cells = [f"{s[f]:.2f}" if f == "returned" else f"{s[f]:.3f}" for f in figs]
            print(f"| {name} | " + " | ".join(cells) + " |")
    print("\n### ingest and retrieve")
    print("| system | ingest | retrieve p50 / p95 (ms) |\n|---|---|---|")
    ingest = res["ingest"]
    for name, lat in res["latency"].items():
        key = ("memdesk imported" if name.startswith(("memdesk imported", "plain"))
               else "memdesk agents" if name.startswith("memdesk agents") else "Mem0")
        ing = ingest.get(key, {})
        cell = (f"{ing['turns']:,} turns in {ing['total_s']:.1f} s "
                f"({ing['turns'] / ing['total_s']:.1f}/s)") if ing else "—"
        print(f"| {name} | {cell} | {lat['p50']:.1f} / {lat['p95']:.1f} |")


def targets(res: dict[str, Any]) -> list[str]:
    """The issue's targets, checked: (met?, what) lines."""
    t = res["table"]
    out = []
    d, f, m = t.get("memdesk imported", {}), t.get("memdesk imported floor=false", {}), \
        t.get("Mem0")
    for cat in cl.ORDER:
        if cat == "no_answer" or cat not in d:
            continue
        ok = d[cat]["hit@10"] >= 0.95 * f[cat]["hit@10"]
        out.append(f"{'met' if ok else 'NOT met'}: {cat} default hit@10 "
                   f"{d[cat]['hit@10']:.3f} ≥ 0.95 × floor=false {f[cat]['hit@10']:.3f}")
        if m is not None and cat in m:
            for fig in ("hit@10", "MRR"):
                ok = d[cat][fig] >= m[cat][fig]
                out.append(f"{'met' if ok else 'NOT met'}: {cat} default {fig} "
                           f"{d[cat][fig]:.3f} ≥ Mem0 {m[cat][fig]:.3f}")
    if "no_answer" in d:
        r = d["no_answer"]["returned"]
        out.append(f"{'met' if r <= 3 else 'NOT met'}: no-answer results {r:.2f} ≤ 3")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE,
                    help="a conversational set in the LoCoMo layout (default: the shipped set)")
    ap.add_argument("--no-mem0", action="store_true", help="memdesk and the controls only")
    ap.add_argument("--limit-conversations", type=int, metavar="N",
                    help="only the first N conversations")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--dump", type=Path, help="one JSON line per question, every system")
    ap.add_argument("--keep", type=Path, help="build the stores in this folder and keep it")
    args = ap.parse_args()
    try:
        ds = cl.load(args.file)
    except cl.FormatError as exc:
        print(f"cannot read the conversations: {exc}")
        return 2
    if args.limit_conversations is not None:
        if args.limit_conversations < 1:
            print("--limit-conversations must be at least 1")
            return 2
        ds.conversations = ds.conversations[: args.limit_conversations]
    if not args.no_mem0:
        try:
            import mem0  # noqa: F401
        except ImportError as exc:
            print(f"mem0ai is not installed ({exc}); pip install -e '.[bench]' or --no-mem0")
            return 2
    import torch

    from memdesk.core.ids import utcnow

    torch.set_num_threads(1)  # both sides encode at the same speed
    unres = sum(c.unresolved_evidence for c in ds.conversations)
    unsc = sum(c.unscorable for c in ds.conversations)
    started = utcnow()
    print(f"# conversational benchmark: {args.file.name}, {len(ds.conversations)} "
          f"conversations, {ds.turns():,} turns, {ds.questions():,} questions"
          + (f" ({unsc} set aside: their evidence names no turn; {unres} evidence ids "
             "unresolved)" if unsc or unres else "")
          + f" ({machine()}; load average {loadavg()}; {started:%Y-%m-%d %H:%M} UTC)",
          flush=True)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="memdesk-conv-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        if args.dump:
            with args.dump.open("w", encoding="utf-8") as dump:
                res = run(ds, folder, not args.no_mem0, dump)
        else:
            res = run(ds, folder, not args.no_mem0)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    print_tables(ds, res)
    print("\n### targets (the issue's)")
    for line in targets(res):
        print(f"- {line}")
    weak = control_fails(res["table"])
    print("\nsanity check: " + ("FAILED, the shuffled control is not clearly worse in "
                                + "; ".join(weak) if weak else
                                "the shuffled control's hit@10 is at least 0.2 below the "
                                "best system's in every category with answers"))
    print(f"finished {utcnow():%Y-%m-%d %H:%M} UTC; load average {loadavg()}")
    if args.json:
        args.json.write_text(json.dumps({
            "file": str(args.file), "machine": machine(), "started": f"{started:%Y-%m-%d %H:%M}",
            "loadavg_end": loadavg(), **res}, indent=1, default=str))
    return 1 if weak else 0


if __name__ == "__main__":
    sys.exit(main())
