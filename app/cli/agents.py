"""CLI for agents: ``memdesk mcp`` (the MCP server) and ``memdesk review``
(the poisoning guard's inbox: list, show, approve, reject)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memdesk.app.cli.common import (
    EXIT_USAGE,
    JSON_HELP,
    RIGHTS_EPILOG,
    RightsHelp,
    err,
    fmt_dt,
    open_store,
    short,
)
from memdesk.app.cli.shown import cell, json_text


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "mcp", parents=[common],
        help="run the MCP server for agents (stdio; --http for streamable HTTP, "
             "bearer tokens from `memdesk tokens`)",
        epilog=RIGHTS_EPILOG, formatter_class=RightsHelp)
    p.add_argument("--http", action="store_true",
                   help="serve streamable HTTP (--host, --port, path /mcp) instead of stdio")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (with --http)")
    p.add_argument("--host", default="127.0.0.1",
                   help="HTTP address (with --http; default 127.0.0.1). Any non-loopback "
                        "address needs a live token (memdesk tokens add)")
    p.add_argument("--no-vectors", action="store_true",
                   help="do not load the embedding model: keyword and graph retrieval only")
    p.add_argument("--offline", action="store_true",
                   help="extract with the offline heuristic extractor only (no Ollama)")
    p.add_argument("--user", action="append", dest="users", metavar="USER", default=[],
                   help="serve only this user (repeatable); with one, user_id may be left "
                        "out of calls.  Without --user/--users-from the server is unbound")
    p.add_argument("--users-from", metavar="FILE",
                   help="serve only the users listed in FILE (one per line, # comments)")
    p.add_argument("--rights", metavar="RIGHTS",
                   help="comma-separated rights this server allows any caller (default: "
                        "read,write,forget; purge only when named; over HTTP a token's "
                        "own rights narrow them further): which tool needs which is "
                        "listed below")
    p.set_defaults(handler=cmd_mcp)

    p = sub.add_parser("review", parents=[common],
                       help="agents' writes held by the poisoning guard: list, approve, reject")
    rsub = p.add_subparsers(dest="review_command", metavar="ACTION", required=True)
    r = rsub.add_parser("list", parents=[common],
                        help="list held memories with their reasons (secrets masked)")
    r.add_argument("--user", help="only this user's memories")
    r.add_argument("--lane", choices=["all", "secrets", "guard"], default="all",
                   help="secrets: only memories held for a secret; guard: only those the "
                        "guard's other rules hold (default: all)")
    r.add_argument("--limit", type=int, default=200,
                   help="at most N held memories (default 200)")
    r.add_argument("--json", action="store_true", help=JSON_HELP)
    r.set_defaults(handler=cmd_review_list)
    r = rsub.add_parser("show", parents=[common],
                        help="one held memory in full (a secret masked unless --reveal)")
    r.add_argument("id", help="the held memory's id or a unique prefix of it")
    r.add_argument("--reveal", action="store_true",
                   help="show a held secret unmasked (you are about to review it)")
    r.add_argument("--json", action="store_true", help=JSON_HELP)
    r.set_defaults(handler=cmd_review_show)
    for name, text in (("approve", "release held memories into the active belief state"),
                       ("reject", "reject held memories (soft delete; `memdesk undo` restores)")):
        r = rsub.add_parser(name, parents=[common], help=text)
        r.add_argument("ids", nargs="+", metavar="ID",
                       help="held memory ids or unique prefixes")
        r.add_argument("--note", help="why (kept in the audit log)")
        r.set_defaults(handler=cmd_review_decide, decision=name)
    r = rsub.add_parser("rules", parents=[common], help="the guard's rules and what they hold")
    r.set_defaults(handler=cmd_review_rules)


def served_users(args: argparse.Namespace) -> frozenset[str] | None:
    """The users of --user and --users-from (None: neither given, an unbound server).
    Raises ValueError with the message for the operator."""
    names = list(args.users)
    if args.users_from:
        try:
            with open(args.users_from, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"--users-from {args.users_from}: {exc}") from None
        listed = [n for n in (ln.split("#", 1)[0].strip() for ln in lines) if n]
        if not listed:
            raise ValueError(f"--users-from {args.users_from}: lists no user")
        names += listed
    if not names and not args.users_from:
        return None
    for n in names:
        if not n.strip() or len(n) > 200 or not n.isprintable():
            raise ValueError(f"--user {n!r}: a user id is 1-200 printable characters")
    return frozenset(names)


def cmd_mcp(args: argparse.Namespace) -> int:
    if not 1 <= args.port <= 65535:
        err("--port must be 1-65535")
        return EXIT_USAGE
    from memdesk.core.guard.tokens import TokenError, active_count, parse_rights
    try:
        users = served_users(args)
        rights = (None if args.rights is None
                  else frozenset(parse_rights(args.rights, "a server")))
    except (ValueError, TokenError) as exc:
        err(f"--rights {args.rights!r}: {exc}" if isinstance(exc, TokenError) else str(exc))
        return EXIT_USAGE
    from memdesk.app.mcp.auth import is_loopback
    from memdesk.app.mcp.pause import stdio_token
    from memdesk.app.mcp.server import serve
    from memdesk.core.write.extract import ExtractorConfig, make_extractor

    store = open_store(args)
    try:
        if args.http and not is_loopback(args.host) and active_count(store) == 0:
            err(f"refusing to serve on {args.host}: it is not a loopback address and this "
                "store has no live token, so anyone who can reach the port would be every "
                "user. Create one first (memdesk tokens add NAME --user U), or keep the "
                "default --host 127.0.0.1.")
            return EXIT_USAGE
        try:
            token = stdio_token(store, http=args.http)
        except TokenError as exc:
            err(str(exc))
            return EXIT_USAGE
        extractor = make_extractor(ExtractorConfig.from_env(offline=args.offline))
        serve(store, extractor, vectors=not args.no_vectors, http=args.http, port=args.port,
              host=args.host, users=users, rights=rights, token=token)
    finally:
        store.close()
    return 0


def _origin_text(item: Any) -> str:
    o = item.origin
    if o is None:  # held without an agent's origin (a correction, an import)
        return "-"
    token = f", token {cell(o.token)}" if o.token else ""
    return f"{cell(o.client_name)} ({o.source}, session {cell(o.session[:8])}{token})"


def cmd_review_list(args: argparse.Namespace) -> int:
    from memdesk.core.guard.review import Review

    store = open_store(args, create=False)
    items = Review(store).inbox(limit=args.limit, user_id=args.user, lane=args.lane)
    if args.json:
        print(json_text([i.to_json() for i in items], indent=1))
        return 0
    if not items:
        print("nothing is waiting for review")
        return 0
    for i in items:
        rules = ",".join(dict.fromkeys(f.rule_id for f in i.findings)) or "-"
        print(f"{i.memory.id}  {fmt_dt(i.memory.created_at)}  {cell(i.memory.user_id):<12} "
              f"{rules:<28} {short(i.shown_text(), 60)}")
    print(f"{len(items)} held for review", file=sys.stderr)
    return 0


def cmd_review_show(args: argparse.Namespace) -> int:
    from memdesk.core.guard.review import Review

    store = open_store(args, create=False)
    item = Review(store).item(args.id)
    if args.json:
        print(json_text(item.to_json(reveal=args.reveal), indent=1))
        return 0
    m = item.memory
    print(f"{'id':>10}: {m.id}\n{'status':>10}: {m.status.value}\n"
          f"{'user':>10}: {cell(m.user_id)}")
    print(f"{'type':>10}: {m.type}\n{'text':>10}: {cell(item.shown_text(args.reveal))}\n"
          f"{'from':>10}: {_origin_text(item)}")
    if item.secret_categories and not args.reveal:
        print(f"{'':>10}  (secrets masked: --reveal shows the text as written)")
    for f in item.findings:
        print(f"{'reason':>10}: [{f.rule_id}] {cell(f.reason)}")
    return 0


def cmd_review_decide(args: argparse.Namespace) -> int:
    from memdesk.core.guard.review import Review

    store = open_store(args, create=False)
    inbox = Review(store)
    fn = inbox.approve if args.decision == "approve" else inbox.reject
    changes = fn(args.ids, note=args.note)
    done = "approved" if args.decision == "approve" else "rejected"
    print(f"{done}: {len(changes.memory_ids)} memories (undo: memdesk undo EVENT for one, "
          f"events {', '.join(map(str, changes.event_ids))})")
    return 0


def cmd_review_rules(args: argparse.Namespace) -> int:
    from memdesk.core.guard.review import Review
    from memdesk.core.guard.rules import RULES

    store = open_store(args, create=False)
    counts = Review(store).rule_counts()
    for r in RULES:
        where = f"{r.scope.value}" + (f", from {'/'.join(r.sources)}" if r.sources else "")
        print(f"{r.id:<26} {counts.get(r.id, 0):>5} held  ({where})  {r.description}")
    from memdesk.core.guard.curated import HOLD_RULES

    for rid, description in HOLD_RULES.items():
        print(f"{rid:<26} {counts.get(rid, 0):>5} held  (corrections)  {description}")
    from memdesk.core.guard import SecretCategory

    for c in SecretCategory:
        rid = f"secret.{c.value}"
        print(f"{rid:<26} {counts.get(rid, 0):>5} held  (secrets lane)  holds "
              f"{c.label} when the store's policy says hold (`memdesk secrets policy`)")
    return 0
