"""Delta-memory commands: ``memdesk snapshot``, ``memdesk diff A B``, ``memdesk snapshots``.

``snapshot`` composes a memory set for a goal from a JSON file of candidates and/or the
store's own memories (the ``database`` source), saves it and prints the diff from the
goal's previous snapshot.  The JSON is a list of candidates, an object mapping source
names to lists, or ``{"goal", "query", "candidates"}``; candidates look like
``{"source", "text", "confidence", "relevance"}`` (optional ``raw_score``, ``id``,
``provenance``, ``entity``/``attribute``/``value``) or a search hit
``{"hit_id", "title", "summary", "score"}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memdesk.app.cli.common import EXIT_USAGE, JSON_HELP, open_store
from memdesk.app.cli.shown import cell, json_text
from memdesk.core.errors import ValidationError


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("snapshot", parents=[common],
                       help="compose and save a delta-memory snapshot for a goal")
    p.add_argument("--goal", help="what the memory set is for (or 'goal' in the JSON)")
    p.add_argument("--query", help="the query; the database source searches the store with it")
    p.add_argument("--candidates", type=Path, metavar="FILE",
                   help="JSON file of candidates ('-' reads standard input)")
    p.add_argument("--no-store", action="store_true",
                   help="do not add candidates from the store's own memories")
    p.add_argument("--user", help="limit store candidates to this user")
    p.add_argument("--label", default="", help="a name for the snapshot")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(handler=cmd_snapshot)

    p = sub.add_parser("diff", parents=[common], help="diff two delta-memory snapshots")
    p.add_argument("before", help="snapshot id (or a unique prefix of it)")
    p.add_argument("after", help="a later snapshot of the same goal (id or prefix)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.add_argument("--all", action="store_true", help="also list unchanged candidates")
    p.add_argument("--across-goals", action="store_true",
                   help="compare snapshots of different goals anyway (health, attribution "
                        "and decision then describe a change of goal, not drift)")
    p.set_defaults(handler=cmd_diff)

    p = sub.add_parser("snapshots", parents=[common], help="list delta-memory snapshots")
    p.add_argument("--goal", help="only snapshots of this goal")
    p.add_argument("--limit", type=int, default=50, help="at most N snapshots (default 50)")
    p.add_argument("--goals", action="store_true", help="list goals with snapshot counts")
    p.add_argument("--queue", action="store_true", help="list the drift review queue")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(handler=cmd_snapshots)


def _read_json(path: Path) -> Any:
    try:
        raw = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValidationError("candidates", f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ValidationError("candidates", f"{path} is not UTF-8 text") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValidationError("candidates", f"{path} is not valid JSON: {exc}") from None
    except RecursionError:  # the decoder recurses once per level of nesting
        raise ValidationError("candidates", f"{path} is nested too deeply") from None


def parse_candidates(data: Any) -> tuple[list[Any], dict[str, Any]]:
    """(candidates, extra fields like goal/query) from any of the accepted JSON shapes."""
    from memdesk.core.delta.compose import candidate_from_dict

    extra: dict[str, Any] = {}
    if isinstance(data, dict) and "candidates" in data:
        extra = {k: data[k] for k in ("goal", "query", "label") if isinstance(data.get(k), str)}
        data = data["candidates"]
    out = []
    if isinstance(data, list):
        for i, item in enumerate(data):
            try:
                out.append(candidate_from_dict(item))
            except ValidationError as exc:
                raise ValidationError("candidates", f"item {i}: {exc}") from None
    elif isinstance(data, dict):
        for source, items in data.items():
            if not isinstance(items, list):
                raise ValidationError("candidates", f"{source!r} must map to a list")
            for i, item in enumerate(items):
                try:
                    out.append(candidate_from_dict(item, source=source))
                except ValidationError as exc:
                    raise ValidationError("candidates", f"{source} item {i}: {exc}") from None
    else:
        raise ValidationError("candidates", "expected a list or an object of candidates")
    return out, extra


def short(text: str, n: int = 64) -> str:
    """A goal or a candidate's text for one terminal line (visible, cut)."""
    return cell(text, n)


