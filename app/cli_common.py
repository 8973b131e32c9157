"""What every CLI command module shares: exit codes, the --db option, opening the
store, and small formatting helpers.  Kept apart from cli.py so feature modules import
it without importing the parser that imports them."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime

EXIT_ERROR, EXIT_USAGE, EXIT_STORE, EXIT_NOTFOUND, EXIT_CONFLICT = 1, 2, 3, 4, 5


def common_options() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument(
        "--db", default=argparse.SUPPRESS, metavar="URL|PATH",
        help="store to use: a file path or a SQLAlchemy URL (default: the user data dir)",
    )
    return p


def parse_range(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in text.split(":", 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO:HI, e.g. 0.3:0.49, got {text!r}") from None
    return lo, hi


def err(msg: str) -> None:
    print(f"memdesk: {msg}", file=sys.stderr)


def open_store(args: argparse.Namespace, *, create: bool = True):  # type: ignore[no-untyped-def]
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(args.db, create=create)
    if store.report and store.report.message:
        err(store.report.message)
    return store


def fmt_dt(v: datetime | None) -> str:
    return v.strftime("%Y-%m-%d %H:%M") if v else "-"


def short(text: str, n: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


