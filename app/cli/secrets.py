"""``memdesk secrets``: the secrets lane's policy (show, set) and a dry run on a text.

The held secrets themselves are in the review inbox: ``memdesk review list --lane
secrets`` (masked until ``memdesk review show ID --reveal``), approved or rejected
there like any held memory.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from memdesk.app.cli.common import JSON_HELP, open_store


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "secrets", parents=[common],
        help="the secrets lane: what the store holds, masks or stores, per category",
        description="Secrets and personal data recognised at write time (API keys and "
                    "tokens, private keys, passwords, card numbers, IBANs, phone numbers, "
                    "e-mail addresses, government ids): per category the store holds the "
                    "memory for review, stores it masked, or stores it as said.")
    ssub = p.add_subparsers(dest="secrets_command", metavar="ACTION", required=True)
    r = ssub.add_parser("policy", parents=[common], help="what the store does per category")
    r.add_argument("--json", action="store_true", help=JSON_HELP)
    r.set_defaults(handler=cmd_policy)
    r = ssub.add_parser("set", parents=[common],
                        help="set what the store does with one category (undoable: "
                             "`memdesk undo EVENT`)")
    r.add_argument("category", help="api_key, private_key, password, card, iban, phone, "
                                    "email or government_id")
    r.add_argument("action", help="hold, mask or store")
    r.add_argument("--note", help="why (kept in the audit log)")
    r.set_defaults(handler=cmd_set)
    r = ssub.add_parser("scan", parents=[common],
                        help="dry run: what the lane finds in a text ('-' reads standard "
                             "input); stores nothing and prints no value unmasked")
    r.add_argument("text", metavar="TEXT",
                   help="the text to scan (nothing is stored; a found value is shown masked)")
    r.add_argument("--after", metavar="TEXT",
                   help="the turn said before it in the same session (a secret it announced)")
    r.add_argument("--json", action="store_true", help=JSON_HELP)
    r.set_defaults(handler=cmd_scan)


def cmd_policy(args: argparse.Namespace) -> int:
    from memdesk.core.guard import SecretCategory
    from memdesk.core.write.secrets_lane import SecretsLane

    policy = SecretsLane(open_store(args, create=False)).policy()
    if args.json:
        print(json.dumps(policy.to_json(), indent=1))
        return 0
    for c in SecretCategory:
        print(f"{c.value:<14} {policy.action(c).value:<6} {c.label}")
    return 0


def cmd_set(args: argparse.Namespace) -> int:
    from memdesk.core.write.secrets_lane import SecretsLane

    changes = SecretsLane(open_store(args)).set_action(args.category, args.action,
                                                       note=args.note)
    if not changes.event_ids:
        print(f"{args.category}: already {args.action}; nothing changed")
        return 0
    ev = changes.event_ids[0]
    print(f"{args.category}: {args.action.strip().lower()} from now on (event {ev}; "
          f"`memdesk undo {ev}` goes back); memories written before keep what was done "
          "to them")
    return 0


def cmd_scan(args: argparse.Namespace) -> int:
    from memdesk.app.cli.shown import cell, json_text
    from memdesk.app.cli.write import read_text
    from memdesk.core.guard.secrets import find_secrets, mask_text
    from memdesk.core.write.secrets_lane import SecretsLane

    text = read_text(args.text)
    screened = SecretsLane(open_store(args, create=False)).scan(text, args.after)
    hits = find_secrets(text, args.after)
    # Every value masked in what is printed, whatever the policy would store.
    shown = mask_text(text, hits)
    if args.json:
        print(json_text({**screened.to_json(), "shown": shown,
                         "found": [{"category": h.category.value, "masked": h.masked,
                                    "detector": h.detector} for h in hits]}, indent=1))
        return 0
    if not hits:
        print("nothing recognised (dry run: nothing was stored)")
        return 0
    for h in hits:
        print(f"{h.category.value:<14} {cell(h.masked):<24} {h.detector}")
    print(f"as shown: {cell(shown)}")
    print(f"this store would: {screened.note() or 'store it as said'} (dry run: nothing "
          "was stored)")
    return 0