def print_diff(d: Any, *, show_all: bool = False) -> None:
    from memdesk.core.delta.health import formula_text

    print(f"dominant source: {d.before_dominant_source} → {d.after_dominant_source}"
          f"{'  (changed)' if d.changed_dominant_source else ''}")
    print(f"aggregate delta: {d.aggregate_score_delta:+.3f}")
    print(f"primary cause:   {d.attribution.primary_cause_source or '-'}")
    if d.attribution.source_influence:
        print("influence:       " + ", ".join(
            f"{s} {v:.2f}" for s, v in sorted(d.attribution.source_influence.items(),
                                              key=lambda kv: -kv[1])))
    h = d.health
    print(f"health:          {h.status.value}  (dominance {h.dominance_score:.3f}, volatility "
          f"{h.volatility_score:.3f}, drift {h.drift_score:.3f}, contradiction "
          f"{h.contradiction_score:.3f}, confidence {h.confidence_score:.3f})")
    print(f"                 {formula_text(h)}")
    if h.warnings:
        print(f"warnings:        {', '.join(h.warnings)}")
    dec = d.decision
    line = f"decision:        {dec.action.value} — {dec.reason}"
    if dec.source_to_review:
        line += f" (review: {dec.source_to_review})"
    if dec.recommended_weight_adjustments:
        line += " " + ", ".join(f"{s} {v:+.2f}"
                                for s, v in dec.recommended_weight_adjustments.items())
    print(line)
    b = d.bias
    print(f"search bias:     depth {b.depth_hint}, rerun {b.should_rerun}, stop {b.should_stop}"
          f"; prefer {list(b.preferred_sources)}, suppress {list(b.suppressed_sources)}"
          f", expand {list(b.query_expansions)}")
    rows = d.candidate_deltas if show_all else d.contribution_deltas
    if rows:
        print()
    for c in rows:
        print(f"{c.change_type.value:<12} {cell(c.source):<12} {c.delta:+.3f}  {short(c.text)}")
    hidden = len(d.candidate_deltas) - len(rows)
    if hidden:
        print(f"({hidden} unchanged candidates not shown; --all lists them)")


def cmd_snapshot(args: argparse.Namespace) -> int:
    from memdesk.core.delta.service import DeltaMemory

    candidates: list[Any] = []
    extra: dict[str, Any] = {}
    if args.candidates is not None:
        candidates, extra = parse_candidates(_read_json(args.candidates))
    goal = args.goal or extra.get("goal")
    if not goal:
        print("memdesk: snapshot needs --goal (or 'goal' in the JSON)", file=sys.stderr)
        return EXIT_USAGE
    query = args.query if args.query is not None else extra.get("query")
    if args.candidates is None and (args.no_store or not query):
        print("memdesk: nothing to compose: give --candidates FILE and/or --query for the "
              "store's memories", file=sys.stderr)
        return EXIT_USAGE
    store = open_store(args)
    dm = DeltaMemory(store)
    saved = dm.snapshot(goal, query, candidates, use_database=not args.no_store,
                        user_id=args.user, label=args.label or extra.get("label", ""))
    ms = saved.memory_set
    if args.json:
        out = {
            "id": ms.id, "goal": ms.goal, "query": ms.query, "label": ms.label,
            "created_at": ms.created_at.isoformat(), "aggregate_score": ms.aggregate_score,
            "dominant_source": ms.dominant_source, "dominance_ratio": ms.dominance_ratio,
            "candidates": len(ms.contributions),
            "sources": {r.source: {"kept": r.kept, "weighted_total": r.weighted_total,
                                   "share": r.share} for r in ms.source_reports},
            "diff_id": saved.diff_id,
            "diff": saved.diff.to_json() if saved.diff else None,
        }
        print(json_text(out, indent=1))
        return 0
    ratio = f"{ms.dominance_ratio:.3f}" if ms.dominance_ratio is not None else "-"
    print(f"snapshot {ms.id}: {len(ms.contributions)} candidates, aggregate "
          f"{ms.aggregate_score:.3f}, dominant {ms.dominant_source or '-'} ({ratio})")
    if saved.diff is None:
        print("first snapshot of this goal: nothing to compare with")
    else:
        print(f"diff from {saved.diff.before_id} (stored as #{saved.diff_id}):")
        print_diff(saved.diff)
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from memdesk.core.delta.service import DeltaMemory

    store = open_store(args, create=False)
    dm = DeltaMemory(store)
    before, after = dm.load(args.before), dm.load(args.after)
    # A diff measures how one goal's memory set drifted; across goals every candidate
    # "changes" and the health verdict would be noise presented as a finding.
    if before.goal != after.goal:
        what = (f"{before.id[:12]} is for goal {before.goal!r} and {after.id[:12]} for goal "
                f"{after.goal!r}")
        if not args.across_goals:
            print(f"memdesk: {what}; a diff compares snapshots of one goal. Pass "
                  "--across-goals to compare them anyway.", file=sys.stderr)
            return EXIT_USAGE
        print(f"memdesk: warning: {what}; the diff describes a change of goal, not drift",
              file=sys.stderr)
    d = dm.diff(before.id, after.id)
    if args.json:
        print(json_text(d.to_json(), indent=1))
        return 0
    print(f"diff {d.before_id} → {d.after_id}")
    print_diff(d, show_all=args.all)
    return 0


