"""Ids by prefix: an operator types the first few characters of an id, as with git.

Every id the CLI takes (memories, sweeps, action groups, snapshots, contradiction
groups) goes through here, so a prefix means the same thing everywhere: the full id
always wins; otherwise a prefix of at least ``MIN_PREFIX`` characters names the one id
that starts with it.  No match is a ``NotFoundError``; several matches are an
``AmbiguousIdError`` (bad input: the operator must type more), listing a few of them.

Matching is exact (case-sensitive), as ids are compared everywhere else; hexadecimal
ids are lowercase, so a prefix typed in capitals is lowered when that finds a match.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import ColumnElement, Connection, and_, func, select

from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store.models import Memory, MemoryEvent

MIN_PREFIX = 4  # shorter prefixes are ambiguous in any real store; only full ids
SHOWN = 3  # candidates named in an ambiguity message


class AmbiguousIdError(ValidationError):
    """A prefix matches more than one id; nothing was done."""

    def __init__(self, what: str, ref: str, matches: list[str]) -> None:
        shown = ", ".join(matches[:SHOWN]) + (", …" if len(matches) > SHOWN else "")
        count = f"{len(matches)}" if len(matches) <= SHOWN else f"more than {SHOWN}"
        # Not ValidationError's "field: message" form: the message names the id itself.
        Exception.__init__(self, f"ambiguous {what} id {ref!r}: {count} ids start with it "
                                 f"({shown}); type more of it")
        self.field = what
        self.matches = matches


def _spellings(ref: str) -> list[str]:
    """The prefix as typed, and lowered if different (hex ids are lowercase)."""
    low = ref.lower()
    return [ref] if low == ref else [ref, low]


def _not_found(what: str, ref: str) -> NotFoundError:
    return NotFoundError(f"No {what} {ref!r}")


def _starts_with(column: ColumnElement[str], prefix: str) -> ColumnElement[bool]:
    """``column`` starts with ``prefix``, usable with the column's index where possible.

    A half-open range ``[prefix, prefix with its last character incremented)`` is what
    an index can seek; it equals "starts with" under binary collation (SQLite's
    default; UTF-8 byte order is code-point order).  The ``substr`` test keeps the
    answer exact under any other collation (PostgreSQL's locale ordering).
    """
    exact = func.substr(column, 1, len(prefix)) == prefix
    last = ord(prefix[-1])
    if last >= 0x10FFFF:
        return exact
    upper = prefix[:-1] + chr(last + 1)
    return and_(column >= prefix, column < upper, exact)


def resolve_id(conn: Connection, column: ColumnElement[str], ref: str, what: str) -> str:
    """The one value of ``column`` equal to ``ref`` or starting with it.

    ``what`` names the thing in messages ("memory", "sweep", "action group").
    Raises NotFoundError when nothing matches, AmbiguousIdError when several do.
    """
    ref = (ref or "").strip()
    if conn.execute(select(column).where(column == ref).limit(1)).first() is not None:
        return ref
    if len(ref) < MIN_PREFIX:
        raise _not_found(what, ref)
    for spelling in _spellings(ref):
        rows = conn.execute(
            select(column).where(_starts_with(column, spelling)).distinct()
            .order_by(column).limit(SHOWN + 1)
        ).scalars().all()
        if len(rows) > 1:
            raise AmbiguousIdError(what, ref, list(rows))
        if rows:
            found: str = rows[0]
            return found
    raise _not_found(what, ref)


def resolve_among(ids: Iterable[str], ref: str, what: str) -> str:
    """Like ``resolve_id`` over ids computed in Python (e.g. contradiction groups)."""
    ref = (ref or "").strip()
    pool = sorted(set(ids))
    if ref in pool:
        return ref
    if len(ref) < MIN_PREFIX:
        raise _not_found(what, ref)
    for spelling in _spellings(ref):
        matches = [i for i in pool if i.startswith(spelling)]
        if len(matches) > 1:
            raise AmbiguousIdError(what, ref, matches)
        if matches:
            return matches[0]
    raise _not_found(what, ref)


def memory_id(conn: Connection, ref: str) -> str:
    """A memory's full id from its id or a unique prefix."""
    try:
        return resolve_id(conn, Memory.__table__.c.id, ref, "memory")
    except NotFoundError:
        from memdesk.core.store.erased import not_found_message

        message = not_found_message(conn, (ref or "").strip())
        if "erased" not in message:
            raise
        raise NotFoundError(message) from None


def action_group_id(conn: Connection, ref: str) -> str:
    """An audited action group's full id (what ``contradictions undo`` takes)."""
    return resolve_id(conn, MemoryEvent.__table__.c.group_id, ref, "action group")
