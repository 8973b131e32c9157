"""Command-line interface for scripts and agents: ``memdesk add|list|show|demo|db|undo``.

Exit codes are listed once, in app/cli/common.py's EXIT_CODES_HELP (shown by ``memdesk --help``
and copied in the README).  Ids may be given as unique prefixes (core/store/prefixes.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memdesk.app.cli import agents as cli_agents
from memdesk.app.cli import archive as cli_archive
from memdesk.app.cli import checks as cli_checks
from memdesk.app.cli import curation as cli_curation
from memdesk.app.cli import db as cli_db
from memdesk.app.cli import delta as cli_delta
from memdesk.app.cli import duplicates as cli_duplicates
from memdesk.app.cli import edit as cli_edit
from memdesk.app.cli import erasure as cli_erasure
from memdesk.app.cli import read as cli_read
from memdesk.app.cli import secrets as cli_secrets
from memdesk.app.cli import tokens as cli_tokens
from memdesk.app.cli import transfer as cli_transfer
from memdesk.app.cli import write as cli_write
from memdesk.app.cli.common import (
    EXIT_CODES_HELP,
    EXIT_CONFLICT,
    EXIT_ERROR,
    EXIT_NOTFOUND,
    EXIT_STORE,
    EXIT_USAGE,
    JSON_HELP,
    add_actor_option,
    checked,
    close_opened,
    common_options,
    err,
    fmt_dt,
    memory_id,
    open_store,
    output_closed,
    parse_range,
    short,
    undo_target,
    whole_number,
)
from memdesk.app.cli.shown import cell, json_text
from memdesk.core.errors import (
    EditConflictError,
    MemdeskError,
    NotFoundError,
    StoreOpenError,
    UndoConflictError,
    ValidationError,
)
from memdesk.core.store.prefixes import AmbiguousIdError
from memdesk.core.store.query import SORT_KEYS, MemoryFilter, Status
from memdesk.core.taxonomy import Layer, MemoryType, check_layer, check_type

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore


def build_parser() -> argparse.ArgumentParser:
    common = common_options()
    parser = argparse.ArgumentParser(
        prog="memdesk",
        description="Inspect and curate AI agents' long-term memory stores. Without a "
                    "command, opens the desktop app. Ids (memories, sweeps, snapshots, "
                    "groups) may be shortened to a unique prefix of at least 4 characters.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # Not via parents=[common]: set_defaults would change the shared action's default.
    parser.add_argument("--db", default=None, metavar="URL|PATH",
                        help="store to use: a file path or a SQLAlchemy URL")
    parser.add_argument("--demo", action="store_true",
                        help="open (creating if needed) the demo store in the GUI")
    parser.add_argument("--size", type=int, default=5000,
                        help="rows for a new demo store (with --demo)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("add", parents=[common], help="add one memory (direct, audited insert)")
    p.add_argument("--user", required=True, dest="user_id",
                   help="whose memory it is (the user id agents write under)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="the memory's text ('-' reads standard input)")
    src.add_argument("--text-file", type=Path, metavar="FILE", help="read the text from FILE")
    p.add_argument("--type", required=True, help="one of: " + ", ".join(MemoryType))
    p.add_argument("--layer", help="one of: " + ", ".join(Layer))
    p.add_argument("--topic", help="a free-form topic (e.g. tech, work, health)")
    p.add_argument("--importance", type=str, default="0.5",
                   help="how much it matters, 0 to 1 (default 0.5)")
    p.add_argument("--confidence", type=str, default="0.8",
                   help="how sure the writer is, 0 to 1 (default 0.8)")
    p.add_argument("--session", dest="source_session",
                   help="the conversation or session it came from")
    p.add_argument("--framing", choices=["hypothetical"],
                   help="a supposition: kept, never an active belief (confidence <= 0.3)")
    p.add_argument("--entity", help="what the memory is about, e.g. user or a project")
    p.add_argument("--attribute", help="which of the entity's attributes, e.g. lives_in")
    p.add_argument("--value", help="the attribute's value, e.g. Lisbon")
    add_actor_option(p)
    p.add_argument("--json", action="store_true",
                   help="print the stored memory as JSON (with its event_id)")

    p = sub.add_parser("list", parents=[common], help="list memories with filters")
    p.add_argument("--text", default="", help="full-text search (words; last one as prefix)")
    p.add_argument("--user", action="append", default=[], dest="users",
                   help="only this user's memories (repeat for several)")
    p.add_argument("--type", action="append", default=[], dest="types",
                   type=checked(check_type),
                   help="only this type (repeatable): " + ", ".join(MemoryType))
    p.add_argument("--layer", action="append", default=[], dest="layers",
                   type=checked(check_layer),
                   help="only this layer (repeatable): " + ", ".join(Layer))
    p.add_argument("--topic", action="append", default=[], dest="topics",
                   help="only this topic (repeatable)")
    p.add_argument("--status", action="append", default=[], dest="statuses",
                   choices=[s.value for s in Status],
                   help="default: every status but deleted and hypothetical "
                        "(--status hypothetical lists the suppositions)")
    p.add_argument("--importance", type=parse_range, metavar="LO:HI",
                   help="importance between LO and HI, both included (e.g. 0.3:0.49)")
    p.add_argument("--confidence", type=parse_range, metavar="LO:HI",
                   help="confidence between LO and HI, both included (e.g. 0:0.4)")
    p.add_argument("--sort", default="created_at", choices=SORT_KEYS, metavar="KEY",
                   help="order by KEY, newest or largest first (default created_at): "
                        + ", ".join(SORT_KEYS))
    p.add_argument("--asc", action="store_true", help="oldest or smallest first")
    p.add_argument("--limit", type=whole_number, default=50,
                   help="at most N memories (default 50)")
    p.add_argument("--offset", type=whole_number, default=0,
                   help="skip the first N matches (default 0)")
    p.add_argument("--count", action="store_true", help="print only the number of matches")
    p.add_argument("--json", action="store_true", help=JSON_HELP)

    p = sub.add_parser("show", parents=[common], help="show one memory, its chain and history")
    p.add_argument("id", help="memory id or a unique prefix of it")
    p.add_argument("--json", action="store_true", help=JSON_HELP)

    p = sub.add_parser(
        "undo", parents=[common], help="undo an audited action: one event or a whole group",
        description="Undo an audited action: one event by its number (`add`, `edit`, "
                    "`delete` and `show` print it), or a whole action group by its id (an "
                    "import, a contradiction resolution, a duplicates merge, a sweep "
                    "decision: the id the command printed, or a unique prefix). The older "
                    "spellings `import --undo GROUP`, `contradictions undo GROUP` and "
                    "`duplicates undo GROUP` still work and do the same. An action "
                    "already undone, or whose fields were changed again since, is refused "
                    "with exit code 5 (nothing changes).",
    )
    p.add_argument("target", type=undo_target, metavar="EVENT|GROUP",
                   help="an event number ('12' or '#12') or an action group id (or a "
                        "unique prefix of at least 4 characters)")

    # The demo writes a new file, so it names it with --out; it takes no --db (which
    # everywhere else names an existing store) so there is one way to say which file.
    p = sub.add_parser(
        "demo", help="write a new deterministic demo store to --out",
        description="Write a new demo store (realistic users, sessions, corrections and "
                    "contradictions) to the file given by --out; open it later with --db.",
    )
    p.add_argument("--out", required=True, type=Path, metavar="PATH",
                   help="the store file to create")
    p.add_argument("--db", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--size", type=int, default=5000, help="number of memories (default 5000)")
    p.add_argument("--seed", type=int, default=7,
                   help="random seed: the same seed writes the same store (default 7)")
    p.add_argument("--force", action="store_true", help="replace an existing file")
    p.add_argument("--no-vectors", dest="vectors", action="store_false",
                   help="write no vectors (by default the vectors shipped with memdesk "
                        "are written: all of the default demo's, some of another size's)")

    # Feature modules add their own subcommands (each: register(subparsers, common)).
    for module in (cli_edit, cli_db, cli_curation, cli_delta, cli_write, cli_read, cli_transfer,
                   cli_agents, cli_duplicates, cli_tokens, cli_secrets, cli_erasure,
                   cli_checks, cli_archive):
        module.register(sub, common)
    return parser


def cmd_add(args: argparse.Namespace) -> int:
    if args.text_file is not None:
        try:
            args.text = args.text_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            err(f"cannot read --text-file {args.text_file}: {exc}")
            return EXIT_USAGE
    else:
        args.text = cli_write.read_text(args.text)
    store = open_store(args)
    fields = {k: getattr(args, k) for k in (
        "user_id", "text", "type", "layer", "topic", "importance", "confidence",
        "source_session", "entity", "attribute", "value", "framing",
    )}
    from memdesk.core.write.secrets_lane import SecretsLane  # the secrets policy applies

    rec, screened = SecretsLane(store).add(
        actor=args.actor, **{k: v for k, v in fields.items() if v is not None})
    event = rec.changes.undo_event  # the add's event: what `memdesk undo` takes
    if args.json:
        out = {**rec.to_json(), "event_id": event, "secrets": screened.to_json()}
        if screened.held:  # never echo a held secret back
            out = {k: v for k, v in out.items() if k not in ("text", "value", "embedding")}
        print(json_text(out))
    else:
        print(f"added {rec.id} (event {event}; `memdesk undo {event}` takes it back)")
        if screened.note():
            print(f"secrets: {screened.note()}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    store = open_store(args, create=False)
    flt = MemoryFilter(
        text=args.text, user_ids=tuple(args.users), types=tuple(args.types),
        layers=tuple(args.layers), topics=tuple(args.topics),
        statuses=tuple(Status(s) for s in args.statuses),
        importance=args.importance, confidence=args.confidence,
    )
    if args.count:
        print(store.count(flt))
        return 0
    rows = store.page(flt, order_by=args.sort, descending=not args.asc,
                      offset=args.offset, limit=args.limit)
    if args.json:
        print(json_text([r.to_json() for r in rows], indent=1))
        return 0
    for r in rows:
        print(f"{r.id}  {r.type:<10} {r.importance:4.2f} {r.confidence:4.2f} "
              f"{r.status.value:<10} {cell(r.user_id):<10} {short(r.text)}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    store = open_store(args, create=False)
    mid = memory_id(store, args.id)
    rec = store.get(mid)
    older, newer = store.chain(mid)
    events = store.events(mid)
    if args.json:
        out = rec.to_json()
        out["replaced"] = [r.id for r in older]
        out["replaced_by"] = [r.id for r in newer]
        out["history"] = [
            {"event": e.id, "actor": e.actor, "action": e.action, "at": e.at.isoformat(),
             "before": {k: str(v) if isinstance(v, datetime) else v for k, v in e.before.items()},
             "after": {k: str(v) if isinstance(v, datetime) else v for k, v in e.after.items()},
             "undone_by": e.undone_by}
            for e in events
        ]
        print(json_text(out, indent=1))
        return 0
    for k, v in rec.to_json().items():
        print(f"{k:>15}: {cell(v)}")
    for r in older:
        print(f"{'replaced':>15}: {r.id} {short(r.text, 50)}")
    for r in newer:
        print(f"{'replaced by':>15}: {r.id} {short(r.text, 50)}")
    for e in events:
        undone = f" (undone by {e.undone_by})" if e.undone_by else ""
        print(f"{'event':>15}: #{e.id} {fmt_dt(e.at)} {cell(e.actor)} {e.action} "
              f"{cell(', '.join(sorted(e.after)))}{undone}")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    from memdesk.core.store.prefixes import action_group_id
    from memdesk.core.undo.generic import undo_event, undo_group

    store = open_store(args, create=False)
    if isinstance(args.target, int):  # a memory's event, or a job's cancel
        ch = undo_event(store, args.target)
        print(f"undone: event {args.target} (new event {ch.event_ids[0]})")
        return 0
    try:
        with store.read() as conn:
            group = action_group_id(conn, args.target)
    except NotFoundError:  # not a memory group: a delta-memory one, by its full id
        # (undo_group says so when there is none)
        group = args.target
    ch = undo_group(store, group)
    print(f"undone: action group {group}, {len(ch.event_ids):,} change"
          f"{'' if len(ch.event_ids) == 1 else 's'} (`memdesk undo {ch.group_id}` redoes it)")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from memdesk.core import demo
    from memdesk.core.store.memory_store import MemoryStore

    if args.db is not None:
        err("demo writes a new store to the file given by --out; --db is not used here")
        return EXIT_USAGE
    out: Path = args.out
    if out.exists() and out.stat().st_size > 0:
        if not args.force:
            err(f"{out} exists; pass --force to replace it")
            return EXIT_USAGE
        for suffix in ("", "-wal", "-shm"):
            Path(str(out) + suffix).unlink(missing_ok=True)
    if args.size < 0:
        err("--size must be >= 0")
        return EXIT_USAGE
    store = MemoryStore.open(out)

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{done:,} / {total:,}", end="", file=sys.stderr, flush=True)

    n = demo.generate(store, args.size, seed=args.seed, progress=progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"wrote {n:,} memories to {out}")
    print(_demo_vectors(store, out, args.vectors))
    store.close()
    return 0


def _demo_vectors(store: MemoryStore, out: Path, wanted: bool) -> str:
    """Write the shipped vectors and say plainly what the new demo has (and how to get
    the rest): a demo without vectors has an empty vector channel in Retrieval."""
    from memdesk.core.demo.vectors import write_shipped
    from memdesk.core.write.embed import missing_count

    embed = f"`memdesk embed --backfill --db {out}` embeds them"
    if not wanted:
        return f"vectors: none written (--no-vectors); {embed}"
    done = write_shipped(store)
    if done.reason is not None:
        return f"vectors: none written: {done.reason}; {embed}"
    if done.missing == 0:
        return f"vectors: {done.written:,} of {done.written:,} memories (shipped with memdesk)"
    left = missing_count(store)
    return (f"vectors: {done.written:,} written (shipped with memdesk: the default demo's, "
            f"--seed 7 --size 5000); {left:,} memories have none, their texts are not "
            f"among the shipped ones; {embed}")


HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "add": cmd_add,
    "list": cmd_list,
    "show": cmd_show,
    "undo": cmd_undo,
    "demo": cmd_demo,
}


def run(args: argparse.Namespace) -> int:
    handler = getattr(args, "handler", None) or HANDLERS[args.command]
    try:
        code = handler(args)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:  # before any broader handler: not an error of the command
        return output_closed()
    except AmbiguousIdError as exc:
        err(str(exc))
        return EXIT_USAGE
    except Exception as exc:  # every failure becomes a message and an exit code
        return report_error(exc, args)
    finally:
        close_opened()


def report_error(exc: BaseException, args: argparse.Namespace) -> int:
    """Print ``exc`` for people and return its exit code (the one mapping for the CLI).

    Driver and data errors (damaged page, undecodable text, bad timestamp, full disk,
    read-only file) are translated by core.store.faults; anything unforeseen is
    reported in one line (``MEMDESK_DEBUG=1`` re-raises it for a traceback).
    """
    import os

    from memdesk.core.store.backup import BackupError
    from memdesk.core.store.faults import as_store_error, safe_message

    mapped = as_store_error(exc, str(getattr(args, "db", None) or "the store"))
    if mapped is None:
        if os.environ.get("MEMDESK_DEBUG"):
            raise exc
        err(f"unexpected error: {type(exc).__name__}: {safe_message(exc)} "
            "(MEMDESK_DEBUG=1 shows details)")
        return EXIT_ERROR
    err(f"invalid value: {mapped}" if isinstance(mapped, ValidationError) else str(mapped))
    if isinstance(mapped, ValidationError):
        return EXIT_USAGE
    if isinstance(mapped, StoreOpenError | BackupError):
        return EXIT_STORE
    if isinstance(mapped, NotFoundError):
        return EXIT_NOTFOUND
    return EXIT_CONFLICT if _is_conflict(mapped) else EXIT_ERROR


def _is_conflict(exc: MemdeskError) -> bool:
    """Whether the store's current state refused the action (exit 5, nothing changed)."""
    # Imported here: the curation modules are not needed to run most commands.
    from memdesk.core.curation.contradictions import StaleGroupError
    from memdesk.core.curation.sweep import SweepError
    from memdesk.core.write.jobs import JobStateError

    return isinstance(exc, UndoConflictError | EditConflictError | SweepError | StaleGroupError
                      | JobStateError)
