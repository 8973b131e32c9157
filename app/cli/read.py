"""``memdesk retrieve | maintain | eval``: the read path for scripts and agents.

``retrieve`` prints ranked memories plus injected preferences (``--json`` for agents:
``results``, ``preferences``, ``dropped``); ``maintain`` decays scores and links
corrections; ``eval dispositional`` runs the preference-recall fixtures with the
ablation (injection off).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from memdesk.app.cli.common import EXIT_ERROR, EXIT_USAGE, JSON_HELP, err, open_store, short
from memdesk.app.cli.shown import json_text

if TYPE_CHECKING:
    from memdesk.core.read.config import ReadConfig

# The fixtures live in the source tree's tests/ (an editable install finds them).
FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "data" / "dispositional"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser],
             common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("retrieve", parents=[common],
                       help="what an agent would recall for QUERY (ranked, with preferences)")
    p.add_argument("query", metavar="QUERY", help="the prompt, as the agent would send it")
    p.add_argument("--user", required=True, dest="user_id",
                   help="whose memories are searched")
    p.add_argument("--k", type=int, default=10, help="results to return (default 10)")
    p.add_argument("--channels", default=None, metavar="fts,vector,graph",
                   help="isolate channels (injection is then skipped)")
    p.add_argument("--no-inject", action="store_true", help="do not append preferences")
    p.add_argument("--no-floor", action="store_true",
                   help="always return --k results: fill with the nearest memories below "
                        "the relevance bar (marked 'below floor')")
    p.add_argument("--threshold", type=float, default=None,
                   help="minimum confidence (default 0.4)")
    p.add_argument("--rerank-model", default=None,
                   help="rerank with this Ollama model when a server is reachable")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(handler=cmd_retrieve)

    p = sub.add_parser("maintain", parents=[common],
                       help="decay scores and link corrections to what they correct")
    p.add_argument("--no-decay", action="store_true",
                   help="do not recompute decay scores")
    p.add_argument("--no-link", action="store_true",
                   help="do not link corrections to what they correct")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(handler=cmd_maintain)

    p = sub.add_parser("eval", help="evaluations of the read path")
    esub = p.add_subparsers(dest="eval_command", metavar="SUITE", required=True)
    q = esub.add_parser("dispositional",
                        help="21 dispositional-memory fixtures, with the injection ablation")
    q.add_argument("--fixtures", type=Path, default=FIXTURES, metavar="DIR",
                   help="a folder of fixture files (default: the 21 in the source "
                        "tree's tests/data/dispositional)")
    q.add_argument("--trials", type=int, default=3,
                   help="runs per fixture (default 3)")
    q.add_argument("--no-ablation", action="store_true",
                   help="skip the second run with preference injection turned off")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(handler=cmd_eval)


def _config(args: argparse.Namespace) -> ReadConfig:
    from memdesk.core.read.config import ReadConfig

    cfg = ReadConfig()
    if getattr(args, "threshold", None) is not None:
        from memdesk.core.taxonomy import check_unit

        cfg = cfg.with_(confidence_threshold=check_unit("threshold", args.threshold))
    if getattr(args, "rerank_model", None):
        cfg = cfg.with_(rerank_model=args.rerank_model)
    return cfg


def cmd_retrieve(args: argparse.Namespace) -> int:
    from memdesk.core.read.retriever import Retriever

    store = open_store(args, create=False)
    r = Retriever(store, _config(args))
    res = r.retrieve(args.query, args.user_id, k=args.k, channels=args.channels,
                     inject=not args.no_inject, floor=not args.no_floor)
    r.flush()
    failed = r.recorder.last_exception
    if failed is not None:  # e.g. a read-only store: exit 3 with the store's message
        raise failed
    if args.json:
        print(json_text(res.to_json(), indent=1))
        return 0
    for note in res.notes:
        err(f"note: {note}")
    for i, h in enumerate(res.results, 1):
        ranks = " ".join(f"{c}#{h.ranks[c]}" for c in ("fts", "vector", "graph") if c in h.ranks)
        same = f"  (+{len(h.same_as)} same)" if h.same_as else ""
        below = "  (below floor)" if h.below_floor else ""
        print(f"{i:>2}. {h.score:.3f}  {h.type:<10} {short(h.text)}  [{ranks}]  {h.id}{same}"
              f"{below}")
    if not res.results:
        print("(no memory relates to this query)")
    if res.preferences:
        print("Active preferences:")
        for p in res.preferences:
            print(f"  - {short(p.text)}  {p.id}")
    floor = sum(d.reason == "floor" for d in res.dropped)
    div = sum(d.reason == "diversity" for d in res.dropped)
    print(f"({floor} below the relevance floor, {div} held back by the two-per-week rule; "
          "--json lists them)")
    return 0


def cmd_maintain(args: argparse.Namespace) -> int:
    from memdesk.core.read.maintain import maintain

    store = open_store(args, create=False)

    def progress(step: str, frac: float) -> None:
        if sys.stderr.isatty():
            print(f"\r{frac:4.0%} {step:<40}", end="", file=sys.stderr, flush=True)

    rep = maintain(store, do_decay=not args.no_decay, link=not args.no_link, progress=progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    if args.json:
        print(json.dumps(rep.to_json(), indent=1))
        return 0
    print(f"updated {rep.decayed:,} decay scores; linked {len(rep.links):,} corrections "
          f"in {rep.seconds:.1f}s")
    if rep.held:
        print(f"held {len(rep.held):,} memories for review instead (they would overrule what "
              "an operator curated, or retire many memories at once): memdesk review list")
    if rep.group_id:
        print(f"the links are one audited group, {rep.group_id} (each link: memdesk undo EVENT)")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from memdesk.core.read import evaluation as ev

    if args.trials < 1:
        err("--trials must be at least 1")
        return EXIT_USAGE
    if not args.fixtures.is_dir():
        err(f"no fixture folder at {args.fixtures}; pass --fixtures DIR")
        return EXIT_USAGE
    fixtures = ev.load_fixtures(args.fixtures)

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{done}/{total}", end="", file=sys.stderr, flush=True)

    full = ev.run(fixtures, trials=args.trials, progress=progress)
    ablation = None if args.no_ablation else ev.run(fixtures, inject=False,
                                                    trials=args.trials, progress=progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    if args.json:
        print(json.dumps(ev.to_json(full, ablation), indent=1))
    else:
        print(f"dispositional evaluation: {len(fixtures)} fixtures x {args.trials} trials")
        print("\n".join(ev.report_lines(full, ablation)))
    return 0 if full.counts().f1 == 1.0 else EXIT_ERROR
