"""``memdesk archive ID…`` and ``memdesk unarchive ID…``: keep memories but take them out
of recall, or bring them back (core/store/archive.py).

Each call is one audited group (all the ids or none): an unknown id is exit 4, an
ambiguous prefix exit 2, and a memory whose state refuses it (deleted, held for review,
archived already, not archived) exit 5, each with nothing changed.  ``memdesk undo
EVENT`` takes one memory's change back; the opposite command takes back them all.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from memdesk.app.cli.common import EXIT_CONFLICT, err, memory_id, open_store


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    for name, text in (
        ("archive", "archive memories: kept, listed and searchable in the desk, never "
                    "recalled or injected (audited, undoable)"),
        ("unarchive", "unarchive memories: recalled again (audited, undoable)"),
    ):
        p = sub.add_parser(name, parents=[common], help=text, description=text + ". All "
                           "the ids or none: a refused one (deleted, held for review, "
                           + ("archived already" if name == "archive" else "not archived")
                           + ") changes nothing, exit 5.")
        p.add_argument("ids", nargs="+", metavar="ID", help="memory ids or unique prefixes")
        p.add_argument("--note", help="why (kept in the audit events)")
        p.add_argument("--json", action="store_true",
                       help="print {memory_ids, event_ids, group_id} as JSON")
        p.set_defaults(handler=cmd_archive, archiving=name == "archive")


def cmd_archive(args: argparse.Namespace) -> int:
    from memdesk.core.store.archive import Archive, ArchiveStateError
    from memdesk.core.taxonomy import check_optional_str

    note = check_optional_str("note", args.note, 10_000)
    store = open_store(args, create=False)
    ids = [memory_id(store, ref) for ref in args.ids]
    archive = Archive(store)
    try:
        changes = (archive.archive if args.archiving else archive.unarchive)(ids, note=note)
    except ArchiveStateError as exc:
        err(str(exc))
        return EXIT_CONFLICT
    if args.json:
        print(json.dumps({"memory_ids": list(changes.memory_ids),
                          "event_ids": list(changes.event_ids),
                          "group_id": changes.group_id}))
        return 0
    verb, other = ("archived", "unarchive") if args.archiving else ("unarchived", "archive")
    n = len(changes.event_ids)
    events = ", ".join(map(str, changes.event_ids))
    print(f"{verb} {n} {'memory' if n == 1 else 'memories'} (event{'s' if n > 1 else ''} "
          f"{events}; `memdesk {other} ID…` or `memdesk undo EVENT` takes it back)")
    return 0
