"""``memdesk forget ID [--purge [--receipt PATH] [--yes]]``.

Without ``--purge``: a soft delete (audited, undoable: ``memdesk undo EVENT``), as an
agent's ``forget`` does.  With ``--purge``: the permanent erasure of the memory and its
family (core/erasure/): irreversible, so it asks for confirmation — ``--yes``, or, at a
terminal, typing ``erase`` — and without either it shows what would be erased and
erases nothing (exit 2).  It prints the receipt's summary (``--json``: the receipt),
writes the receipt to ``--receipt PATH`` and keeps it in the store.  Exit 5 when the
store's state refuses it (a worker still has the turn open), 4 for an unknown or
already erased id, 1 when the proof still found a copy (the receipt says where).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from memdesk.app.cli.common import (
    EXIT_CONFLICT,
    EXIT_ERROR,
    EXIT_USAGE,
    err,
    memory_id,
    open_store,
)

CONFIRM_WORD = "erase"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser],
             common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "forget", parents=[common],
        help="forget one memory: a soft delete, or with --purge a permanent erasure",
        description="Forget one memory. Without --purge it is soft-deleted (audited; "
                    "`memdesk undo EVENT` brings it back). With --purge it is erased "
                    "permanently, with its episode or units, from every place the store "
                    "keeps it, and the erasure is proven (receipt: --receipt PATH, and "
                    "kept in the store). A purge cannot be undone: it needs --yes (or "
                    "typing 'erase' at a terminal).",
    )
    p.add_argument("id", help="memory id or a unique prefix of it")
    p.add_argument("--purge", action="store_true",
                   help="erase permanently and prove it (cannot be undone)")
    p.add_argument("--receipt", type=Path, metavar="PATH",
                   help="write the erasure receipt (JSON, without the text) to PATH")
    p.add_argument("--yes", action="store_true", help="confirm a purge without asking")
    p.add_argument("--note", help="why (kept in the audit and the receipt)")
    p.add_argument("--json", action="store_true",
                   help="print the receipt (with --purge) or {id, event_id} as JSON")
    p.set_defaults(handler=cmd_forget)


def cmd_forget(args: argparse.Namespace) -> int:
    if not args.purge:
        if args.receipt is not None or args.yes:
            err("forget: --receipt and --yes go with --purge")
            return EXIT_USAGE
        return _soft_delete(args)
    from memdesk.core.erasure.plan import PurgeRefused
    from memdesk.core.erasure.service import Erasure
    from memdesk.core.errors import NotFoundError

    store = open_store(args, create=False)
    try:
        mid = memory_id(store, args.id)
    except NotFoundError:
        mid = args.id  # an erased id is no longer a memory: the purge says it was erased
    erasure = Erasure(store)
    progress = ((lambda msg: print(f"  {msg}…", file=sys.stderr))
                if sys.stderr.isatty() else None)
    try:
        plan = erasure.preview(mid)
        if not args.yes and not _confirmed(plan.describe()):
            return EXIT_USAGE
        erased = erasure.purge(mid, who=args.note, progress=progress)
    except PurgeRefused as exc:
        err(str(exc))
        return EXIT_CONFLICT
    if args.receipt is not None:
        erased.save(args.receipt)
    if args.json:
        print(json.dumps(erased.receipt, ensure_ascii=False, indent=1))
    else:
        print("\n".join(erased.summary()))
        where = f"{args.receipt} and " if args.receipt is not None else ""
        print(f"receipt: {where}the store (erasure {erased.erasure_id})")
    if erased.verdict != "erased":
        err("the proof still found a copy of the text (the receipt says where)")
        return EXIT_ERROR
    return 0


def _confirmed(lines: list[str]) -> bool:
    print("This erases permanently, and cannot be undone:", file=sys.stderr)
    for line in lines:
        print(f"  {line}", file=sys.stderr)
    if not sys.stdin.isatty():
        err("nothing was erased: pass --yes to erase permanently")
        return False
    answer = input(f"Type '{CONFIRM_WORD}' to erase permanently: ")
    if answer.strip().lower() != CONFIRM_WORD:
        err("nothing was erased")
        return False
    return True


def _soft_delete(args: argparse.Namespace) -> int:
    from memdesk.core.ids import utcnow
    from memdesk.core.store import actions as acts

    store = open_store(args, create=False)
    mid = memory_id(store, args.id)
    with store.write() as conn:
        rec = store.get(mid, conn, lock=True)
        if rec.deleted_at is not None:
            err(f"memory {mid} is already deleted; nothing changed (--purge erases it)")
            return EXIT_CONFLICT
        event = store.apply_in(conn, mid, {"deleted_at": utcnow()}, actor="operator",
                               action=acts.DELETE, note=args.note)
    if args.json:
        print(json.dumps({"id": mid, "event_id": event}))
    else:
        print(f"forgotten {mid} (event {event}; `memdesk undo {event}` takes it back)")
    return 0
