"""Bearer tokens of the shared MCP server over HTTP: created, listed, revoked, verified.

A token is ``mdk_`` and 32 random bytes (URL-safe base64).  It is shown once, when it is
created; the store keeps only its SHA-256 (a hash of 256 random bits needs no salt or
slow hash: nothing about it can be guessed).  Each token names the users it may act for
and its rights (read, write, forget); the HTTP transport turns a verified token into the
MCP server's caller (``memdesk.app.mcp.identity.Caller``), and the tools check it.

A token can be **paused** and **resumed** (``paused_at``, migration 0023): its secret
stays valid and its row unchanged, but every call it makes is refused, with the time of
the pause, until it is resumed (the refusal is the MCP server's: app/mcp/common.py).
Revoking ends a token for good; pausing is for "stop this agent for now".

Creating, revoking, pausing and resuming are audited store-wide actions (``TOKEN_ADD``,
``TOKEN_REVOKE``, ``TOKEN_PAUSE``, ``TOKEN_RESUME``),
written in the same transaction as the change; the audit rows name the token, its users
and rights, never the secret.  A revoked token's row stays, so its name is not reused
and an old audit row still names something the operator can look up.

Verification reads every row and compares hashes with :func:`hmac.compare_digest`
(constant time per row; the table holds tens of rows), on every request, so a
revocation takes effect on the next call.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, cast

from sqlalchemy import Connection, Table, insert, select, update

from memdesk.core.errors import MemdeskError
from memdesk.core.guard.models import McpToken
from memdesk.core.guard.rights import RIGHTS as DECLARED
from memdesk.core.ids import utcnow
from memdesk.core.store.actions import TOKEN_ADD, TOKEN_PAUSE, TOKEN_RESUME, TOKEN_REVOKE, Stream
from memdesk.core.store.audit import log_in
from memdesk.core.store.records import Changed, Changes
from memdesk.core.taxonomy import Actor

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.store.records import AnyRow

# Declarative types __table__ as a FromClause; McpToken maps a plain Table.
TT = cast(Table, McpToken.__table__)
T = TT.c
RIGHTS = tuple(DECLARED)  # read, write, forget: core/guard/rights.py
PREFIX = "mdk_"
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# The caller name of every call made without a token (memdesk.app.mcp.identity's
# LOCAL, as core/guard/access.py logs it): no token may take it, in any case.
LOCAL_NAME = "local"
MAX_USER = 200
MAX_USERS = 100


class TokenError(MemdeskError):
    """A token request that cannot be done (bad name, unknown right, no such token)."""


@dataclass(frozen=True)
class TokenInfo:
    """One token as the operator sees it (never its secret)."""

    name: str
    users: tuple[str, ...]
    rights: tuple[str, ...]
    created_at: datetime
    revoked_at: datetime | None = None
    paused_at: datetime | None = None  # paused by the operator: calls refused until resumed

    @property
    def active(self) -> bool:
        """Not revoked (a paused token is still active: resuming it needs no new secret)."""
        return self.revoked_at is None

    @property
    def paused(self) -> bool:
        return self.paused_at is not None and self.revoked_at is None

    @property
    def state(self) -> str:
        """"active", "paused" or "revoked", for lists."""
        return "revoked" if not self.active else "paused" if self.paused else "active"

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "users": list(self.users), "rights": list(self.rights),
                "created_at": self.created_at.isoformat(),
                "revoked_at": self.revoked_at.isoformat() if self.revoked_at else None,
                "paused_at": self.paused_at.isoformat() if self.paused_at else None,
                "state": self.state}


@dataclass(frozen=True)
class Issued:
    """A new token: its one-time secret and what it may do."""

    token: TokenInfo
    secret: str
    changes: Changes


@dataclass(frozen=True)
class Verdict:
    """What a presented secret is: a live token (``token``), a revoked one (``revoked``
    names it) or nothing known (both None).  ``configured``: the store has any token
    at all (revoked ones included: revoking the last token must not open the server)."""

    token: TokenInfo | None
    revoked: str | None
    configured: bool


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def _info(row: AnyRow) -> TokenInfo:
    return TokenInfo(name=row.name, users=tuple(json.loads(row.users)),
                     rights=tuple(r for r in row.rights.split(",") if r),
                     created_at=row.created_at, revoked_at=row.revoked_at,
                     paused_at=row.paused_at)


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise TokenError(
            f"token name {name!r} is not usable: 1-64 characters, letters, digits, "
            "'.', '_' or '-', starting with a letter or digit")
    if name.casefold() == LOCAL_NAME:
        raise TokenError(
            f"token name {name!r} is reserved: the access log names callers without a "
            f"token (stdio, an open loopback server) {LOCAL_NAME!r}, and this token's "
            "calls would read as theirs; choose another name")
    return name


def check_users(users: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for u in users:
        u = u.strip() if isinstance(u, str) else u
        if not isinstance(u, str) or not u or len(u) > MAX_USER or not u.isprintable():
            raise TokenError(f"user id {u!r} is not usable: 1-{MAX_USER} printable characters")
        if u not in out:
            out.append(u)
    if not out:
        raise TokenError("a token needs at least one user (--user U)")
    if len(out) > MAX_USERS:
        raise TokenError(f"a token may name at most {MAX_USERS} users")
    return tuple(out)


def check_rights(rights: list[str] | tuple[str, ...], holder: str = "a token"
                 ) -> tuple[str, ...]:
    wanted = {r.strip() for r in rights if r.strip()}
    unknown = sorted(wanted - set(RIGHTS))
    if unknown:
        raise TokenError(f"unknown right(s) {', '.join(unknown)}: use {', '.join(RIGHTS)}")
    if not wanted:
        raise TokenError(f"{holder} needs at least one right ({', '.join(RIGHTS)})")
    return tuple(r for r in RIGHTS if r in wanted)


def parse_rights(text: str, holder: str = "a token") -> tuple[str, ...]:
    """``"read,write"`` → ``("read", "write")``, refused with a clear message if bad."""
    return check_rights(text.split(","), holder)


def add_token(store: MemoryStore, name: str, users: list[str] | tuple[str, ...],
              rights: list[str] | tuple[str, ...], *,
              actor: str = Actor.OPERATOR.value) -> Issued:
    """Create a token; the returned secret is the only copy there will ever be."""
    name, users_, rights_ = check_name(name), check_users(users), check_rights(rights)
    secret = PREFIX + secrets.token_urlsafe(32)
    now = utcnow()
    with store.write() as conn:
        if conn.execute(select(T.name).where(T.name == name)).first() is not None:
            raise TokenError(f"a token named {name!r} exists already (names are not reused, "
                             "even after revocation)")
        conn.execute(insert(TT).values(
            name=name, secret_sha256=digest(secret), users=json.dumps(list(users_)),
            rights=",".join(rights_), created_at=now, revoked_at=None))
        log_in(conn, None, actor, TOKEN_ADD.name, {},
                    {"token": name, "users": list(users_), "rights": list(rights_)},
                    stream=Stream.STORE, target=name)
    info = TokenInfo(name, users_, rights_, now)
    # No event ids in the Changes: history only, not something Edit → Undo takes back.
    return Issued(info, secret, Changes(kinds=Changed.HISTORY, action=TOKEN_ADD))


def list_tokens(store: MemoryStore) -> list[TokenInfo]:
    """Every token, live ones first, each group oldest first."""
    with store.read() as conn:
        rows = conn.execute(select(TT).order_by(T.created_at, T.name)).all()
    infos = [_info(r) for r in rows]
    return [i for i in infos if i.active] + [i for i in infos if not i.active]


def revoke_token(store: MemoryStore, name: str, *,
                 actor: str = Actor.OPERATOR.value) -> Changes:
    """Revoke a token: the next request that presents it is refused."""
    with store.write() as conn:
        row = _row(conn, name)
        if row.revoked_at is not None:
            raise TokenError(f"token {name!r} was revoked already, at "
                             f"{row.revoked_at:%Y-%m-%d %H:%M} UTC")
        _stamp(conn, name, "revoked_at", None, utcnow(), TOKEN_REVOKE.name, actor)
    return Changes(kinds=Changed.HISTORY, action=TOKEN_REVOKE)


def paused_message(name: str, since: datetime) -> str:
    """The refusal every call of a paused token gets (the same words on every transport)."""
    return (f"refused: this token ({name}) is paused by the operator since "
            f"{since:%Y-%m-%d %H:%M} UTC; its calls are refused until the operator resumes "
            "it (memdesk tokens resume)")


def _row(conn: Connection, name: str) -> AnyRow:
    row = conn.execute(select(TT).where(T.name == name)).first()
    if row is None:
        raise TokenError(f"no token named {name!r} (memdesk tokens list)")
    return row


def _stamp(conn: Connection, name: str, column: str, before: datetime | None,
           after: datetime | None, action: str, actor: str) -> None:
    """Set one of the token's time columns (revoked_at, paused_at) and audit the change
    (its undo restores ``before``)."""
    conn.execute(update(TT).where(T.name == name).values({column: after}))
    log_in(conn, None, actor, action, {"token": name, column: before},
           {"token": name, column: after}, stream=Stream.STORE, target=name)


def _live_row(conn: Connection, name: str, verb: str) -> AnyRow:
    row = _row(conn, name)
    if row.revoked_at is not None:
        raise TokenError(f"token {name!r} was revoked at {row.revoked_at:%Y-%m-%d %H:%M} "
                         f"UTC; a revoked token cannot be {verb}")
    return row


def pause_token(store: MemoryStore, name: str, *,
                actor: str = Actor.OPERATOR.value) -> Changes:
    """Pause a token: its secret stays valid, its next call is refused until resumed.
    A call already running when the pause is written finishes (docs/agents.md)."""
    with store.write() as conn:
        row = _live_row(conn, name, "paused")
        if row.paused_at is not None:
            raise TokenError(f"token {name!r} is paused already, since "
                             f"{row.paused_at:%Y-%m-%d %H:%M} UTC")
        _stamp(conn, name, "paused_at", None, utcnow(), TOKEN_PAUSE.name, actor)
    return Changes(kinds=Changed.HISTORY, action=TOKEN_PAUSE)


def resume_token(store: MemoryStore, name: str, *,
                 actor: str = Actor.OPERATOR.value) -> Changes:
    """Resume a paused token: its next call goes through, with the same secret."""
    with store.write() as conn:
        row = _live_row(conn, name, "resumed")
        if row.paused_at is None:
            raise TokenError(f"token {name!r} is not paused")
        _stamp(conn, name, "paused_at", row.paused_at, None, TOKEN_RESUME.name, actor)
    return Changes(kinds=Changed.HISTORY, action=TOKEN_RESUME)


def state_of(store: MemoryStore, name: str) -> TokenInfo | None:
    """One token as it is now (None: no such token): what a stdio server holding a
    token reads before each call, so a pause or a revocation reaches it at once."""
    with store.read() as conn:
        row = conn.execute(select(TT).where(T.name == name)).first()
    return None if row is None else _info(row)


def active_count(store: MemoryStore) -> int:
    return sum(1 for t in list_tokens(store) if t.active)


def verify(store: MemoryStore, secret: str | None) -> Verdict:
    """Which token ``secret`` is, if any (every row compared, in constant time each)."""
    with store.read() as conn:
        rows = conn.execute(select(TT)).all()
    if not secret:
        return Verdict(None, None, bool(rows))
    presented = digest(secret)
    found = None
    for row in rows:  # no early exit: the time taken does not say which row matched
        if hmac.compare_digest(presented, row.secret_sha256):
            found = row
    if found is None:
        return Verdict(None, None, bool(rows))
    if found.revoked_at is not None:
        return Verdict(None, found.name, True)
    return Verdict(_info(found), None, True)
