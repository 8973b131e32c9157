"""``memdesk export`` and ``memdesk import``: memories in and out as JSON Lines, and
imports from Mem0 and Recall (core/transfer; docs/import-export.md).

Progress goes to stderr when it is a terminal; Ctrl-C during an import stops it after
the current batch and still prints what was written (exit 130).  Bad items are listed
on stderr by number with the reason and the good ones are imported regardless: exit 0
when the import wrote something or had nothing bad, 2 when items were bad and nothing
changed (as everywhere in the CLI), 3 when the store stopped it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from memdesk.app.cli.common import EXIT_STORE, EXIT_USAGE, err, open_store, short
from memdesk.app.cli.shown import json_text

if TYPE_CHECKING:
    from memdesk.core.transfer.importer import ImportReport

EXIT_CANCELLED = 130  # 128 + SIGINT, what a shell reports for an interrupted tool


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser],
             common: argparse.ArgumentParser) -> None:
    from memdesk.core.store.query import Status
    from memdesk.core.taxonomy import Layer, MemoryType

    p = sub.add_parser(
        "export", parents=[common], help="write memories as JSON Lines (every field)",
        description="Write memories as JSON Lines, one memory per line with every field "
                    "(soft-deleted ones too unless --status is given). Filters combine.",
    )
    p.add_argument("--out", default="-", metavar="FILE|-",
                   help="file to write (replaced atomically when done); - is stdout (default)")
    p.add_argument("--with-embeddings", action="store_true",
                   help="include each memory's vector (base64 float32)")
    p.add_argument("--user", action="append", default=[], dest="users",
                   help="only this user's memories (repeatable)")
    p.add_argument("--type", action="append", default=[], dest="types",
                   choices=[t.value for t in MemoryType], help="only this type (repeatable)")
    p.add_argument("--layer", action="append", default=[], dest="layers",
                   choices=[x.value for x in Layer], help="only this layer (repeatable)")
    p.add_argument("--topic", action="append", default=[], dest="topics",
                   help="only this topic (repeatable)")
    p.add_argument("--status", action="append", default=[], dest="statuses",
                   choices=[s.value for s in Status],
                   help="only this status (repeatable; default: every status but deleted "
                        "and hypothetical)")
    p.add_argument("--text", default="", help="full-text search")
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser(
        "import", parents=[common], help="import memories (memdesk JSON Lines, Mem0, Recall)",
        description="Import memories. Each item is checked like any write; bad ones are "
                    "reported by number with the reason and not written, the rest are. "
                    "The whole import is one audited group: `memdesk undo GROUP` takes it "
                    "back.",
    )
    p.add_argument("file", nargs="?", metavar="FILE|-", help="input file, or - for stdin")
    p.add_argument("--from", dest="fmt", default="auto",
                   choices=["auto", "jsonl", "mem0", "recall", "transcript"],
                   help="input format (default: recognised from the content); transcript: "
                        "one turn per line ({user_id, text, speaker, session_id, said_at}) "
                        "queued for the write path, each kept as said and its units "
                        "extracted by the worker")
    p.add_argument("--on-existing", choices=["skip", "update"], default="skip",
                   help="a memory whose id is already in the store: leave it (default) "
                        "or update it to the imported values")
    p.add_argument("--user", dest="default_user",
                   help="Mem0: user for items with neither user_id nor agent_id")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--undo", metavar="GROUP",
                   help="undo an earlier import (the group id its report printed); the "
                        "same as `memdesk undo GROUP`, kept for scripts")
    from memdesk.app.cli import import_preview

    import_preview.register_options(p)
    p.set_defaults(handler=cmd_import)


# -- progress ------------------------------------------------------------------------
def _progress(verb: str, unit: str) -> Callable[[int, int], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        if unit == "bytes":
            text = (f"{verb}: {100 * done // total}%" if total
                    else f"{verb}: {done / 1e6:,.1f} MB read")
        elif total:
            text = f"{verb}: {done:,} / {total:,} {unit}"
        else:
            text = f"{verb}: {done:,} {unit}"
        print(f"\r{text}   ", end="", file=sys.stderr, flush=True)

    return show


def _end_progress() -> None:
    if sys.stderr.isatty():
        print(file=sys.stderr)


@contextlib.contextmanager
def _interruptible() -> Iterator[Callable[[], bool]]:
    """First Ctrl-C asks the work to stop cleanly; a second one interrupts at once."""
    hit: list[bool] = []
    if os.name != "posix" or not _is_main_thread():
        yield lambda: False
        return

    def on_sigint(_sig: int, _frame: object) -> None:
        if hit:
            raise KeyboardInterrupt
        hit.append(True)
        print("\nmemdesk: stopping after the current batch (Ctrl-C again to abort)",
              file=sys.stderr)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield lambda: bool(hit)
    finally:
        signal.signal(signal.SIGINT, previous)


def _is_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


# -- export --------------------------------------------------------------------------
def cmd_export(args: argparse.Namespace) -> int:
    from memdesk.core.store.query import MemoryFilter, Status
    from memdesk.core.transfer.importer import TransferError
    from memdesk.core.transfer.jsonl import export_jsonl, export_to_file

    store = open_store(args, create=False)
    flt = MemoryFilter(
        text=args.text, user_ids=tuple(args.users), types=tuple(args.types),
        layers=tuple(args.layers), topics=tuple(args.topics),
        statuses=tuple(Status(s) for s in args.statuses),
    )
    progress = _progress("exporting", "memories")
    with _interruptible() as cancelled:
        if args.out == "-":
            report = export_jsonl(store, sys.stdout.buffer, flt,
                                  with_embeddings=args.with_embeddings,
                                  progress=progress, cancelled=cancelled)
            sys.stdout.buffer.flush()
        else:
            try:
                report = export_to_file(store, Path(args.out), flt,
                                        with_embeddings=args.with_embeddings,
                                        progress=progress, cancelled=cancelled)
            except TransferError as exc:
                _end_progress()
                err(str(exc))
                return EXIT_USAGE
    _end_progress()
    if report.cancelled:
        err(f"export cancelled after {report.written:,} memories; nothing was written")
        return EXIT_CANCELLED
    where = "" if args.out == "-" else f" to {args.out}"
    checks = f" and {report.checks:,} recall checks" if report.checks else ""
    err(f"exported {report.written:,} memories{checks}{where}")
    if report.dangling:
        err(f"note: {report.dangling:,} of them name a replacement (superseded_by) that is "
            "not in this export; importing them into another store reports them as bad "
            "unless that memory is there")
    return 0


# -- import --------------------------------------------------------------------------
def cmd_import(args: argparse.Namespace) -> int:
    from memdesk.core.transfer.formats import open_source
    from memdesk.core.transfer.importer import Importer, TransferError

    if args.undo:
        if args.file:
            err("give either a file to import or --undo GROUP, not both")
            return EXIT_USAGE
        return _undo(args)
    if not args.file:
        err("give a file to import (or - for standard input)")
        return EXIT_USAGE
    label = "standard input" if args.file == "-" else args.file
    if args.dry_run or args.skip_duplicates:
        from memdesk.app.cli import import_preview

        if args.dry_run:
            return import_preview.cmd_dry_run(args)
        return import_preview.cmd_without_duplicates(args)
    if args.fmt == "transcript":
        return _import_transcript(args)
    try:
        with open_source(args.file, args.fmt, default_user=args.default_user) as source:
            # Opened after the input: an unreadable file must not leave a new empty store.
            store = open_store(args)
            # JSON Lines report progress in bytes read (a pipe has no total); the others
            # in items or rows.
            unit = "bytes" if source.unit == "line" else f"{source.unit}s"
            progress = _progress("importing", unit)
            importer = Importer(store, on_existing=args.on_existing,
                                note=f"import from {label} ({source.kind})")
            with _interruptible() as cancelled:
                report = importer.run(source, progress=progress, cancelled=cancelled)
    except TransferError as exc:
        _end_progress()
        err(str(exc))
        return EXIT_USAGE
    _end_progress()
    _print_report(report, args.json, sys.stdout)
    return _import_status(report)


def _import_status(report: ImportReport) -> int:
    """An import's exit status, from its report."""
    if report.error:
        return EXIT_STORE
    if report.cancelled:
        return EXIT_CANCELLED
    # 2 means "bad input, nothing changed" everywhere in the CLI; an import that wrote
    # its good items succeeded (the bad ones are listed; --json gives bad_count).
    return EXIT_USAGE if report.bad_count and not report.changed else 0


