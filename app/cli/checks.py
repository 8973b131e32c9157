"""``memdesk checks add|list|run|remove``: recall checks for scripts and CI.

A check pins a query for a user with the memories the agents' default retrieval must
return (``--expect``) and must not (``--expect-not``); ``checks run`` replays every
check through the MCP ``retrieve`` tool's own path (core/read/checks.py) and exits 1
when one fails, 0 when all pass and 5 when there is nothing to check (as ``pytest``
does), so a script can tell "broken" from "empty".  Adding and removing are audited
and undoable (``memdesk undo EVENT``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from memdesk.app.cli.common import EXIT_CONFLICT, EXIT_ERROR, err, fmt_dt, open_store, short

if TYPE_CHECKING:
    from memdesk.core.read.checks import CheckResult, ChecksRun

EXIT_FAILED = EXIT_ERROR  # a check failed (1, as a failing test run)
EXIT_NONE = EXIT_CONFLICT  # nothing to check (5: the store's state, as "nothing to sweep")

RUN_EPILOG = """\
exit status:
  0    every check passed
  1    at least one check failed (each failure is listed with its reason)
  5    there are no recall checks in this store (add one with `memdesk checks add`)
  2-4  bad input, the store cannot be used, an unknown check id (as every command)
"""


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "checks", parents=[common],
        help="recall checks: queries whose answers agents must keep getting",
        description="A recall check is a user, a query and the memories the agents' "
                    "default retrieval (the MCP retrieve tool, k = 10) must return, and "
                    "optionally must not. `checks run` replays them all and exits non-zero "
                    "when one fails: run it after a cleanup, an import or a new model.")
    csub = p.add_subparsers(dest="checks_command", metavar="ACTION", required=True)

    a = csub.add_parser("add", parents=[common], help="pin a check (audited, undoable)")
    a.add_argument("--user", required=True, dest="user_id", metavar="U",
                   help="the user whose memories the query asks")
    a.add_argument("--query", required=True, metavar="Q",
                   help="the query, as an agent would send it")
    a.add_argument("--expect", action="append", required=True, metavar="ID",
                   help="a memory id (or unique prefix) the top 10 must hold; repeat for more")
    a.add_argument("--expect-not", action="append", default=[], dest="expect_not",
                   metavar="ID", help="a memory id (or unique prefix) the top 10 must not "
                                      "hold (a deleted fact that must stay gone); repeatable")
    a.add_argument("--note", default=None, help="why this check exists (shown in the list)")
    a.add_argument("--json", action="store_true", help="print the new check as JSON")
    a.set_defaults(handler=cmd_checks_add)

    ls = csub.add_parser("list", parents=[common], help="the checks and their last results")
    ls.add_argument("--all", action="store_true", dest="include_removed",
                    help="include removed checks (undo brings one back)")
    ls.add_argument("--json", action="store_true", help="print the checks as JSON")
    ls.set_defaults(handler=cmd_checks_list)

    r = csub.add_parser("run", parents=[common], epilog=RUN_EPILOG,
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        help="replay the checks; exit 1 if one fails, 5 if there are none")
    r.add_argument("ids", nargs="*", metavar="CHECK",
                   help="only these checks (ids or unique prefixes; default: all)")
    r.add_argument("--json", action="store_true",
                   help="print every check's verdict as JSON (for scripts and CI)")
    r.add_argument("--no-record", action="store_false", dest="record",
                   help="do not keep these verdicts as the checks' last results")
    r.set_defaults(handler=cmd_checks_run)

    rm = csub.add_parser("remove", parents=[common],
                         help="remove a check (audited; `memdesk undo EVENT` restores it)")
    rm.add_argument("id", metavar="CHECK", help="the check's id or a unique prefix of it")
    rm.set_defaults(handler=cmd_checks_remove)


def plain(text: str) -> str:
    """Stored text made safe for a terminal: control characters shown as ?."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _checks(args: argparse.Namespace) -> Any:
    from memdesk.core.read.checks import RecallChecks

    return RecallChecks(open_store(args, create=False))


