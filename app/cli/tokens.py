"""``memdesk tokens add|list|log|pause|resume|revoke``: bearer tokens of the MCP server
(over HTTP, or a stdio server given one in ``MEMDESK_MCP_TOKEN``), and its access log
(every tool call, with the token's name).  ``pause`` refuses a token's calls until
``resume``, keeping its secret; ``revoke`` ends it for good.

The secret is printed once, by ``add``, and never again (the store keeps its SHA-256
only: core/guard/tokens.py).  ``memdesk mcp --http`` asks for a token on every request
as soon as the store has any; ``--host`` other than loopback needs one live token."""

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
)
from memdesk.app.cli.shown import cell, json_text


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("tokens", parents=[common],
                       help="bearer tokens for the MCP server over HTTP: add, list, revoke")
    tsub = p.add_subparsers(dest="tokens_command", metavar="ACTION", required=True)
    t = tsub.add_parser("add", parents=[common],
                        help="create a token (its secret is printed once, never stored)",
                        epilog=RIGHTS_EPILOG, formatter_class=RightsHelp)
    t.add_argument("name", help="the token's name (shown in the audit log of every call)")
    t.add_argument("--user", action="append", required=True, metavar="U",
                   help="a user the token may act for (repeat for more)")
    t.add_argument("--rights", default=None,
                   help="comma-separated rights (default: read,write); which tool needs "
                        "which is listed below")
    t.set_defaults(handler=cmd_tokens_add)
    t = tsub.add_parser("list", parents=[common], help="tokens, their users, rights and state")
    t.add_argument("--json", action="store_true", help=JSON_HELP)
    t.set_defaults(handler=cmd_tokens_list)
    t = tsub.add_parser("log", parents=[common],
                        help="the MCP server's access log: every tool call, newest first")
    t.add_argument("name", nargs="?",
                   help="only this token's calls ('local': calls without a token)")
    t.add_argument("--limit", type=int, default=50, help="at most this many calls (1-10000)")
    t.add_argument("--json", action="store_true", help=JSON_HELP)
    t.set_defaults(handler=cmd_tokens_log)
    t = tsub.add_parser("revoke", parents=[common],
                        help="revoke a token: its next request is refused")
    t.add_argument("name", help="the token's name")
    t.set_defaults(handler=cmd_tokens_revoke)
    for verb, text in (("pause", "pause a token: its calls are refused until it is resumed "
                                 "(the secret stays valid; a call already running finishes)"),
                       ("resume", "resume a paused token: its next call goes through")):
        t = tsub.add_parser(verb, parents=[common], help=text, description=text)
        t.add_argument("name", help="the token's name (see `memdesk tokens list`)")
        t.set_defaults(handler=cmd_tokens_pause, pausing=verb == "pause")


def cmd_tokens_add(args: argparse.Namespace) -> int:
    from memdesk.core.guard import tokens
    from memdesk.core.guard.rights import DEFAULT_TOKEN_RIGHTS

    try:  # refuse bad input before opening (or creating) a store
        tokens.check_name(args.name)
        rights = (DEFAULT_TOKEN_RIGHTS if args.rights is None
                  else tokens.parse_rights(args.rights))
        users = tokens.check_users(args.user)
    except tokens.TokenError as exc:
        err(str(exc))
        return EXIT_USAGE
    store = open_store(args)
    try:
        issued = tokens.add_token(store, args.name, users, rights)
    except tokens.TokenError as exc:
        err(str(exc))
        return EXIT_USAGE
    t = issued.token
    print(issued.secret)
    print(f"token {t.name!r} for {', '.join(cell(u) for u in t.users)} ({', '.join(t.rights)}). "
          "Copy the secret above now: it is not stored and cannot be shown again.",
          file=sys.stderr)
    return 0


def cmd_tokens_list(args: argparse.Namespace) -> int:
    from memdesk.core.guard import access, tokens

    store = open_store(args, create=False)
    items = tokens.list_tokens(store)
    used = access.usage(store, [t.name for t in items])
    if args.json:
        print(json_text([t.to_json() | {"usage": used[t.name].to_json()} for t in items],
                        indent=1))
        return 0
    if not items:
        print("no tokens (memdesk tokens add NAME --user U)")
        return 0
    for t in items:
        state = (f"revoked {fmt_dt(t.revoked_at)}" if not t.active else
                 f"paused {fmt_dt(t.paused_at)}" if t.paused else "active")
        print(f"{t.name:<24} {','.join(t.rights):<18} {state:<28} created "
              f"{fmt_dt(t.created_at)}  {usage_text(used[t.name])}  "
              f"users: {', '.join(cell(u) for u in t.users)}")
    return 0


def usage_text(u: Any) -> str:
    """``last call … · N calls in 24 h (M refused)`` for one caller."""
    if u.last_at is None:
        return "never used"
    refused = f" ({u.day_refused} refused)" if u.day_refused else ""
    return f"last call {fmt_dt(u.last_at)}, {u.day} in 24 h{refused}"


def cmd_tokens_log(args: argparse.Namespace) -> int:
    from memdesk.core.guard import access

    if not 1 <= args.limit <= 10_000:
        err("--limit must be 1-10000")
        return EXIT_USAGE
    store = open_store(args, create=False)
    calls = access.recent_calls(store, args.name, args.limit)
    if args.json:
        print(json_text([c.to_json() for c in calls], indent=1))
        return 0
    if not calls:
        print("no calls logged" + (f" for {args.name!r}" if args.name else ""))
        return 0
    for c in calls:
        results = "" if c.results is None else f"{c.results:>4} memories"
        print(f"{c.at:%Y-%m-%d %H:%M:%S}  {cell(c.caller):<20} {c.transport:<15} "
              f"{cell(c.tool):<16} {cell(c.user_id or '-'):<16} {c.outcome:<8} {results}")
    return 0


def cmd_tokens_revoke(args: argparse.Namespace) -> int:
    from memdesk.core.guard import tokens

    store = open_store(args, create=False)
    try:
        tokens.revoke_token(store, args.name)
    except tokens.TokenError as exc:
        err(str(exc))
        return EXIT_USAGE
    print(f"token {args.name!r} revoked: its next request is refused")
    return 0


def cmd_tokens_pause(args: argparse.Namespace) -> int:
    from memdesk.core.guard import tokens

    store = open_store(args, create=False)
    try:
        (tokens.pause_token if args.pausing else tokens.resume_token)(store, args.name)
    except tokens.TokenError as exc:
        err(str(exc))
        return EXIT_USAGE
    print(f"token {args.name!r} paused: its calls are refused until `memdesk tokens resume "
          f"{args.name}`" if args.pausing else
          f"token {args.name!r} resumed: its next call goes through")
    return 0