def _import_transcript(args: argparse.Namespace) -> int:
    """A transcript's turns go to the write path (core/transfer/transcript.py)."""
    from memdesk.core.transfer.transcript import MAX_SHOWN_BAD, import_transcript

    try:
        stream: IO[bytes] = (sys.stdin.buffer if args.file == "-"
                             else open(args.file, "rb"))  # noqa: SIM115 (closed below)
    except OSError as exc:
        err(f"cannot read {args.file}: {exc.strerror or exc}")
        return EXIT_USAGE
    try:
        store = open_store(args)
        with _interruptible() as cancelled:
            report = import_transcript(store, stream, default_user=args.default_user,
                                       cancelled=cancelled,
                                       progress=_progress("queueing", "turns"))
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    _end_progress()
    if args.json:
        print(json_text(report.to_json()))
    else:
        print(report.summary())
        for n, reason in report.bad[:MAX_SHOWN_BAD]:
            print(f"  line {n:,}: {short(reason, 200)}")
        if len(report.bad) > MAX_SHOWN_BAD:
            print(f"  … and {len(report.bad) - MAX_SHOWN_BAD:,} more (--json lists them all)")
    if report.cancelled:
        return EXIT_CANCELLED
    return EXIT_USAGE if report.bad and not report.queued else 0