def cmd_checks_add(args: argparse.Namespace) -> int:
    from memdesk.core.store.recall_checks import check_values

    # Bad input is refused before the store is opened (or created).
    check_values(args.user_id, args.query, args.expect, args.expect_not, args.note)
    added = _checks(args).add(args.user_id, args.query, args.expect, args.expect_not,
                              note=args.note)
    event = added.changes.undo_event
    if args.json:
        print(json.dumps({**added.check.to_json(), "event_id": event}, ensure_ascii=False))
        return 0
    print(f"added check {added.check.id} for {plain(added.check.user_id)}: expects "
          f"{', '.join(added.check.expect)}"
          + (f"; forbids {', '.join(added.check.expect_not)}" if added.check.expect_not else "")
          + f" (event {event}; `memdesk undo {event}` takes it back)")
    return 0


def cmd_checks_list(args: argparse.Namespace) -> int:
    items = _checks(args).list(include_removed=args.include_removed)
    if args.json:
        print(json.dumps([c.to_json() | {"last_result": c.last_result} for c in items],
                         ensure_ascii=False, indent=1))
        return 0
    if not items:
        print("no recall checks (memdesk checks add --user U --query Q --expect ID)")
        return 0
    for c in items:
        last = ("never run" if c.last_passed is None else
                f"{'passed' if c.last_passed else 'FAILED'} {fmt_dt(c.last_run_at)}")
        state = " (removed)" if c.removed else ""
        print(f"{c.id[:8]}  {plain(c.user_id):<14} {last:<26} {short(plain(c.query), 50)!r}"
              f"  expects {len(c.expect)}, forbids {len(c.expect_not)}{state}")
    return 0


def cmd_checks_run(args: argparse.Namespace) -> int:
    checks = _checks(args)
    if not args.ids and not checks.list():
        err("no recall checks in this store: nothing to run "
            "(add one with `memdesk checks add --user U --query Q --expect ID`)")
        return EXIT_NONE

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{done:,} / {total:,}", end="", file=sys.stderr, flush=True)

    run = checks.run(args.ids or None, progress=progress, record=args.record)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    if args.json:
        print(json.dumps({"passed": len(run.results) - len(run.failed),
                          "failed": len(run.failed), "seconds": round(run.seconds, 3),
                          "notes": list(run.notes),
                          "checks": [r.to_json() for r in run.results]},
                         ensure_ascii=False, indent=1))
    else:
        _print_run(run)
    return 0 if run.passed else EXIT_FAILED


def _print_run(run: ChecksRun) -> None:
    for r in run.results:
        _print_result(r)
    for note in run.notes:
        print(f"note: {note}")
    n = len(run.results)
    print(f"{n:,} check{'' if n == 1 else 's'}: {n - len(run.failed):,} passed, "
          f"{len(run.failed):,} failed ({run.seconds:.1f} s)")


def _print_result(r: CheckResult) -> None:
    was = ""
    if r.changed:
        was = " (was passing)" if r.broke else " (was failing)"
    c = r.check
    print(f"{'PASS' if r.passed else 'FAIL'}  {c.id[:8]}  {plain(c.user_id)}  "
          f"{short(plain(c.query), 60)!r}{was}")
    if r.error:
        print(f"      cannot run: {r.error}")
        return
    for n in r.expected:
        if not n.returned or n.returned_as:
            print(f"      expected {n.memory_id}: {n.detail}")
    for n in r.forbidden:
        if n.returned:
            print(f"      forbidden {n.memory_id}: {n.detail}")


def cmd_checks_remove(args: argparse.Namespace) -> int:
    from memdesk.core.store.recall_checks import CheckStateError

    try:
        changes = _checks(args).remove(args.id)
    except CheckStateError as exc:
        err(str(exc))
        return EXIT_CONFLICT
    event = changes.undo_event
    print(f"removed check {args.id} (event {event}; `memdesk undo {event}` brings it back)")
    return 0
