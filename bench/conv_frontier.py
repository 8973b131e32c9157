"""The relevance floor on conversations: every candidate setting, one store, one run.

    nice -n 5 .venv/bin/python bench/conv_frontier.py [--file locomo10.json]
        [--z 2.5,3,3.5,4.5] [--best-z 1.5,2,2.75] [--keyword-share 0.34,0.5]
        [--z-episode 0.75,1.0]

Builds the "turns imported" store of bench_conversations.py once, then asks every
question through the retriever (as the MCP ``retrieve`` tool does, k = 10, a dry run)
under each floor setting, and prints per setting: hit@10 per category as a share of the
same store's ``floor=False`` hit@10, MRR per category, and the results returned for
questions without an answer.  The question it answers: which floor keeps what the
ranking finds (≥ 0.95 of ``floor=False`` in every category) while questions without an
answer get at most 3 results on average?  The default the product ships was chosen
from this table (docs/retrieval.md).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import conv_locomo as cl
from conv_metrics import score, summarise
from conv_systems import build_imported, turn_key, user_of

DEFAULT_FILE = Path(__file__).parent / "data" / "conversations.json"


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def ask_all(store: Any, to_turns: Any, ds: cl.Dataset, cfg: Any,
            floor: bool = True) -> dict[str, dict[str, float]]:
    from memdesk.core.read.retriever import Retriever

    retriever = Retriever(store, cfg)
    per: dict[str, list[dict[str, float]]] = {}
    for c in ds.conversations:
        user = user_of(c)
        for q in c.questions:
            r = retriever.retrieve(q.text, user, 10, dry_run=True, floor=floor)
            turns = [t for h in r.results for t in to_turns(h)]
            evidence = [turn_key(c, e) for e in q.evidence]
            per.setdefault(q.category, []).append(
                score(q.category, turns, evidence, len(r.results)))
    return {cat: summarise(rows) for cat, rows in per.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--z", type=floats, default=floats("2.5,3,3.5,4.5"))
    ap.add_argument("--best-z", type=floats, default=floats("1.5,2,2.75"))
    ap.add_argument("--keyword-share", type=floats, default=floats("0.5"))
    ap.add_argument("--max-per-week", type=int, default=None)
    ap.add_argument("--z-episode", type=floats, default=None,
                    help="bars for episodes (floor_z_episode) to try; default: the shipped one")
    args = ap.parse_args()
    from memdesk.core.read.config import ReadConfig

    ds = cl.load(args.file)
    with tempfile.TemporaryDirectory(prefix="conv-frontier-") as tmp:
        store, to_turns, _timing = build_imported(ds.conversations, Path(tmp))
        base = ReadConfig(record=False)
        if args.max_per_week is not None:
            base = replace(base, max_per_week=args.max_per_week)
        off = ask_all(store, to_turns, ds, base, floor=False)
        cats = [c for c in cl.ORDER if c in off and c != "no_answer"]
        print("floor=False hit@10: " + ", ".join(f"{c} {off[c]['hit@10']:.3f}" for c in cats))
        print("| z | best z | kw | episode z | "
              + " | ".join(f"{c} hit@10 share / MRR" for c in cats)
              + " | no-answer results | worst share |")
        print("|---" * (len(cats) + 6) + "|")
        z_eps = args.z_episode or [base.floor_z_episode]
        for z, bz, kw, ze in itertools.product(args.z, args.best_z, args.keyword_share, z_eps):
            if bz > z:
                continue
            cfg = replace(base, floor_z=z, floor_best_z=bz, floor_keyword_share=kw,
                          floor_z_episode=ze)
            t = ask_all(store, to_turns, ds, cfg)
            shares = [t[c]["hit@10"] / off[c]["hit@10"] if off[c]["hit@10"] else 1.0
                      for c in cats]
            cells = [f"{s:.3f} / {t[c]['MRR']:.3f}" for s, c in zip(shares, cats, strict=True)]
            print(f"| {z} | {bz} | {kw} | {ze} | " + " | ".join(cells)
                  + f" | {t.get('no_answer', {}).get('returned', 0):.2f} | {min(shares):.3f} |",
                  flush=True)
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
