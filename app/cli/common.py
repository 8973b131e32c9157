"""What every CLI command module shares: exit codes, the --db option, opening the
store, resolving id prefixes, and small formatting helpers.  Kept apart from cli.py so
feature modules import it without importing the parser that imports them.

A command that takes an id accepts a unique prefix of it: ``memory_id`` here for
memories, ``memdesk.core.store.prefixes.resolve_id(conn, column, ref, what)`` for any
other id column (an ambiguous prefix is exit 2, an unknown one exit 4, through run())."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # imported when a command runs: start-up stays fast
    from memdesk.core.store.memory_store import MemoryStore

EXIT_ERROR, EXIT_USAGE, EXIT_STORE, EXIT_NOTFOUND, EXIT_CONFLICT = 1, 2, 3, 4, 5
EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a Unix tool whose reader left

# The one description of the exit codes: `memdesk --help` prints it; the README copies it.
EXIT_CODES_HELP = """\
exit codes:
  0    ok
  1    any other error memdesk reports (a message on stderr); a recall check
       failed (`memdesk checks run`)
  2    bad input: unknown option, invalid value, ambiguous id prefix, a diff of
       two goals; nothing changed
  3    the store cannot be opened or used: missing, locked, damaged, not a
       memdesk store, an older or newer schema, disk full, read-only
  4    not found: no such memory, event, sweep, sweep item, group or snapshot
  5    refused by the store's current state: already undone, changed again since,
       an edit based on an older version (--if-version), already deleted, already
       decided, nothing to sweep, no recall checks to run; nothing changed
  130  interrupted (Ctrl-C): an import stops after its current batch and reports
  141  the reader of the output went away (e.g. `memdesk list | head`)
"""


RIGHTS_EPILOG = "{rights}"


class RightsHelp(argparse.RawDescriptionHelpFormatter):
    """A help formatter that writes the declared rights table (core/guard/rights.py)
    where a parser's epilog is :data:`RIGHTS_EPILOG`: imported only when help is shown,
    so building the parsers does not load the guard package on every command."""

    def add_text(self, text: str | None) -> None:
        if text == RIGHTS_EPILOG:
            from memdesk.core.guard.rights import rights_help

            text = rights_help()
        super().add_text(text)


JSON_HELP = "print JSON instead of text"
NOTE_HELP = "a note kept with the audit event (shown in history)"
# Who an audited change is signed by.  A CLI user is the operator: agents write through
# `memdesk mcp` or `memdesk store` (their provenance is recorded there), the worker is
# the background extractor.  An operator claiming to be either would forge the audit
# trail the guard's curated-memory check reads ("operator" events make a memory curated).
OPERATOR_ACTORS = ("operator",)


def operator_actor(value: str) -> str:
    """``--actor``: only what an operator may claim."""
    if value not in OPERATOR_ACTORS:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an actor a CLI user may sign as (choose from "
            f"{', '.join(OPERATOR_ACTORS)}); agents write through `memdesk store` or "
            "`memdesk mcp`, which record their provenance")
    return value


def add_actor_option(p: argparse.ArgumentParser) -> None:
    """``--actor``, kept for scripts that pass ``--actor operator``."""
    p.add_argument("--actor", default="operator", type=operator_actor,
                   metavar="|".join(OPERATOR_ACTORS),
                   help="who the audit event is signed by: operator, the only actor a "
                        "CLI user may claim (the default)")


def common_options() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument(
        "--db", default=argparse.SUPPRESS, metavar="URL|PATH",
        help="store to use: a file path or a SQLAlchemy URL (default: the user data dir)",
    )
    return p


def output_closed() -> int:
    """The reader of stdout went away (`memdesk list | head`): stop quietly, like other
    Unix tools, with EXIT_PIPE.  stdout is pointed at devnull so the interpreter's final
    flush cannot raise (and print a traceback) again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_PIPE


