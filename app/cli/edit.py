"""``memdesk edit`` and ``memdesk delete``: an operator's curation from a script.

Both are one audited change (``memdesk undo EVENT`` takes it back; they print the event
number), and both take ``--if-version N``: the version the script read (``show --json``
prints it), so a change made by someone else in between is refused with exit 5 and
nothing written, instead of being overwritten (compare-and-set in the store).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from memdesk.app.cli.common import (
    EXIT_CONFLICT,
    EXIT_USAGE,
    add_actor_option,
    err,
    memory_id,
    open_store,
    whole_number,
)
from memdesk.app.cli.write import read_text
from memdesk.core.taxonomy import MemoryType

# The fields `edit` sets: the content of a memory, as the GUI's detail pane edits it.
# (Lifecycle fields have their own commands: delete, undo, contradictions resolve.)
FIELDS = ("text", "type", "topic", "importance", "confidence", "entity", "attribute", "value")
FIELD_HELP = {
    "type": "new type: one of " + ", ".join(MemoryType),
    "topic": "new topic (empty: none)",
    "importance": "new importance, 0 to 1",
    "confidence": "new confidence, 0 to 1",
    "entity": "new entity, what it is about (empty: none)",
    "attribute": "new attribute of the entity (empty: none)",
    "value": "new value of the attribute (empty: none)",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser],
             common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "edit", parents=[common], help="change fields of one memory (audited, undoable)",
        description="Change fields of one memory in one audited event (printed: `memdesk "
                    "undo EVENT` takes it back). An empty value clears an optional field. "
                    "With --if-version N the edit is refused (exit 5, nothing written) if "
                    "the memory is no longer at version N.",
    )
    p.add_argument("id", help="memory id or a unique prefix of it")
    p.add_argument("--text", help="new text ('-' reads standard input)")
    for name in FIELDS[1:]:
        p.add_argument(f"--{name}", metavar="VALUE", help=FIELD_HELP[name])
    _shared(p)
    p.set_defaults(handler=cmd_edit)

    p = sub.add_parser(
        "delete", parents=[common], help="soft-delete one memory (audited, undoable)",
        description="Soft-delete one memory: it leaves the active belief state but stays "
                    "in the store and its history; `memdesk undo EVENT` (printed) brings "
                    "it back. A memory already deleted is refused with exit 5.",
    )
    p.add_argument("id", help="memory id or a unique prefix of it")
    _shared(p)
    p.set_defaults(handler=cmd_delete)


def _shared(p: argparse.ArgumentParser) -> None:
    p.add_argument("--if-version", type=whole_number, metavar="N", dest="if_version",
                   help="only if the memory is still at version N (as `show --json` printed)")
    p.add_argument("--note", help="why (kept in the audit event)")
    add_actor_option(p)
    p.add_argument("--json", action="store_true",
                   help="print {id, event_id, version} as JSON")


def _note(args: argparse.Namespace) -> str | None:
    from memdesk.core.taxonomy import check_optional_str

    return check_optional_str("note", args.note, 10_000)


def _report(args: argparse.Namespace, verb: str, mid: str, event: int | None,
            version: int) -> int:
    if args.json:
        print(json.dumps({"id": mid, "event_id": event, "version": version}))
    elif event is None:
        print(f"unchanged {mid} (version {version}): it already has these values")
    else:
        print(f"{verb} {mid} (event {event}, now version {version}; "
              f"`memdesk undo {event}` takes it back)")
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {k: getattr(args, k) for k in FIELDS if getattr(args, k) is not None}
    if not fields:
        err("edit: name at least one field to change (--" + ", --".join(FIELDS) + ")")
        return EXIT_USAGE
    if "text" in fields:
        fields["text"] = read_text(fields["text"])
    from memdesk.core.store import actions as acts
    from memdesk.core.store.validation import validate_fields

    values = validate_fields(fields, creating=False)
    note = _note(args)
    store = open_store(args, create=False)
    mid = memory_id(store, args.id)
    with store.write() as conn:
        event = store.apply_in(conn, mid, values, actor=args.actor, action=acts.EDIT,
                               note=note, expected_version=args.if_version)
        # The version this edit wrote, read before its transaction ends: read after,
        # it may be another writer's, and a script's next --if-version would then
        # overwrite a change it never saw.
        version = store.get(mid, conn).version
    return _report(args, "edited", mid, event, version)


def cmd_delete(args: argparse.Namespace) -> int:
    from memdesk.core.ids import utcnow
    from memdesk.core.store import actions as acts

    note = _note(args)
    store = open_store(args, create=False)
    mid = memory_id(store, args.id)
    with store.write() as conn:
        # Locked and checked in the transaction that writes: of two deletes at once,
        # the second finds the memory deleted.
        rec = store.get(mid, conn, lock=True)
        if rec.deleted_at is not None:
            err(f"memory {mid} is already deleted; nothing changed")
            return EXIT_CONFLICT
        event = store.apply_in(conn, mid, {"deleted_at": utcnow()}, actor=args.actor,
                               action=acts.DELETE, note=note,
                               expected_version=args.if_version)
        version = store.get(mid, conn).version  # this delete's own (see cmd_edit)
    return _report(args, "deleted", mid, event, version)