def _print_report(report: Any, as_json: bool, out: IO[str]) -> None:
    if as_json:
        data = {
            "imported": report.imported, "updated": report.updated,
            "unchanged": report.unchanged, "skipped": report.skipped,
            "bad": [{report.unit: b.number, "id": b.ref, "reason": b.reason}
                    for b in report.bad],
            "bad_count": report.bad_count,
            "skipped_duplicates": report.skipped_duplicates,
            "dropped_fields": dict(sorted(report.dropped.items())),
            "cancelled": report.cancelled, "stopped_at": report.stopped_at,
            "error": report.error, "group": report.group_id,
            "checks_imported": report.checks_imported, "checks_skipped": report.checks_skipped,
        }
        print(json.dumps(data, ensure_ascii=False, indent=1), file=out)
        return
    for b in report.bad:
        err(f"{report.unit} {b}")
    if report.unlisted_bad:
        err(f"... and {report.unlisted_bad:,} more bad {report.unit}s (not listed)")
    for name, n in sorted(report.dropped.items()):
        err(f"not carried over: {name} ({n:,} {report.unit}s)")
    print(report.summary(), file=out)
    if report.group_id:
        print(f"undo this import: memdesk undo {report.group_id}", file=out)


def _undo(args: argparse.Namespace) -> int:
    from memdesk.core.errors import NotFoundError, ValidationError

    store = open_store(args, create=False)
    group = args.undo.strip()
    events = store.group_events(group)
    if not events:
        raise NotFoundError(f"No import with group id {group!r}")
    if any(e.actor != "import" for e in events):
        raise ValidationError("group", f"{group} is not an import's group")
    store.undo_group(group)
    print(f"undone: {len(events):,} changes of import {group} (memories it added are "
          "soft-deleted, memories it updated have their earlier values back)")
    return 0
