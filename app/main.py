"""The ``memdesk`` command: no subcommand opens the GUI; subcommands are the CLI.

Qt is imported only when the GUI starts, so CLI calls from agents stay fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any


def version_text() -> str:
    """``memdesk --version``: the version, and what a bug report needs besides it."""
    from memdesk.core.store.about import version_text as text

    return text()


class _VersionAction(argparse.Action):
    """argparse's own version action re-wraps text into one paragraph; this prints it."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version (and whether vectors are on) and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def parse(argv: list[str]) -> argparse.Namespace:
    from memdesk.app.cli.main import build_parser

    parser = build_parser()
    parser.add_argument("--version", action=_VersionAction)
    # Hidden: the packaged app's self-check (packaging/README.md), not an operator feature.
    parser.add_argument("--smoke-test", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if getattr(args, "db", None) == "":
        # The desktop launcher runs `memdesk --db=%f`; without a file %f expands to
        # nothing, which means "the default store", not a store named "".
        args.db = None
    return args


def main(argv: list[str] | None = None) -> int:
    from memdesk.app.cli.main import run

    args = parse(sys.argv[1:] if argv is None else argv)
    if getattr(args, "smoke_test", False):
        from memdesk.app.smoke import run_smoke

        return run_smoke(db=args.db)
    if getattr(args, "command", None) is None:
        from memdesk.app.gui import run_gui

        return run_gui(db=args.db, demo=args.demo, demo_size=args.size)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
