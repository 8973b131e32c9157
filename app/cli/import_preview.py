"""``memdesk import FILE --dry-run`` and ``--skip-duplicates``: the import preview
(core/preview; docs/import-export.md, "Preview").

``--dry-run`` prints what the import would do and writes nothing: the store is opened
as it is (never created, never upgraded) and only read.  Ctrl-C stops it between
batches (a second one at once); either way nothing was written (exit 130).

``--skip-duplicates`` previews first, then imports without the items the preview
counted as duplicates (of the store or of each other); Ctrl-C during the preview
writes nothing, during the import it stops as any import does.

Exit codes of a dry run: 0 previewed; 2 the input cannot be imported (missing, binary,
empty, not memories, or every item bad); 3 the store cannot be read; 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from memdesk.app.cli.common import EXIT_USAGE, err, open_store
from memdesk.app.cli.transfer import (
    EXIT_CANCELLED,
    _end_progress,
    _import_status,
    _interruptible,
    _print_report,
    _progress,
)


def register_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry-run", action="store_true",
                   help="preview: what would be added, duplicated, contradicted, flagged by "
                        "the guard, and the bad items; nothing is written")
    p.add_argument("--skip-duplicates", action="store_true",
                   help="preview first, then import without the items that duplicate the "
                        "store or each other (the duplicates queue's clustering)")


def _previewing() -> Callable[[int, int], None] | None:
    """Progress on stderr when it is a terminal: per mille of the whole preview when the
    input's size is known, else the items read."""
    if not sys.stderr.isatty():
        return None

    def progress(done: int, total: int) -> None:
        if total:
            print(f"\rpreviewing: {done // 10}%   ", end="", file=sys.stderr, flush=True)
        else:
            print(f"\rpreviewing: {done:,} read   ", end="", file=sys.stderr, flush=True)

    return progress


def _preview(args: argparse.Namespace, store: Any) -> Any:
    from memdesk.core.preview import preview_import

    with _interruptible() as cancelled:
        try:
            return preview_import(store, args.file, args.fmt,
                                  default_user=args.default_user,
                                  on_existing=args.on_existing, progress=_previewing(),
                                  cancelled=cancelled)
        finally:
            _end_progress()


def _print_preview(preview: Any, as_json: bool) -> None:
    if as_json:
        print(json.dumps(preview.to_json(), ensure_ascii=False, indent=1))
        return
    for line in preview.lines():
        print(line)
    details = preview.details()
    if details:
        print()
        for line in details:
            print(line)
    if preview.guard_count:
        print("\nThe guard screens agents' writes; an import is the operator's own and is "
              "not held. Review the flagged items, or cancel.")


def cmd_dry_run(args: argparse.Namespace) -> int:
    from memdesk.core.transfer.importer import TransferError

    try:
        store = open_store(args, create=False)  # a dry run never creates a store
        preview = _preview(args, store)
    except TransferError as exc:
        err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _end_progress()
        err("preview interrupted; nothing was written")
        return EXIT_CANCELLED
    _print_preview(preview, args.json)
    if preview.cancelled:
        err("preview cancelled; nothing was written")
        return EXIT_CANCELLED
    if preview.empty:
        err(f"{preview.label} holds no memories; nothing would be imported")
        return EXIT_USAGE
    if preview.bad_count and not (preview.would_add or preview.would_update):
        return EXIT_USAGE
    return 0


def cmd_without_duplicates(args: argparse.Namespace) -> int:
    from memdesk.core.preview import import_without_duplicates
    from memdesk.core.transfer.importer import TransferError

    if args.file == "-" or args.fmt == "transcript":
        err("--skip-duplicates needs a file of memories (it reads the file twice: "
            "preview, then import); not standard input or a transcript")
        return EXIT_USAGE
    try:
        store = open_store(args)
        preview = _preview(args, store)
        if preview.cancelled:
            err("preview cancelled; nothing was written")
            return EXIT_CANCELLED
        if not args.json:
            for line in preview.lines()[1:]:
                err(f"preview: {line}")
        progress = _progress("importing", "bytes" if preview.unit == "line"
                             else f"{preview.unit}s")
        with _interruptible() as cancelled:
            report = import_without_duplicates(
                store, args.file, preview, args.fmt, default_user=args.default_user,
                on_existing=args.on_existing, progress=progress, cancelled=cancelled)
    except TransferError as exc:
        _end_progress()
        err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _end_progress()
        err("interrupted")
        return EXIT_CANCELLED
    _end_progress()
    _print_report(report, args.json, sys.stdout)
    return _import_status(report)
