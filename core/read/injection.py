"""Dispositional injection (seed 000) with fair rotation across calls.

Active preferences (type ``preference``, or any memory in the procedural layer,
seed 001's "always retrieved") are appended to every unisolated retrieval, newest
first, without those already among the results.  Seed 000 stops at five, so an
operator with twenty preferences loses fifteen on every call; here, when more are
active than the limit, each call takes the next ``limit`` in newest-first order
after a per-user cursor, wrapping round, so every active preference is seen within
ceil(n / limit) calls.  The order never depends on last access (seed 000's
rich-get-richer bug).  The cursor is a keyset (created_at, seq) of the last one
consumed, so preferences added or retired in between do not make it skip or repeat.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, or_, select

from memdesk.core.read.channels import scope
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.models import PreferenceCursor
from memdesk.core.store.models import Memory

M = Memory.__table__.c
C = PreferenceCursor.__table__.c

Cursor = tuple[datetime, int]


@dataclass(frozen=True)
class Preference:
    """An injected preference."""

    seq: int
    id: str
    text: str
    type: str
    layer: str | None
    created_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "type": self.type, "layer": self.layer,
                "created_at": self.created_at.isoformat()}


def active_preferences(conn: Connection, user_id: str, cfg: ReadConfig) -> list[Preference]:
    """The user's active, confident preferences, newest first."""
    kinds = []
    if cfg.inject_types:
        kinds.append(M.type.in_(cfg.inject_types))
    if cfg.inject_layers:
        kinds.append(M.layer.in_(cfg.inject_layers))
    if not kinds:
        return []
    stmt = (select(M.seq, M.id, M.text, M.type, M.layer, M.created_at)
            .where(scope(user_id, cfg), or_(*kinds))
            .order_by(M.created_at.desc(), M.seq.desc()))
    return [Preference(*r) for r in conn.execute(stmt)]


def stored_cursor(conn: Connection, user_id: str) -> Cursor | None:
    row = conn.execute(select(C.last_created_at, C.last_seq).where(C.user_id == user_id)).first()
    if row is None or row[0] is None or row[1] is None:
        return None
    return row[0], int(row[1])


def rotate(
    prefs: list[Preference], cursor: Cursor | None, exclude: set[int], limit: int
) -> tuple[list[Preference], Cursor | None]:
    """(what to inject, newest first; the new cursor, or None when no rotation is needed)."""
    if limit <= 0 or not prefs:
        return [], cursor
    if len(prefs) <= limit:
        return [p for p in prefs if p.seq not in exclude], cursor
    start = 0
    if cursor is not None:
        # First preference strictly after the cursor in newest-first order.
        start = next((i for i, p in enumerate(prefs) if (p.created_at, p.seq) < cursor), 0)
    chosen: list[Preference] = []
    last = None
    for step in range(len(prefs)):
        p = prefs[(start + step) % len(prefs)]
        last = p
        if p.seq not in exclude:
            chosen.append(p)
            if len(chosen) >= limit:
                break
    chosen.sort(key=lambda p: (p.created_at, p.seq), reverse=True)
    return chosen, (last.created_at, last.seq) if last else cursor


def save_cursor(conn: Connection, user_id: str, cursor: Cursor, now: datetime) -> None:
    """Upsert the user's cursor (portable: update, then insert if there was no row)."""
    values = {"last_created_at": cursor[0], "last_seq": cursor[1], "updated_at": now}
    done = conn.execute(PreferenceCursor.__table__.update().where(C.user_id == user_id)
                        .values(**values))
    if not done.rowcount:
        conn.execute(PreferenceCursor.__table__.insert().values(user_id=user_id, **values))