def cmd_snapshots(args: argparse.Namespace) -> int:
    from memdesk.core.delta.service import DeltaMemory

    if args.limit < 1:
        print("memdesk: --limit must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    store = open_store(args, create=False)
    dm = DeltaMemory(store)
    if args.goals:
        rows = dm.goals()
        if args.json:
            print(json_text([{"goal": g, "snapshots": n, "latest": t.isoformat()}
                              for g, n, t in rows], indent=1))
            return 0
        if not rows:
            print("no snapshots yet")
            return 0
        print(f"{'snapshots':>9}  {'latest':<16}  goal")
        for g, n, t in rows:
            print(f"{n:>9}  {t:%Y-%m-%d %H:%M}  {cell(g)}")
        return 0
    if args.queue:
        recs = dm.queue(goal=args.goal, limit=args.limit)
        if args.json:
            print(json_text([{
                "id": r.id, "goal": r.goal, "before": r.before_id, "after": r.after_id,
                "created_at": r.created_at.isoformat(), "status": r.status, "risk": r.risk,
                "action": r.action, "primary_cause": r.primary_cause, "review": r.review,
            } for r in recs], indent=1))
            return 0
        if not recs:
            print("no diffs waiting for review")
            return 0
        print(f"{'diff':<6} {'created':<16} {'health':<10} {'risk':<5} {'action':<11} "
              f"{'cause':<12} goal")
        for r in recs:
            print(f"#{r.id:<5} {r.created_at:%Y-%m-%d %H:%M} {r.status:<10} {r.risk:.3f} "
                  f"{r.action:<11} {r.primary_cause or '-':<12} {short(r.goal, 40)}")
        return 0
    infos = dm.snapshots(goal=args.goal, limit=args.limit)
    if args.json:
        print(json_text([{
            "id": i.id, "goal": i.goal, "query": i.query, "label": i.label,
            "created_at": i.created_at.isoformat(), "aggregate_score": i.aggregate_score,
            "dominant_source": i.dominant_source, "dominance_ratio": i.dominance_ratio,
            "candidates": i.item_count, "health": i.status, "action": i.action,
        } for i in infos], indent=1))
        return 0
    if not infos:
        print("no snapshots" + (f" for goal {args.goal!r}" if args.goal else " yet"))
        return 0
    print(f"{'snapshot':<12}  {'created':<16}  {'cands':>5}  {'score':>6}  "
          f"{'dominant':<12} {'ratio':<4}  {'health':<10} goal")
    for i in infos:
        ratio = f"{i.dominance_ratio:.2f}" if i.dominance_ratio is not None else "  - "
        print(f"{i.id[:12]}  {i.created_at:%Y-%m-%d %H:%M}  {i.item_count:>5}  "
              f"{i.aggregate_score:6.3f}  {i.dominant_source or '-':<12} {ratio}  "
              f"{i.status or 'first':<10} {short(i.goal, 40)}")
    return 0
