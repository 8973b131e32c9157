"""CLI for curation: ``memdesk sweep start|status|report|decide|undo`` and
``memdesk contradictions list|show|resolve|undo``, over the ``Sweeps`` and
``Contradictions`` services (core/curation/service.py) like the GUI.

Every command takes ``--json`` for scripts and agents; errors follow the exit codes of
app/cli/common.py's EXIT_CODES_HELP.  Sweep ids, group ids, action groups and memory ids may be
given as unique prefixes.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from memdesk.app.cli.common import EXIT_USAGE, JSON_HELP, NOTE_HELP, open_store, parse_range, short
from memdesk.app.cli.learning import picks_json, print_guidance, register_learning
from memdesk.app.cli.shown import cell, json_text
from memdesk.core.errors import NotFoundError
from memdesk.core.store.records import MemoryRecord

if TYPE_CHECKING:  # the services load lazily: a CLI command imports only what it runs
    from memdesk.core.curation.contradictions import GroupDetail
    from memdesk.core.curation.sweep import SweepState
    from memdesk.core.store.memory_store import MemoryStore

SWEEP_ID = "sweep id or a unique prefix of it"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser],
             common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("sweep", parents=[common],
                       help="revaluation sweeps: sample an importance band and re-decide")
    ss = p.add_subparsers(dest="sweep_command", metavar="ACTION", required=True)
    q = ss.add_parser("start", parents=[common], help="sample and store a new sweep")
    q.add_argument("--band", type=parse_range, default=(0.3, 0.49), metavar="LO:HI",
                   help="importance band (default 0.3:0.49)")
    q.add_argument("-n", type=int, default=20, help="memories to sample (default 20)")
    q.add_argument("--user", help="sample only this user's memories")
    q.add_argument("--type", help="sample only memories of this type")
    q.add_argument("--seed", type=int, help="random seed (default: random, stored)")
    q.add_argument("--guided", type=str, default="0", metavar="SHARE",
                   help="share of items picked by the guided model, 0–1 (default 0: "
                        "all uniform; uniform until enough decisions exist)")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_sweep_start)
    register_learning(ss, common)
    q = ss.add_parser("status", parents=[common],
                      help="list sweeps, or show one sweep's items and progress")
    q.add_argument("sweep_id", nargs="?", help=SWEEP_ID)
    q.add_argument("--unfinished", action="store_true", help="only sweeps not finished")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_sweep_status)
    q = ss.add_parser("report", parents=[common], help="raised/lowered/kept/skipped, histogram")
    q.add_argument("sweep_id", help=SWEEP_ID)
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_sweep_report)
    q = ss.add_parser("decide", parents=[common], help="decide the next (or a given) item")
    q.add_argument("sweep_id", help=SWEEP_ID)
    q.add_argument("--item", type=int, help="item number (1-based; default: the next one)")
    g = q.add_mutually_exclusive_group(required=True)
    g.add_argument("--importance", type=str, help="new importance in [0, 1]")
    g.add_argument("--keep", action="store_true", help="keep its importance as it is")
    g.add_argument("--skip", action="store_true", help="decide later (the item stays open)")
    q.add_argument("--note", help=NOTE_HELP)
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_sweep_decide)
    q = ss.add_parser("undo", parents=[common], help="undo the sweep's latest decision")
    q.add_argument("sweep_id", help=SWEEP_ID)
    q.set_defaults(handler=cmd_sweep_undo)

    p = sub.add_parser("contradictions", parents=[common],
                       help="find and resolve contradicting memories")
    cs = p.add_subparsers(dest="contra_command", metavar="ACTION", required=True)
    q = cs.add_parser("list", parents=[common], help="open contradiction groups")
    q.add_argument("--user", help="only this user's groups")
    q.add_argument("--limit", type=int, default=50, help="at most N groups (default 50)")
    q.add_argument("--all", action="store_true", help="include dismissed (keep-all) groups")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_contra_list)
    q = cs.add_parser("show", parents=[common], help="one group's cards and suggestion")
    q.add_argument("group", help="group id from `contradictions list` (or a unique prefix)")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_contra_show)
    q = cs.add_parser("resolve", parents=[common], help="resolve one group (audited)")
    q.add_argument("group", help="group id from `contradictions list` (or a unique prefix)")
    g = q.add_mutually_exclusive_group(required=True)
    g.add_argument("--suggested", action="store_true", help="accept the suggested winner")
    g.add_argument("--keep", metavar="MEMORY_ID", help="keep this memory's value")
    g.add_argument("--keep-all", action="store_true",
                   help="the values coexist: not a contradiction (not raised again)")
    g.add_argument("--edit", metavar="MEMORY_ID", help="edit this memory, then keep it")
    g.add_argument("--merge", action="store_true", help="a new memory supersedes all")
    q.add_argument("--value", help="new value (--edit, --merge)")
    q.add_argument("--text", help="new text (--edit, --merge)")
    q.add_argument("--note", help=NOTE_HELP)
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_contra_resolve)
    q = cs.add_parser("undo", parents=[common],
                      help="undo a resolution by its action group (as `memdesk undo GROUP`)")
    q.add_argument("action_group", help="the id `resolve` printed (or a unique prefix)")
    q.set_defaults(handler=cmd_contra_undo)


def _print_json(data: Any) -> None:
    print(json_text(data, indent=1, default=str))


def _err(msg: str) -> None:
    print(f"memdesk: {msg}", file=sys.stderr)


def _group(store: MemoryStore, ref: str) -> GroupDetail:
    """The contradiction group a full or prefixed id names (dismissed ones included)."""
    from memdesk.core.curation.service import Contradictions

    queue = Contradictions(store)
    return queue.load(queue.group(ref).key)


def _member_id(detail: GroupDetail, ref: str) -> str:
    """A group member's full id from a prefix; unknown ones go on to core's own message."""
    from memdesk.core.store.prefixes import resolve_among

    members = (m.id for c in detail.cards for m in c.same_value)
    try:
        return resolve_among(members, ref, "memory")
    except NotFoundError:
        return ref


# -- sweep ----------------------------------------------------------------------------


def _sweep_json(state: SweepState) -> dict[str, Any]:
    return {
        "sweep_id": state.id, "created_at": state.created_at.isoformat(),
        "band": list(state.band), "n": state.n, "user_id": state.user_id, "type": state.type,
        "seed": state.seed, "method": state.method, "population": state.population,
        "done": state.done, "total": state.total, "finished": state.finished,
        "items": [
            {"item": it.pos + 1, "memory_id": it.memory_id,
             "importance_before": it.importance_before, "decision": it.decision,
             "importance_after": it.importance_after, "note": it.note}
            for it in state.items
        ],
    }


def _print_items(store: MemoryStore, state: SweepState) -> None:
    recs = {r.id: r for r in store.get_many([it.memory_id for it in state.items])}
    print(f"{'item':>4} {'importance':<12} {'decision':<8} {'memory':<32}  text")
    for it in state.items:
        rec: MemoryRecord | None = recs.get(it.memory_id)
        dec = it.decision or "-"
        after = f"{it.importance_after:.2f}" if it.importance_after is not None else "    "
        text = short(rec.text, 60) if rec else "(missing)"
        print(f"{it.pos + 1:>4} {it.importance_before:.2f} → {after} {dec:<8} "
              f"{it.memory_id:<32}  {text}")


def cmd_sweep_start(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Sweeps

    store = open_store(args, create=False)
    sweeps = Sweeps(store)
    state = sweeps.start(args.band, args.n, user=args.user, type=args.type,
                         seed=args.seed, guided=args.guided)
    picks = sweeps.picks(state.id)
    if args.json:
        _print_json(_sweep_json(state) | picks_json(picks))
        return 0
    print(f"sweep {state.id}: {state.total} memories from {state.describe(cell)} "
          f"(seed {state.seed}, {state.method}, population ≈ {state.population or 0:,})")
    print_guidance(sweeps, args.guided, picks)
    _print_items(store, state)
    return 0


def cmd_sweep_status(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Sweeps

    store = open_store(args, create=False)
    sweeps = Sweeps(store)
    if args.sweep_id:
        state = sweeps.get(sweeps.resolve(args.sweep_id))
        if args.json:
            _print_json(_sweep_json(state))
            return 0
        status = "finished" if state.finished else "in progress"
        print(f"sweep {state.id} ({status}): {state.describe(cell)}")
        _print_items(store, state)
        return 0
    rows = sweeps.list(unfinished=args.unfinished)
    if args.json:
        _print_json([
            {"sweep_id": r.id, "created_at": r.created_at.isoformat(), "band": list(r.band),
             "user_id": r.user_id, "type": r.type, "done": r.done, "total": r.total,
             "finished": r.finished_at is not None}
            for r in rows
        ])
        return 0
    if not rows:
        print("no unfinished sweeps" if args.unfinished else "no sweeps yet")
        return 0
    print(f"{'sweep':<32}  {'created':<16}  {'band':<9}  {'reviewed':<9} {'state':<5} "
          "filter")
    for r in rows:
        flt = " ".join(x for x in (r.user_id and f"user={cell(r.user_id)}",
                                   r.type and f"type={r.type}") if x)
        print(f"{r.id:<32}  {r.created_at:%Y-%m-%d %H:%M}  {r.band[0]:.2f}–{r.band[1]:.2f}  "
              f"{r.done:>3} / {r.total:<3} {'done' if r.finished_at else 'open':<5} {flt}")
    return 0


def cmd_sweep_report(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Sweeps

    store = open_store(args, create=False)
    sweeps = Sweeps(store)
    rep = sweeps.report(sweeps.resolve(args.sweep_id))
    if args.json:
        _print_json(rep.to_json())
        return 0
    print(f"sweep {rep.sweep_id}: {rep.total} memories")
    print(f"  rescued (raised) {rep.raised}, lowered {rep.lowered}, kept {rep.kept}, "
          f"skipped {rep.skipped}, not reviewed {rep.undecided}")
    print(f"  mean importance {rep.mean_before:.3f} -> {rep.mean_after:.3f}")
    print("  importance   before  after")
    edges = rep.bin_edges
    for i, (b, a) in enumerate(zip(rep.before, rep.after, strict=True)):
        print(f"  {edges[i]:.1f}–{edges[i + 1]:.1f}    {b:>6} {a:>6}  "
              f"{'#' * b}{' ' * max(0, 12 - b)} | {'#' * a}")
    return 0


def cmd_sweep_decide(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Sweeps

    store = open_store(args, create=False)
    sweeps = Sweeps(store)
    state = sweeps.get(sweeps.resolve(args.sweep_id))
    if args.item is not None:
        if not 1 <= args.item <= state.total:
            raise NotFoundError(f"Sweep {state.id[:8]} has no item {args.item} "
                                f"(its items are 1–{state.total})")
        pos = args.item - 1
    else:
        cur = state.current
        if cur is None:
            _err("every item of this sweep is decided")
            return EXIT_USAGE
        pos = cur.pos
    if args.keep:
        ch = sweeps.decide(state.id, pos, "keep", note=args.note)
    elif args.skip:
        ch = sweeps.decide(state.id, pos, "skip", note=args.note)
    else:
        ch = sweeps.decide(state.id, pos, "revalue", importance=args.importance,
                          note=args.note)
    if args.json:
        _print_json({"item": pos + 1, "memory_id": ch.changes.memory_ids[0],
                     "decision": ch.decision, "events": list(ch.changes.event_ids)})
    else:
        print(f"item {pos + 1}: {ch.decision} ({ch.changes.memory_ids[0]})")
    return 0


def cmd_sweep_undo(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Sweeps

    store = open_store(args, create=False)
    sweeps = Sweeps(store)
    ch = sweeps.undo_decision(sweeps.resolve(args.sweep_id))
    print(f"undone: item {ch.pos + 1} ({ch.decision})")
    return 0


# -- contradictions -------------------------------------------------------------------


def cmd_contra_list(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Contradictions

    store = open_store(args, create=False)
    groups = Contradictions(store).find(user=args.user, include_dismissed=args.all)
    shown = groups[: max(0, args.limit)]
    if args.json:
        _print_json({"total": len(groups), "groups": [g.to_json() for g in shown]})
        return 0
    for g in shown:
        vals = " ≠ ".join(f"{cell(v.display, 40)} ({v.count})" for v in g.values[:4])
        more = f" +{len(g.values) - 4} more" if len(g.values) > 4 else ""
        print(f"{g.id}  {g.kind:<10} {cell(g.user_id)} · {cell(g.entity)}.{cell(g.attribute)}: "
              f"{vals}{more}")
    print(f"{len(groups)} open group(s)" + (f", {len(shown)} shown" if len(shown) < len(groups)
                                            else ""))
    return 0


def _detail_json(d: GroupDetail) -> dict[str, Any]:
    return {
        "group": d.id, "user_id": d.key[0], "entity": d.key[1], "attribute": d.key[2],
        "cards": [
            {"memory_id": c.memory.id, "value": c.memory.value, "text": c.memory.text,
             "type": c.memory.type, "confidence": c.memory.confidence,
             "importance": c.memory.importance, "created_at": c.memory.created_at.isoformat(),
             "source_session": c.memory.source_session, "same_value": len(c.same_value),
             "newest": c.newest, "oldest": c.oldest,
             "highest_confidence": c.highest_confidence}
            for c in d.cards
        ],
        "suggestion": None if d.suggestion is None else {
            "keep": d.suggestion.winner_id, "reason": d.suggestion.reason,
            "disagree": d.suggestion.disagree},
    }


def cmd_contra_show(args: argparse.Namespace) -> int:

    store = open_store(args, create=False)
    d = _group(store, args.group)
    if args.json:
        _print_json(_detail_json(d))
        return 0
    print(f"{d.id}: {cell(d.key[0])} · {cell(d.key[1])}.{cell(d.key[2])}")
    for i, c in enumerate(d.cards, 1):
        marks = [m for m, on in (("newest", c.newest), ("oldest", c.oldest),
                                 ("highest confidence", c.highest_confidence)) if on]
        print(f" [{i}] {cell(c.memory.value, 60):<20} conf {c.memory.confidence:.2f} imp "
              f"{c.memory.importance:.2f} {c.memory.created_at:%Y-%m-%d} {c.memory.id} "
              f"x{len(c.same_value)} {', '.join(marks)}")
        print(f"     {short(c.memory.text, 90)}")
    if d.suggestion:
        print(f"suggested: {cell(d.suggestion.reason)}")
    return 0


def cmd_contra_resolve(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Contradictions

    store = open_store(args, create=False)
    queue = Contradictions(store)
    d = _group(store, args.group)
    if args.suggested:
        res = queue.suggested(d, note=args.note)
    elif args.keep:
        res = queue.keep(d, _member_id(d, args.keep), note=args.note)
    elif args.keep_all:
        res = queue.keep_all(d, note=args.note)
    elif args.edit:
        res = queue.edit(d, _member_id(d, args.edit), value=args.value, text_=args.text,
                         note=args.note)
    else:
        if not args.text or not args.value:
            _err("--merge needs --text and --value")
            return EXIT_USAGE
        res = queue.merge(d, text_=args.text, value=args.value, note=args.note)
    if args.json:
        _print_json({"action": res.action, "action_group": res.group_id,
                     "winner": res.winner_id, "events": list(res.changes.event_ids)})
    else:
        print(f"{res.action}: {len(res.changes.event_ids)} change(s); undo with "
              f"`memdesk contradictions undo {res.group_id}`")
    return 0


def cmd_contra_undo(args: argparse.Namespace) -> int:
    from memdesk.core.curation.service import Contradictions

    store = open_store(args, create=False)
    ch = Contradictions(store).undo(args.action_group)
    print(f"undone: {len(ch.event_ids)} change(s)")
    return 0
