"""Recall checks in memdesk JSON Lines: one line per check, after the memories.

A check line is ``{"recall_check": {...}}`` with the check's definition (``id``,
``user_id``, ``query``, ``expect``, ``expect_not``, ``note``, ``created_at``,
``created_by``); its last result is not exported (a run in the other store makes its
own).  Backward compatible both ways: a file without check lines (every export before
checks) imports as before, and an older memdesk reports each check line as one bad
line ("recall_check is not a memory field") and imports the memories.

An import adds each check under the import's own action group (audited ``add`` rows
of the ``check`` stream), so undoing the import removes them too; a check whose id the
store already holds is skipped.  The memories a check names need not be in the store
(the check's run says so); only the definition itself is checked here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from memdesk.core.errors import ValidationError
from memdesk.core.store import recall_checks as rc
from memdesk.core.taxonomy import Actor

KEY = "recall_check"
FIELDS = ("id", "user_id", "query", "expect", "expect_not", "note", "created_at",
          "created_by")


@dataclass(frozen=True)
class CheckItem:
    """A check read from a line: its id, definition, and when and by whom it was made."""

    id: str
    values: rc.CheckValues
    created_at: datetime | None
    created_by: str | None


def encode(check: rc.CheckRecord, format_time: Any) -> dict[str, Any]:
    out = check.definition()
    out["created_at"] = format_time(check.created_at)
    return {KEY: out}


def decode(data: dict[str, Any], parse_time: Any) -> CheckItem:
    """A check line's object (``{"recall_check": {...}}``) checked; ValidationError."""
    if set(data) != {KEY}:
        extra = sorted(set(data) - {KEY})
        raise ValidationError(extra[0] if extra else KEY,
                              "a recall check line holds only the recall_check object")
    body = data[KEY]
    if not isinstance(body, dict):
        raise ValidationError(KEY, "must be an object")
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise ValidationError(unknown[0], "is not a recall check field")
    check_id = body.get("id")
    if not isinstance(check_id, str) or not check_id.strip() or \
            len(check_id) > rc.MAX_ID_CHARS or not check_id.isprintable():
        raise ValidationError("id", f"a recall check id is 1-{rc.MAX_ID_CHARS} printable "
                                    "characters")
    for name in ("expect", "expect_not"):
        if body.get(name) is not None and not isinstance(body[name], list):
            raise ValidationError(name, "must be a list of memory ids")
    values = rc.check_values(body.get("user_id"), body.get("query"), body.get("expect"),
                             body.get("expect_not"), body.get("note"))
    created = body.get("created_at")
    by = body.get("created_by")
    if by is not None and by not in tuple(Actor):
        raise ValidationError("created_by", f"expected one of {', '.join(Actor)}")
    return CheckItem(check_id, values, parse_time("created_at", created) if created else None,
                     by)


def add_in(conn: Connection, items: list[tuple[int, CheckItem]], group_id: str,
           note: str | None) -> tuple[int, int, list[int]]:
    """Add the checks the store does not hold yet, as actor ``import`` in the import's
    group: (added, skipped, audit event ids)."""
    added = skipped = 0
    events: list[int] = []
    for _number, item in items:
        if rc.exists_in(conn, item.id):
            skipped += 1
            continue
        _rec, ev = rc.add_in(conn, item.values, actor=Actor.IMPORT.value, group_id=group_id,
                             check_id=item.id, created_at=item.created_at,
                             created_by=item.created_by or Actor.IMPORT.value, note=note)
        events.append(ev)
        added += 1
    return added, skipped, events
