"""``memdesk tokens add|list|revoke``: bearer tokens of the shared MCP server over HTTP.

The secret is printed once, by ``add``, and never again (the store keeps its SHA-256
only: core/guard/tokens.py).  ``memdesk mcp --http`` asks for a token on every request
as soon as the store has any; ``--host`` other than loopback needs one live token."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .cli_common import EXIT_USAGE, err, fmt_dt, open_store


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("tokens", parents=[common],
                       help="bearer tokens for the MCP server over HTTP: add, list, revoke")
    tsub = p.add_subparsers(dest="tokens_command", metavar="ACTION", required=True)
    t = tsub.add_parser("add", parents=[common],
                        help="create a token (its secret is printed once, never stored)")
    t.add_argument("name", help="the token's name (shown in the audit log of every call)")
    t.add_argument("--user", action="append", required=True, metavar="U",
                   help="a user the token may act for (repeat for more)")
    t.add_argument("--rights", default="read,write",
                   help="comma-separated: read, write, forget (default: read,write)")
    t.set_defaults(handler=cmd_tokens_add)
    t = tsub.add_parser("list", parents=[common], help="tokens, their users, rights and state")
    t.add_argument("--json", action="store_true")
    t.set_defaults(handler=cmd_tokens_list)
    t = tsub.add_parser("revoke", parents=[common],
                        help="revoke a token: its next request is refused")
    t.add_argument("name")
    t.set_defaults(handler=cmd_tokens_revoke)


def cmd_tokens_add(args: argparse.Namespace) -> int:
    from memdesk.core.guard import tokens

    try:  # refuse bad input before opening (or creating) a store
        tokens.check_name(args.name)
        rights = tokens.parse_rights(args.rights)
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
    print(f"token {t.name!r} for {', '.join(t.users)} ({', '.join(t.rights)}). "
          "Copy the secret above now: it is not stored and cannot be shown again.",
          file=sys.stderr)
    return 0


def cmd_tokens_list(args: argparse.Namespace) -> int:
    from memdesk.core.guard import tokens

    store = open_store(args, create=False)
    items = tokens.list_tokens(store)
    if args.json:
        print(json.dumps([t.to_json() for t in items], ensure_ascii=False, indent=1))
        return 0
    if not items:
        print("no tokens (memdesk tokens add NAME --user U)")
        return 0
    for t in items:
        state = "active" if t.active else f"revoked {fmt_dt(t.revoked_at)}"
        print(f"{t.name:<24} {','.join(t.rights):<18} {state:<28} created "
              f"{fmt_dt(t.created_at)}  users: {', '.join(t.users)}")
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
