"""The ``memdesk`` command: no subcommand opens the GUI; subcommands are the CLI.

Qt is imported only when the GUI starts, so CLI calls from agents stay fast.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from .cli import build_parser, run

    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    if getattr(args, "command", None) is None:
        from .gui import run_gui

        return run_gui(db=args.db, demo=args.demo, demo_size=args.size)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
