"""CLI for the duplicates queue: ``memdesk duplicates list|merge|dismiss|undo`` over the
``Duplicates`` façade (core/curation/duplicates.py), like the GUI's Duplicates view.

A merge or a dismissal is one action group: ``duplicates undo GROUP`` takes all of it
back; each audit event it wrote can also be taken back alone with ``memdesk undo N``.
``duplicates threshold [VALUE]`` shows or stores the operator's threshold: the one
``list`` uses by default and the job worker flags new writes with (audited, undoable).
Memory ids may be given as unique prefixes; errors follow app/cli/common.py's EXIT_CODES_HELP.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from memdesk.app.cli.common import JSON_HELP, NOTE_HELP, memory_id, open_store, short
from memdesk.app.cli.shown import cell, json_text

if TYPE_CHECKING:  # imported when a command runs: start-up stays fast
    from memdesk.core.curation.duplicates import Cluster, Outcome
    from memdesk.core.store.memory_store import MemoryStore

MEMBERS = ("a cluster id from `duplicates list`, or two or more memory ids "
           "(unique prefixes are fine)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser],
             common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("duplicates", parents=[common],
                       help="find memories that restate one another; merge or dismiss them")
    ds = p.add_subparsers(dest="dup_command", metavar="ACTION", required=True)
    q = ds.add_parser("list", parents=[common], help="open duplicate clusters, per user")
    q.add_argument("--user", help="only this user's memories")
    q.add_argument("--threshold", help="cosine at or above which two memories are "
                   "duplicates, 0.5-1.0 (default: the store's, `duplicates threshold`)")
    q.add_argument("--limit", type=int, default=50, help="clusters to show (default 50)")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_list)
    q = ds.add_parser("merge", parents=[common],
                      help="keep one memory; the others are superseded by it (one undo step)")
    q.add_argument("members", nargs="+", metavar="CLUSTER|IDS", help=MEMBERS)
    q.add_argument("--keep", required=True, metavar="ID",
                   help="the memory to keep (its id or prefix), or 'suggested'")
    q.add_argument("--threshold", help="the threshold the cluster was listed with")
    q.add_argument("--note", help=NOTE_HELP)
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_merge)
    q = ds.add_parser("dismiss", parents=[common],
                      help="not duplicates: these are not offered together again")
    q.add_argument("members", nargs="+", metavar="CLUSTER|IDS", help=MEMBERS)
    q.add_argument("--threshold", help="the threshold the cluster was listed with")
    q.add_argument("--note", help=NOTE_HELP)
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_dismiss)
    q = ds.add_parser("threshold", parents=[common],
                      help="show or store the duplicate threshold (the worker's flag uses it)")
    q.add_argument("value", nargs="?", help="the new threshold, 0.5-1.0 (omit to show it)")
    q.add_argument("--note", help=NOTE_HELP)
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.set_defaults(handler=cmd_threshold)
    q = ds.add_parser("undo", parents=[common],
                      help="undo a merge, dismissal or threshold change by its group "
                           "(as `memdesk undo GROUP`)")
    q.add_argument("action_group", help="the group `merge`/`dismiss` printed (or a prefix)")
    q.set_defaults(handler=cmd_undo)


def _threshold(raw: str | None) -> float | None:
    """The threshold asked for, checked; None: the store's (the façade reads it)."""
    from memdesk.core.write.duplicates import check_threshold

    return None if raw is None else check_threshold(raw)


def _print_json(data: Any) -> None:
    print(json_text(data, indent=1, default=str))


def _cos(c: float | None) -> str:
    return "same text" if c is None else f"cos {c:.3f}"


def cmd_list(args: argparse.Namespace) -> int:
    from memdesk.core.curation.duplicates import Duplicates

    threshold = _threshold(args.threshold)
    if args.limit < 1:
        from memdesk.core.errors import ValidationError

        raise ValidationError("limit", f"must be at least 1, not {args.limit}")
    store = open_store(args, create=False)
    queue = Duplicates(store)
    if threshold is None:
        threshold = queue.threshold()
    clusters = queue.find(user=args.user, threshold=threshold)
    shown = clusters[: args.limit]
    if args.json:
        _print_json({"threshold": threshold, "total": len(clusters),
                     "clusters": [c.to_json() for c in shown]})
        return 0
    for c in shown:
        new = " · new write" if c.flagged else ""
        print(f"cluster {c.id}  {cell(c.user_id)} · {len(c.members)} memories{new}")
        shown_members = [m for i, m in enumerate(c.members) if i < 8 or m.id == c.suggested]
        for m in shown_members:
            mark = "keep?" if m.id == c.suggested else "     "
            print(f"  {mark} {m.id}  conf {m.confidence:.2f}  {m.created_at:%Y-%m-%d}  "
                  f"{short(m.text, 70)}")
        if len(shown_members) < len(c.members):
            print(f"        … {len(c.members) - len(shown_members)} more (--json lists all)")
        texts = {m.id: m.text for m in c.members}
        for p in c.pairs[:10]:
            how = "same text" if p.same_text else _cos(p.cosine)
            print(f"        {how}: {short(texts[p.a], 30)} ~ {short(texts[p.b], 30)}")
        if len(c.pairs) > 10:
            print(f"        … {len(c.pairs) - 10} more pair(s)")
    more = f", {len(shown)} shown" if len(shown) < len(clusters) else ""
    print(f"{len(clusters)} open cluster(s) at threshold {threshold:.2f}{more}")
    return 0


