"""``memdesk extract|store|jobs|worker|embed``: the write path from the command line.

``extract`` is a dry run (stores nothing); ``store`` enqueues a turn and prints the job
id at once; ``worker`` processes the queue in the foreground until Ctrl+C or SIGTERM;
``jobs`` lists jobs, retries failed ones and cancels pending ones; ``embed`` fills in
missing vectors.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from memdesk.app.cli.common import (
    EXIT_STORE,
    EXIT_USAGE,
    JSON_HELP,
    err,
    fmt_dt,
    open_store,
    seconds,
    short,
)
from memdesk.app.cli.shown import cell, json_text

if TYPE_CHECKING:  # imported when a command runs: start-up stays fast
    from memdesk.core.write.extract import ExtractorConfig


def read_text(value: str) -> str:
    """TEXT, or standard input when TEXT is ``-`` (a long turn cannot go through argv)."""
    if value != "-":
        return value
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace")


def _ollama_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--offline", action="store_true",
                   help="use the offline heuristic extractor, never Ollama")
    p.add_argument("--ollama-host", metavar="URL",
                   help="Ollama server (default: $MEMDESK_OLLAMA_HOST or localhost:11434)")
    p.add_argument("--ollama-model", metavar="NAME",
                   help="Ollama model (default: $MEMDESK_OLLAMA_MODEL or llama3.2)")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="seconds to wait for Ollama (default 60)")
    p.add_argument("--no-fallback", action="store_true",
                   help="fail instead of using the heuristic extractor when Ollama fails")


@contextmanager
def _signals(handler: Callable[[int, Any], None]) -> Iterator[None]:
    """SIGINT/SIGTERM → ``handler`` (a clean stop) for the block; the old handlers after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser],
             common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("extract", parents=[common],
                       help="dry run: show the memory units a turn would give; stores nothing")
    p.add_argument("text", metavar="TEXT", help="the turn ('-' reads standard input)")
    p.add_argument("--user", default="user", dest="user_id",
                   help="whose turn it is (default: user)")
    p.add_argument("--topic", help="the topic the units get")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    _ollama_options(p)
    p.set_defaults(handler=cmd_extract)

    p = sub.add_parser("store", parents=[common],
                       help="queue a conversation turn for extraction; prints the job id")
    p.add_argument("text", metavar="TEXT", help="the turn ('-' reads standard input)")
    p.add_argument("--user", required=True, dest="user_id", help="whose memory it is")
    p.add_argument("--session", dest="session_id", help="the conversation's id")
    p.add_argument("--topic", help="a short subject to file the memories under")
    p.add_argument("--speaker", help="who said the turn: user, assistant or a name")
    p.add_argument("--said-at", dest="said_at", metavar="WHEN",
                   help="when the conversation took place, ISO 8601 (2023-05-08T13:56Z); "
                        "'yesterday' in the turn is read against it")
    p.set_defaults(handler=cmd_store)

    p = sub.add_parser("jobs", parents=[common],
                       help="list extraction jobs, retry a failed one, cancel a pending one")
    p.add_argument("--status", action="append", default=[], dest="statuses",
                   choices=["pending", "running", "done", "failed", "cancelled"],
                   help="only jobs in this state (repeatable)")
    p.add_argument("--limit", type=int, default=50, help="at most N jobs (default 50)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    jsub = p.add_subparsers(dest="jobs_command", metavar="ACTION")
    r = jsub.add_parser("retry", parents=[common], help="put a failed job back in the queue")
    r.add_argument("job_id", help="the failed job's id")
    c = jsub.add_parser(
        "cancel", parents=[common], help="cancel a pending job: no worker will take it",
        description="Cancel a pending job (its id or a unique prefix). No worker claims a "
        "cancelled job; `memdesk undo EVENT` puts it back to pending. A running job "
        "cannot be cancelled (exit 5).")
    c.add_argument("job_id", help="the pending job's id")
    p.set_defaults(handler=cmd_jobs)

    p = sub.add_parser("worker", parents=[common],
                       help="process queued jobs in the foreground (Ctrl+C stops)")
    _ollama_options(p)
    p.add_argument("--drain", action="store_true", help="exit when the queue is empty")
    p.add_argument("--no-embed", action="store_true", help="store memories without vectors")
    p.add_argument("--lease", type=seconds, default=None, metavar="S",
                   help="seconds a claimed job is reserved (default 300)")
    p.add_argument("--poll", type=seconds, default=1.0, metavar="S",
                   help="seconds between looks at an empty queue (default 1)")
    p.add_argument("--batch", type=int, default=8, metavar="N",
                   help="jobs claimed together, their units embedded in one call (default 8)")
    p.set_defaults(handler=cmd_worker)

    p = sub.add_parser("embed", parents=[common], help="write vectors for memories lacking one")
    p.add_argument("--backfill", action="store_true",
                   help="embed every memory lacking a vector (the default action)")
    p.add_argument("--batch", type=int, default=256, metavar="N",
                   help="memories per transaction (default 256)")
    p.add_argument("--reembed", action="store_true",
                   help="clear every vector first (after a model change), then backfill")
    p.set_defaults(handler=cmd_embed)

    p = sub.add_parser("episodes", parents=[common],
                       help="the turns kept as said: show one's units, or prune old ones")
    esub = p.add_subparsers(dest="episodes_command", metavar="ACTION", required=True)
    e = esub.add_parser("show", parents=[common],
                        help="an episode's speaker, session, time and units; or the "
                             "episode a unit came from")
    e.add_argument("memory_id", help="an episode's or a unit's id")
    e.add_argument("--json", action="store_true", help=JSON_HELP)
    e = esub.add_parser(
        "prune", parents=[common],
        help="soft-delete old episodes never recalled and with no unit kept (one undoable "
             "step; --dry-run says how many and how much space first)")
    e.add_argument("--older-than", dest="older_than", type=float, required=True,
                   metavar="DAYS", help="said (or stored) more than DAYS days ago")
    e.add_argument("--user", dest="user_id", help="only this user's episodes")
    e.add_argument("--include-recalled", action="store_true",
                   help="also episodes a retrieval has returned")
    e.add_argument("--include-with-units", action="store_true",
                   help="also episodes whose extracted units are still active")
    e.add_argument("--dry-run", action="store_true", help="say what would go; change nothing")
    e = esub.add_parser("undo", parents=[common], help="bring back what a prune removed")
    e.add_argument("action_group", help="the group `episodes prune` printed (or a prefix)")
    p.set_defaults(handler=cmd_episodes)


def cmd_episodes(args: argparse.Namespace) -> int:
    from memdesk.core.curation.episodes import EpisodePruning
    from memdesk.core.errors import NotFoundError
    from memdesk.core.store.episodes import Episodes

    store = open_store(args, create=False)
    if args.episodes_command == "undo":
        from memdesk.core.store.prefixes import action_group_id
        from memdesk.core.undo.generic import undo_group

        with store.read() as conn:
            gid = action_group_id(conn, args.action_group)
        ch = undo_group(store, gid)
        print(f"undone: {len(ch.event_ids):,} episode(s) back")
        return 0
    if args.episodes_command == "show":
        episodes = Episodes(store)
        rec = store.get(args.memory_id)
        own = episodes.get(rec.id)
        info = own or episodes.source_of(rec.id)
        if info is None:
            raise NotFoundError(f"memory {rec.id} is no episode and came from none")
        units = episodes.units_of(info.id)
        if args.json:
            print(json_text({**info.to_json(), "units": units}, indent=1))
            return 0
        said = f"{info.said_at:%Y-%m-%d %H:%M}" if info.said_at else "time not given"
        print(f"episode {info.id}  {short(info.speaker or 'speaker not given', 30)}  "
              f"session {short(info.session_id or '-', 30)}  {said}")
        if info.event_start is not None:
            print(f"  happened: {info.event_date} ({short(info.event_phrase or '', 40)})")
        print(f"  {len(units)} unit(s) extracted" + (": " + ", ".join(units) if units else ""))
        return 0
    pruning = EpisodePruning(store)
    plan = pruning.plan(args.older_than, user=args.user_id,
                        include_recalled=args.include_recalled,
                        include_with_units=args.include_with_units)
    if args.dry_run or not plan.count:
        print(("would prune " if plan.count else "nothing to prune: ") + plan.describe())
        return 0
    changes = pruning.prune(plan)
    print(f"pruned {plan.describe()}; `memdesk episodes undo {changes.group_id}` brings "
          "them back")
    return 0


def _config(args: argparse.Namespace) -> ExtractorConfig:
    from memdesk.core.errors import ValidationError
    from memdesk.core.write.extract import ExtractorConfig

    if args.timeout is not None and not args.timeout > 0:
        raise ValidationError("--timeout", "must be a positive number of seconds")
    return ExtractorConfig.from_env(
        offline=args.offline, host=args.ollama_host, model=args.ollama_model,
        timeout=args.timeout, fallback=not args.no_fallback)


def cmd_extract(args: argparse.Namespace) -> int:
    from memdesk.core.write.extract import make_extractor
    from memdesk.core.write.router import is_session_scoped, route
    from memdesk.core.write.units import Turn

    config = _config(args)
    turn = Turn(read_text(args.text), args.user_id, None, args.topic)
    out = make_extractor(config).extract(turn)
    layers = ["working (not stored)" if is_session_scoped(u.text) else route(u.type).value
              for u in out.units]
    if args.json:
        print(json_text({
            "extractor": out.extractor, "model": out.model, "notes": out.notes,
            "units": [{**u.to_json(), "layer": lay} for u, lay in zip(out.units, layers,
                                                                      strict=True)],
        }, indent=1))
        return 0
    who = out.extractor + (f" ({out.model})" if out.model else "")
    print(f"extractor: {who}   (dry run: nothing was stored)")
    for note in out.notes:
        print(f"  note: {cell(note)}")
    if not out.units:
        print("no memory units: nothing in this turn is worth remembering")
    for u, lay in zip(out.units, layers, strict=True):
        triple = (f"  [{cell(u.entity)} · {cell(u.attribute)} · {cell(u.value)}]"
                  if u.attribute else "")
        print(f"- {u.type:<10} imp {u.importance:.2f} conf {u.confidence:.2f} "
              f"{lay:<10} {cell(u.text)}{triple}")
    return 0


def cmd_store(args: argparse.Namespace) -> int:
    from memdesk.core.write.jobs import JobQueue
    from memdesk.core.write.units import Turn, parse_said_at

    turn = Turn(read_text(args.text), args.user_id, args.session_id, args.topic,
                speaker=args.speaker, said_at=parse_said_at(args.said_at))
    store = open_store(args)
    with store.write() as conn:
        job_id, screened = JobQueue(store).enqueue_screened_in(conn, turn)
    print(job_id)  # alone on stdout: scripts read the id
    if screened.note():
        err(f"secrets: {screened.note()}")
    return 0


def _job_line(j: Any) -> str:
    tail = j.error or (f"{len(j.memory_ids)} memories" if j.status == "done" else "")
    return (f"{j.id}  {j.status:<8} {fmt_dt(j.created_at)}  {cell(j.user_id):<10} "
            f"{short(j.text, 40):<40}  {short(tail, 60)}")


def cmd_jobs(args: argparse.Namespace) -> int:
    from memdesk.core.write.jobs import JobQueue

    store = open_store(args, create=False)
    queue = JobQueue(store)
    if args.jobs_command == "retry":
        job = queue.retry(args.job_id)
        print(f"job {job.id} is pending again")
        return 0
    if args.jobs_command == "cancel":
        job_id = queue.resolve(args.job_id)
        changes = queue.cancel(job_id)
        print(f"job {job_id} cancelled (event {changes.event_ids[0]}; "
              f"`memdesk undo {changes.event_ids[0]}` puts it back to pending)")
        return 0
    jobs = queue.list(tuple(args.statuses), limit=args.limit)
    if args.json:
        print(json_text([j.to_json() for j in jobs], indent=1))
        return 0
    counts = queue.counts()
    print("  ".join(f"{k}: {v}" for k, v in counts.items()))
    for j in jobs:
        print(_job_line(j))
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from memdesk.core.curation.at_write import WRITE_HOOKS
    from memdesk.core.write.extract import make_extractor
    from memdesk.core.write.jobs import DEFAULT_LEASE_S
    from memdesk.core.write.worker import Worker, WorkerConfig

    if args.batch < 1:
        err("--batch must be at least 1")
        return EXIT_USAGE
    config = _config(args)
    store = open_store(args)
    worker = Worker(store, make_extractor(config), WorkerConfig(
        embed=not args.no_embed, lease_s=args.lease or DEFAULT_LEASE_S, poll_s=args.poll,
        batch=args.batch), hooks=WRITE_HOOKS)

    def stop(_signum: int, _frame: object) -> None:
        worker.stop()  # finish the job in hand, then leave

    def report(o: Any) -> None:
        detail = o.error or f"{len(o.memory_ids)} memories"
        print(f"{o.job_id} {o.status} {detail}", flush=True)

    mode = "offline heuristic" if config.offline else f"{config.model} at {config.host}"
    with _signals(stop):
        # Before the first claim: a worker killed while its model loads holds no job.
        worker.load_model()
        err(f"worker {worker.identity} ready ({mode}); Ctrl+C stops")
        n = worker.run(drain=args.drain, on_outcome=report)
    err(f"worker stopped after {n} job(s)")
    return 0


def cmd_embed(args: argparse.Namespace) -> int:
    from memdesk.core import embeddings
    from memdesk.core.write.embed import EmbeddingSpaceMismatch, backfill, reembed_all

    if args.batch < 1:
        err("--batch must be at least 1")
        return EXIT_USAGE
    reason = embeddings.unavailable_reason()
    if reason:
        err(reason)
        return EXIT_STORE
    store = open_store(args, create=False)
    # Loaded first, even with nothing to embed: the first load on a machine exports the
    # fast runtime's model (core/onnx_encoder.py), so one `memdesk embed` after
    # installing spares the first `memdesk mcp` that wait.
    embedder = embeddings.default_embedder()
    try:
        embedder.load()
    except embeddings.EmbeddingsUnavailable as exc:
        err(str(exc))
        return EXIT_STORE
    if embedder.fallback_reason:
        err(embedder.fallback_reason)
    if args.reembed:
        n = reembed_all(store)
        err(f"cleared {n:,} vectors; re-embedding with {embeddings.MODEL_NAME}")

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{done:,} / {total:,}", end="", file=sys.stderr, flush=True)

    interrupted = False

    def cancelled() -> bool:
        return interrupted

    def on_int(_s: int, _f: object) -> None:
        nonlocal interrupted
        interrupted = True

    try:
        with _signals(on_int):
            rep = backfill(store, batch=args.batch, progress=progress, cancelled=cancelled)
    except EmbeddingSpaceMismatch as exc:
        err(str(exc))
        return EXIT_STORE
    if sys.stderr.isatty():
        print(file=sys.stderr)
    state = "stopped early; run again to continue" if rep.cancelled else "done"
    print(f"embedded {rep.embedded:,} memories with {rep.model} ({state}; "
          f"{rep.remaining:,} still without a vector)")
    return 0