def event_number(text: str) -> int:
    """An audit event's number as `show` prints it (``#12``) or bare (``12``)."""
    try:
        n = int(text.strip().removeprefix("#"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an event number like 12, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"event numbers start at 1, got {text!r}")
    if n > MAX_EVENT:  # no database integer holds it: there is no such event
        raise argparse.ArgumentTypeError(f"no event has a number this large: {text!r}")
    return n


MAX_EVENT = 2**63 - 1  # the largest integer SQLite and PostgreSQL (bigint) store


def undo_target(text: str) -> int | str:
    """What `memdesk undo` takes: an event number (``12``, ``#12``) or an action group
    id (hex, in full or a unique prefix of at least 4 characters).  A number is an
    event; a group prefix of digits only is given with more of its characters."""
    ref = text.strip()
    if ref.removeprefix("#").isdigit():
        return event_number(ref)
    if ref and all(c in "0123456789abcdefABCDEF" for c in ref):
        return ref.lower()
    raise argparse.ArgumentTypeError(
        f"expected an event number like 12 or an action group id (hex, as `add`, "
        f"`import` or `resolve` printed it), got {text!r}")


def parse_range(text: str) -> tuple[float, float]:
    """``LO:HI`` of scores in [0, 1], LO <= HI (NaN and infinities refused)."""
    from memdesk.core.errors import ValidationError
    from memdesk.core.taxonomy import check_unit

    try:
        lo, hi = (float(x) for x in text.split(":", 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO:HI, e.g. 0.3:0.49, got {text!r}") from None
    try:
        lo, hi = check_unit("LO", lo), check_unit("HI", hi)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (in {text!r})") from None
    if lo > hi:  # refused, as the MCP tools refuse it, rather than matching nothing
        raise argparse.ArgumentTypeError(
            f"LO {lo:g} is above HI {hi:g} in {text!r}: write the lower bound first")
    return lo, hi


def whole_number(text: str) -> int:
    """A whole number >= 0 (a limit, an offset)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return n


def seconds(text: str) -> float:
    """A positive, finite number of seconds (a lease, a poll interval)."""
    import math

    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(s) or s <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return s


_T = TypeVar("_T")


def checked(check: Callable[[str], _T]) -> Callable[[str], _T]:
    """An argparse type from a core check (``taxonomy.check_type``…): its message on exit 2."""
    from memdesk.core.errors import ValidationError

    def convert(text: str) -> _T:
        try:
            return check(text)
        except ValidationError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None

    return convert


def err(msg: str) -> None:
    """A message on stderr; a stored value it quotes is shown, never obeyed."""
    from memdesk.core.guard.visible import reveal

    print(f"memdesk: {reveal(msg)}", file=sys.stderr)


# Stores the running command opened; cli.run closes them when it returns.  A process
# exit would drop the connections anyway, but main() also runs in-process (tests, the
# GUI's smoke path), and a PostgreSQL connection left open there leaks a server backend.
_OPENED: list[MemoryStore] = []


def open_store(args: argparse.Namespace, *, create: bool = True) -> MemoryStore:
    from memdesk.core.store.backup import keep_backed_up
    from memdesk.core.store.memory_store import MemoryStore

    if not create:
        _refuse_missing(args.db)
    store = MemoryStore.open(args.db, create=create)
    _OPENED.append(store)
    keep_backed_up(store)  # every command, `worker` and `mcp` included: from the first write
    if store.report and store.report.message:
        err(store.report.message)
    return store


def _refuse_missing(db: str | None) -> None:
    """A command that reads needs a store: when the file is not there, say how one is
    made (a new machine has none until something writes)."""
    from memdesk.core.errors import StoreOpenError
    from memdesk.core.store.db import default_store_path, sqlite_path, to_url

    path = sqlite_path(to_url(db))
    if path is None or path.exists():
        return
    where = "" if path == default_store_path() else f" --db {path}"
    raise StoreOpenError(
        f"There is no store at {path}. `memdesk{where} add --user U --type note --text "
        f"…` creates it with its first memory (so does opening it in the desktop app, "
        f"`memdesk{where}`); `memdesk demo --out FILE` writes a demo store to try "
        f"commands on with --db FILE.")


def close_opened() -> None:
    """Close every store ``open_store`` opened (closing twice is harmless)."""
    while _OPENED:
        _OPENED.pop().close()


def memory_id(store: MemoryStore, ref: str) -> str:
    """A memory's full id from its id or a unique prefix (exit 2 if ambiguous, 4 if none)."""
    from memdesk.core.store.prefixes import memory_id as resolve

    with store.read() as conn:
        return resolve(conn, ref)


def fmt_dt(v: datetime | None) -> str:
    return v.strftime("%Y-%m-%d %H:%M") if v else "-"


def short(text: str, n: int = 70) -> str:
    """A stored text's preview for one terminal line: visible, cut to ``n``
    characters (app/cli/shown.py: ``cell``)."""
    from memdesk.app.cli.shown import cell

    return cell(text, n)


