"""Who an MCP call is for, and what it may do: the contract between the server's tools
and the HTTP transport's authentication.

A server is bound to the users it serves (``memdesk mcp --user U``); over HTTP each
request also carries a bearer token with its own users and rights.  The transport sets
``current_caller`` for the request; every tool asks :func:`check` before it reads or
writes, so a tool never answers about a user outside both sets.  Refusals say "not
found" for someone else's memory or job (no existence oracle).

Rights are checked once per call, before the tool runs, against the declared table
(core/guard/rights.py): both the server's rights (``memdesk mcp --rights``; all by
default) and the caller's (its token's over HTTP) must include the tool's right.  The
refusal names the missing right, whatever the call was after.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime

from memdesk.core.guard.rights import RIGHTS as DECLARED
from memdesk.core.guard.rights import SERVER_DEFAULT_RIGHTS

RIGHTS = tuple(DECLARED)  # read, write, forget, purge: core/guard/rights.py


@dataclass(frozen=True)
class Caller:
    """One authenticated caller: a token's name (``"local"`` for stdio), the users it
    may act for (None: any user the server serves) and its rights."""

    name: str
    users: frozenset[str] | None = None
    rights: frozenset[str] = field(default_factory=lambda: frozenset(RIGHTS))
    # When the operator paused this caller's token (None: not paused), as read for the
    # request (HTTP) or at the call (stdio): app/mcp/pause.py refuses its tool calls.
    paused_since: datetime | None = None


LOCAL = Caller("local")

# Set per request by the HTTP transport's authentication; stdio leaves it at LOCAL.
current_caller: ContextVar[Caller] = ContextVar("memdesk_mcp_caller", default=LOCAL)
# The user one tool call acted for, noted by the scope checks for the access log: a
# dict set per call (the tool body runs in a worker thread with a copy of the context;
# the dict itself is shared, so what it notes there is seen by the caller).
call_note: ContextVar[dict[str, str] | None] = ContextVar("memdesk_mcp_call", default=None)


def note_user(user_id: str, *, refused: bool = False) -> None:
    """Note for the access log whom this call acted for (or was refused for)."""
    note = call_note.get()
    if note is not None:
        note.setdefault("refused" if refused else "user", user_id)


@dataclass(frozen=True)
class Binding:
    """The users a server serves (None: unbound, any user id — a single local user's
    stdio server, said in its instructions and log) and the rights it grants any caller
    (``--rights``; by default every right but those granted only when named, such as
    ``purge``: a token's rights narrow them further)."""

    users: frozenset[str] | None = None
    rights: frozenset[str] = field(default_factory=lambda: frozenset(SERVER_DEFAULT_RIGHTS))

    @property
    def bound(self) -> bool:
        return self.users is not None


class Refused(Exception):
    """A call outside the caller's users or rights; ``str()`` is the message for the
    agent (never naming another user's memories)."""


class Paused(Refused):
    """A call of a token the operator paused (the access log's outcome ``paused``)."""


def may_serve(binding: Binding, caller: Caller, user_id: str) -> bool:
    """Whether ``caller`` may act for ``user_id`` on a server with ``binding``."""
    if binding.users is not None and user_id not in binding.users:
        return False
    return caller.users is None or user_id in caller.users


def check_user(binding: Binding, user_id: str, caller: Caller | None = None) -> None:
    """Raise :class:`Refused` unless the current caller may act for ``user_id``."""
    caller = caller or current_caller.get()
    if not may_serve(binding, caller, user_id):
        raise Refused(f"user {user_id!r} is not served here")


def lacking(binding: Binding, caller: Caller, right: str) -> str | None:
    """Who lacks ``right`` (the server or the caller), said for a refusal; None: neither."""
    if right not in binding.rights:
        granted = ",".join(r for r in RIGHTS if r in binding.rights)
        return f"this server (started with --rights {granted})"
    if right not in caller.rights:
        return f"this caller ({caller.name})"
    return None