def _members(store: MemoryStore,
             args: argparse.Namespace) -> tuple[list[str], Cluster | None]:
    """(member ids, cluster or None) from a cluster id or memory ids."""
    from memdesk.core.curation.duplicates import Duplicates

    refs = args.members
    if len(refs) == 1 and "-" in refs[0] and refs[0].split("-", 1)[0].isdigit():
        c = Duplicates(store).cluster(refs[0], threshold=_threshold(args.threshold))
        return list(c.member_ids), c
    if len(refs) == 1:
        from memdesk.core.errors import ValidationError

        raise ValidationError("members", f"{refs[0]!r} is not a cluster id; name a cluster "
                              "(like 1234-ab12cd34) or two or more memory ids")
    return [memory_id(store, r) for r in refs], None


def _report(args: argparse.Namespace, out: Outcome, verb: str) -> None:
    events = list(out.changes.event_ids)
    if args.json:
        _print_json({"action": out.action, "kept": out.kept, "members": list(out.member_ids),
                     "action_group": out.group_id, "events": events})
        return
    nums = ", ".join(map(str, events))
    print(f"{verb} (events {nums}); undo all of it with "
          f"`memdesk duplicates undo {out.group_id}`, or one event with "
          f"`memdesk undo {events[0]}`")


def cmd_merge(args: argparse.Namespace) -> int:
    from memdesk.core.curation.duplicates import Duplicates

    store = open_store(args, create=False)
    ids, cluster = _members(store, args)
    if args.keep == "suggested":
        from memdesk.core.curation.duplicates import suggest

        keep = cluster.suggested if cluster is not None else suggest(
            Duplicates(store).members(ids))
    else:
        keep = memory_id(store, args.keep)
    out = Duplicates(store).merge(ids, keep, cluster=cluster.id if cluster else None,
                                  note=args.note)
    _report(args, out, f"merged {len(out.member_ids) - 1} memories into {keep}")
    return 0


def cmd_dismiss(args: argparse.Namespace) -> int:
    from memdesk.core.curation.duplicates import Duplicates

    store = open_store(args, create=False)
    ids, _ = _members(store, args)
    out = Duplicates(store).dismiss(ids, note=args.note)
    _report(args, out, f"not duplicates: {len(out.member_ids)} memories, not offered "
                       "together again")
    return 0


def cmd_threshold(args: argparse.Namespace) -> int:
    from memdesk.core.curation.duplicates import Duplicates

    value = _threshold(args.value)  # bad input: exit 2 before the store is opened
    store = open_store(args, create=False)
    queue = Duplicates(store)
    if value is None:
        now = queue.threshold()
        if args.json:
            _print_json({"threshold": now})
        else:
            print(f"duplicate threshold {now:.2f} (the queue's default and the worker's "
                  "flag for new writes)")
        return 0
    before = queue.threshold()
    ch = queue.set_threshold(value, note=args.note)
    if args.json:
        _print_json({"threshold": value, "before": before, "changed": bool(ch.event_ids),
                     "action_group": ch.group_id, "events": list(ch.event_ids)})
    elif not ch.event_ids:
        print(f"duplicate threshold is {value:.2f} already; nothing changed")
    else:
        print(f"duplicate threshold {before:.2f} → {value:.2f} (event {ch.event_ids[0]}); "
              f"undo with `memdesk duplicates undo {ch.group_id}` or "
              f"`memdesk undo {ch.event_ids[0]}`")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    from memdesk.core.store.prefixes import action_group_id
    from memdesk.core.undo.generic import undo_group

    store = open_store(args, create=False)
    with store.read() as conn:
        gid = action_group_id(conn, args.action_group)
    ch = undo_group(store, gid)
    print(f"undone: {len(ch.event_ids)} change(s)")
    return 0
