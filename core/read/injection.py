"""Dispositional injection (the dispositional-memory design) with fair rotation across calls.

Active preferences (type ``preference``, or any memory in the procedural layer,
the memory-types decision record's "always retrieved") are appended to every unisolated retrieval,
newest
first, without those already among the results.  The dispositional-memory design stops at five, so
an
operator with twenty preferences loses fifteen on every call; here, when more are
active than the limit, each call takes the next ``limit`` in newest-first order
after a per-user cursor, wrapping round, so every active preference is seen within
ceil(n / limit) calls.  The order never depends on last access (the dispositional-memory design's
rich-get-richer bug).  The cursor is a keyset (created_at, seq) of the last one
consumed, so preferences added or retired in between do not make it skip or repeat.

Relevance first: the preferences that relate to the query (a calibrated cosine bar,
looser than a result's, or the keyword share) take up to three of the first slots,
best first; the rotation fills the rest, so every preference still reaches the agent
within ceil(n / 2) calls.  "Find a place for dinner tonight" brings "I prefer
vegetarian restaurants" before "prefers tabs over spaces", whatever the cursor says.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, select

from memdesk.core.read.channels import KeywordHits, VectorHits
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.dedup import same_text
from memdesk.core.read.models import PreferenceCursor
from memdesk.core.read.snapshot import UserSnapshot

# Declarative types __table__ as a FromClause; PreferenceCursor maps a plain Table.
CT = cast(Table, PreferenceCursor.__table__)
C = CT.c

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


def active_preferences(snap: UserSnapshot, cfg: ReadConfig, ok: Any) -> list[Preference]:
    """The user's active, confident preferences (and procedural memories), newest first."""
    # ``ok`` is the confidence mask, so the threshold is part of the key.
    key = ("preferences", tuple(cfg.inject_types), tuple(cfg.inject_layers),
           cfg.confidence_threshold)
    cached = snap.memo.get(key)
    if cached is None:
        types, layers = set(cfg.inject_types), set(cfg.inject_layers)
        rows = [i for i in range(len(snap))
                if ok[i] and (snap.types[i] in types or snap.layers[i] in layers)]
        rows.sort(key=lambda i: (snap.created[i], int(snap.seqs[i])), reverse=True)
        cached = snap.memo[key] = [
            Preference(int(snap.seqs[i]), snap.ids[i], snap.texts[i], snap.types[i],
                       snap.layers[i], snap.created[i]) for i in rows]
    return list(cached)


def preference_rows(snap: UserSnapshot, cfg: ReadConfig, ok: Any) -> Any:
    """The snapshot rows of ``active_preferences`` (same order), as an array; memoised."""
    import numpy as np

    key = ("preference rows", tuple(cfg.inject_types), tuple(cfg.inject_layers),
           cfg.confidence_threshold)
    rows = snap.memo.get(key)
    if rows is None:
        rows = snap.memo[key] = np.array(
            [snap.row_of[p.seq] for p in active_preferences(snap, cfg, ok)], dtype=np.int64)
    return rows


def relevant_first(prefs: list[Preference], rows: Any, kw: KeywordHits, vec: VectorHits,
                   used: tuple[str, ...], cfg: ReadConfig) -> list[Preference]:
    """The preferences to inject first for this query, best first (``rotate`` takes
    at most ``inject_relevant_max`` of those not already shown): those whose cosine
    reaches the injection bar (a looser,
    calibrated one: calibrate.py) or whose keyword share reaches the keyword floor.
    Vectorised over the user's preferences (hundreds in the demo store)."""
    import numpy as np

    if not prefs or cfg.inject_relevant_max <= 0:
        return []
    score = np.zeros(len(prefs))
    ok = np.zeros(len(prefs), dtype=bool)
    bg = vec.background
    if "vector" in used and vec.by_row is not None and bg is not None:
        cos = np.nan_to_num(vec.by_row[rows], nan=-1.0)
        bar = min(bg.inject, bg.floor)
        ok |= cos >= bar
        score += np.where(cos >= bar, cos, 0.0)
    if "fts" in used and kw.share:
        at = {p.seq: i for i, p in enumerate(prefs)}
        share = np.zeros(len(prefs))
        for seq, v in kw.share.items():
            i = at.get(seq)
            if i is not None:
                share[i] = v
        ok |= share >= cfg.floor_keyword_share
        score += np.where(share >= cfg.floor_keyword_share, share, 0.0)
    order = sorted(np.nonzero(ok)[0].tolist(), key=lambda i: (-score[i], -prefs[i].seq))
    return [prefs[i] for i in order]


def stored_cursor(conn: Connection, user_id: str) -> Cursor | None:
    row = conn.execute(select(C.last_created_at, C.last_seq).where(C.user_id == user_id)).first()
    if row is None or row[0] is None or row[1] is None:
        return None
    return row[0], int(row[1])


def rotate(
    prefs: list[Preference], cursor: Cursor | None, exclude: set[int], limit: int,
    exclude_texts: set[str] | None = None, first: list[Preference] | None = None,
    first_max: int | None = None,
) -> tuple[list[Preference], Cursor | None]:
    """(what to inject; the new cursor, or None when no rotation is needed).

    ``first``: the preferences relevant to the query, best first; up to ``first_max``
    of them (those not already shown) take the first slots, and the fair rotation
    (newest first after the cursor) fills the rest.
    Skipped: preferences among the results (``exclude``) and repeats of a text already
    shown (two memories saying the same sentence tell the agent nothing more).
    """
    if limit <= 0 or not prefs:
        return [], cursor
    shown = {same_text(t) for t in (exclude_texts or ())}

    def fresh(p: Preference) -> bool:
        if p.seq in exclude or same_text(p.text) in shown:
            return False
        shown.add(same_text(p.text))
        return True

    top: list[Preference] = []
    cap = limit if first_max is None else min(limit, first_max)
    for p in first or []:
        if len(top) >= cap:
            break
        if fresh(p):
            top.append(p)
    exclude = exclude | {p.seq for p in top}
    limit -= len(top)
    if limit <= 0:
        return top, cursor
    if len(prefs) <= limit:
        return top + [p for p in prefs if fresh(p)], cursor
    start = 0
    if cursor is not None:
        # First preference strictly after the cursor in newest-first order.
        start = next((i for i, p in enumerate(prefs) if (p.created_at, p.seq) < cursor), 0)
    chosen: list[Preference] = []
    last = None
    for step in range(len(prefs)):
        p = prefs[(start + step) % len(prefs)]
        last = p
        if fresh(p):
            chosen.append(p)
            if len(chosen) >= limit:
                break
    chosen.sort(key=lambda p: (p.created_at, p.seq), reverse=True)
    return top + chosen, (last.created_at, last.seq) if last else cursor


def save_cursor(conn: Connection, user_id: str, cursor: Cursor, now: datetime) -> None:
    """Upsert the user's cursor (portable: update, then insert if there was no row)."""
    values = {"last_created_at": cursor[0], "last_seq": cursor[1], "updated_at": now}
    done = conn.execute(CT.update().where(C.user_id == user_id)
                        .values(**values))
    if not done.rowcount:
        conn.execute(CT.insert().values(user_id=user_id, **values))
