"""Contradictions (the write-phase design's entity/attribute/value triples, the
dispositional-memory design's correction chains).

A contradiction group is the set of ACTIVE memories of one user with the same entity
and attribute whose values differ once normalised (casefold, whitespace collapsed and
stripped).  The scan is one ordered pass over the partial covering index
``ix_memories_active_triple`` grouped by (user, entity, attribute, value): linear in
the number of active triples, never pairwise.

A group whose members include a ``correction`` newer than an active memory with a
different value is an unlinked correction ↔ original pair (the dispositional-memory design's
``maintain``
step never ran on it); it is reported with ``kind == "correction"``.

Resolutions (all audited under one ``group_id`` and undone together by
the façade's ``undo``): keep one value (the others get ``valid_until`` = now and
``superseded_by`` = the winner), keep all (a dismissal: not raised again unless a new
memory joins), edit the winner then keep it, or merge into a new memory that
supersedes all members.  The suggested resolution is explained in ``_suggest``.

The functions here are the implementation of
:class:`memdesk.core.curation.service.Contradictions`, the public surface; callers
outside this package use the façade and the record types below (``ContradictionGroup``,
``GroupDetail``, ``Card``, ``Suggestion``, ``Resolution``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, select, text

from memdesk.core import taxonomy as tx
from memdesk.core.curation.models import ContradictionDismissal
from memdesk.core.errors import MemdeskError, NotFoundError
from memdesk.core.store.audit import is_undone
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.query import active_belief_state
from memdesk.core.store.records import RECORD_COLUMNS, MemoryRecord
from memdesk.core.store.vectors import record_columns
from memdesk.core.write.cardinality import multi_valued

M = Memory.__table__.c
E = MemoryEvent.__table__.c
# Declarative types __table__ as a FromClause; this model maps a plain Table.
DT = cast(Table, ContradictionDismissal.__table__)
D = DT.c

Key = tuple[str, str, str]  # (user_id, entity, attribute)


class StaleGroupError(MemdeskError):
    """The group changed (members added, resolved elsewhere) since it was shown."""


def _normalise(value: str) -> str:
    """The comparison form of a value: casefolded, inner whitespace collapsed, stripped."""
    return " ".join(value.split()).casefold()


def _group_id_for(key: Key) -> str:
    """A short stable id for a (user, entity, attribute) group, for the CLI."""
    return hashlib.sha1(json.dumps(list(key)).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class ValueCluster:
    """Members of a group sharing one normalised value (summary from the scan)."""

    norm: str
    display: str
    count: int
    seqs_csv: str  # member seqs, comma-separated; parsed only when needed
    first_created: datetime
    last_created: datetime
    newest_correction: datetime | None

    @property
    def seqs(self) -> tuple[int, ...]:
        return tuple(int(s) for s in self.seqs_csv.split(","))


@dataclass(frozen=True)
class ContradictionGroup:
    key: Key
    values: tuple[ValueCluster, ...]
    kind: str  # "conflict" | "correction"

    @property
    def id(self) -> str:
        return _group_id_for(self.key)

    @property
    def user_id(self) -> str:
        return self.key[0]

    @property
    def entity(self) -> str:
        return self.key[1]

    @property
    def attribute(self) -> str:
        return self.key[2]

    @property
    def member_count(self) -> int:
        return sum(v.count for v in self.values)

    @property
    def seqs(self) -> frozenset[int]:
        return frozenset(s for v in self.values for s in v.seqs)

    @property
    def last_created(self) -> datetime:
        return max(v.last_created for v in self.values)

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.id, "user_id": self.user_id, "entity": self.entity,
            "attribute": self.attribute, "kind": self.kind, "members": self.member_count,
            "values": [
                {"value": v.display, "normalised": v.norm, "count": v.count,
                 "last_created": v.last_created.isoformat()}
                for v in self.values
            ],
        }


def _parse_dt(v: Any) -> datetime:
    """A stored time: a datetime already (PostgreSQL) or ISO text (SQLite)."""
    if isinstance(v, datetime):
        return v
    return datetime.fromisoformat(str(v))


def _active_dismissals(conn: Connection) -> dict[Key, set[int]]:
    """Dismissed member sets per key, for dismissals whose audit was not undone (or
    was undone and then redone)."""
    # One audit row per group tells: the group's rows are undone and redone together.
    first = (select(E.undone_by).where(E.group_id == D.group_id).order_by(E.id).limit(1)
             .scalar_subquery())
    out: dict[Key, set[int]] = {}
    rows = conn.execute(select(D.user_id, D.entity, D.attribute, D.member_seqs, first))
    for r in rows:
        if not is_undone(conn, r[4]):
            out.setdefault((r[0], r[1], r[2]), set()).update(json.loads(r[3]))
    return out


def _scan_sql(dialect: str, with_user: bool) -> str:
    agg = (
        "group_concat(seq)" if dialect == "sqlite"
        else "string_agg(CAST(seq AS TEXT), ',')"
    )
    hint = " INDEXED BY ix_memories_active_triple" if dialect == "sqlite" else ""
    # The WHERE repeats the partial index's own predicate so the planner can use it.
    return (
        "SELECT user_id, entity, attribute, value, count(*), " + agg + ", "
        "min(created_at), max(created_at), "
        "max(CASE WHEN type = 'correction' THEN created_at END) "
        "FROM memories" + hint + " "
        "WHERE valid_until IS NULL AND superseded_by IS NULL AND deleted_at IS NULL "
        "AND quarantined_at IS NULL AND framing IS NULL AND archived_at IS NULL "
        "AND entity IS NOT NULL AND attribute IS NOT NULL AND value IS NOT NULL"
        + (" AND user_id = :user" if with_user else "")
        # No ORDER BY: grouped in index order already; Python regroups by key anyway.
        + " GROUP BY user_id, entity, attribute, value"
    )


def may_contradict(key: Key) -> bool:
    """Whether different values under ``key`` can contradict each other: not for an
    attribute held several at once (two allergies, two children are two facts)."""
    return not multi_valued(key[2])


def _build_group(key: Key, rows: list[tuple[Any, ...]]) -> ContradictionGroup | None:
    clusters: dict[str, list[tuple[Any, ...]]] = {}
    for r in rows:
        clusters.setdefault(_normalise(r[3]), []).append(r)
    if len(clusters) < 2:
        return None
    values = []
    for norm, rs in clusters.items():
        # Show the raw spelling most members use (ties: the first in index order).
        display = max(rs, key=lambda r: r[4])[3]
        # Times compare as stored (ISO text on SQLite); parse only the three we keep.
        corrections = [r[8] for r in rs if r[8] is not None]
        values.append(ValueCluster(
            norm=norm, display=display, count=sum(r[4] for r in rs),
            seqs_csv=",".join(str(r[5]) for r in rs),
            first_created=_parse_dt(min(r[6] for r in rs)),
            last_created=_parse_dt(max(r[7] for r in rs)),
            newest_correction=_parse_dt(max(corrections)) if corrections else None,
        ))
    values.sort(key=lambda v: v.last_created, reverse=True)
    kind = "conflict"
    for c in values:
        if c.newest_correction is None:
            continue
        if any(o is not c and o.first_created < c.newest_correction for o in values):
            kind = "correction"
            break
    return ContradictionGroup(key, tuple(values), kind)


def _find(
    store: MemoryStore,
    *,
    user: str | None = None,
    include_dismissed: bool = False,
    limit: int | None = None,
) -> list[ContradictionGroup]:
    """Every contradiction group (newest activity first), minus dismissed ones."""
    by_key, dismissed = _scan(store, user, include_dismissed)
    groups = _groups(by_key, dismissed)
    groups.sort(key=lambda g: (g.kind != "correction", -g.last_created.timestamp(), g.key))
    return groups[:limit] if limit is not None else groups


def _scan(store: MemoryStore, user: str | None, include_dismissed: bool = False
          ) -> tuple[dict[Key, list[tuple[Any, ...]]], dict[Key, set[int]]]:
    """The scan's rows by key, and the dismissed member sets."""
    params = {"user": user} if user is not None else {}
    with store.read() as conn:
        dismissed = {} if include_dismissed else _active_dismissals(conn)
        by_key: dict[Key, list[tuple[Any, ...]]] = {}
        for r in conn.execute(text(_scan_sql(store.dialect, user is not None)), params):
            by_key.setdefault((r[0], r[1], r[2]), []).append(tuple(r))
    return by_key, dismissed


def _groups(by_key: dict[Key, list[tuple[Any, ...]]],
            dismissed: dict[Key, set[int]]) -> list[ContradictionGroup]:
    groups: list[ContradictionGroup] = []
    for key, rows in by_key.items():
        if len(rows) < 2 or not may_contradict(key):
            continue
        g = _build_group(key, rows)
        if g is None:
            continue
        gone = dismissed.get(key)
        if gone is not None and g.seqs <= gone:
            continue
        groups.append(g)
    return groups


def _find_with(store: MemoryStore, user: str, extra: Iterable[tuple[Any, ...]], *,
               in_store: bool = True) -> list[ContradictionGroup]:
    """The groups ``_find`` would list for ``user`` if ``extra`` (memories not written
    yet: an import preview) were among that user's active memories; only the groups
    holding at least one of them.  ``extra`` rows have the scan's shape, one memory
    each: (user, entity, attribute, value, 1, "seq", created, created, created if a
    correction else None), with a seq below 0 and datetimes.  ``in_store`` False: the
    user has nothing stored (no read)."""
    by_key, dismissed = _scan(store, user) if in_store else ({}, {})
    # The scan compares times as stored (ISO text on SQLite): with rows of two origins,
    # every time is parsed first.
    for rows in by_key.values():
        rows[:] = [(*r[:6], _parse_dt(r[6]), _parse_dt(r[7]),
                    None if r[8] is None else _parse_dt(r[8])) for r in rows]
    keys: set[Key] = set()
    for r in extra:
        key = (r[0], r[1], r[2])
        by_key.setdefault(key, []).append(tuple(r))
        keys.add(key)
    mine = {k: by_key[k] for k in keys}
    groups = [g for g in _groups(mine, dismissed) if any(s < 0 for s in g.seqs)]
    groups.sort(key=lambda g: (g.kind != "correction", -g.last_created.timestamp(), g.key))
    return groups


def _find_group(store: MemoryStore, group: str) -> ContradictionGroup:
    """A current group by its id (as printed by ``contradictions list``)."""
    for g in _find(store, include_dismissed=True):
        if g.id == group:
            return g
    raise NotFoundError(f"No open contradiction group {group!r}")


# -- a group's members and the suggested resolution ----------------------------------


@dataclass(frozen=True)
class Card:
    """One side of a contradiction: a distinct value, shown by its newest member."""

    memory: MemoryRecord
    norm: str
    same_value: tuple[MemoryRecord, ...]  # every active member with this value
    newest: bool = False
    oldest: bool = False
    highest_confidence: bool = False


@dataclass(frozen=True)
class Suggestion:
    winner_id: str
    reason: str
    disagree: bool  # the newer and the higher-confidence memory are not the same


@dataclass(frozen=True)
class GroupDetail:
    key: Key
    members: tuple[MemoryRecord, ...]  # active members, oldest first
    cards: tuple[Card, ...]  # one per distinct value, newest first
    suggestion: Suggestion | None

    @property
    def id(self) -> str:
        return _group_id_for(self.key)

    @property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.members)

    @property
    def is_contradiction(self) -> bool:
        return len(self.cards) >= 2

    def card_for(self, memory_id: str) -> Card:
        for c in self.cards:
            if any(m.id == memory_id for m in c.same_value):
                return c
        raise NotFoundError(f"Memory {memory_id!r} is not an active member of this group")


def _suggest(cards: Iterable[Card]) -> Suggestion | None:
    """Newer + higher confidence wins.  When they disagree: a newer correction wins
    (it exists to override); otherwise the newer wins (facts change: people move, switch
    jobs) unless its confidence is under the write-phase design's 0.4 retrieval threshold while the
    other's is not, the signature of a hypothetical ("I'm actually a doctor").  The
    reason always says which case applied, and ``disagree`` flags it for a closer look.
    """
    reps = [c.memory for c in cards]
    if len(reps) < 2:
        return None
    newest = max(reps, key=lambda m: (m.created_at, m.confidence))
    highest = max(reps, key=lambda m: (m.confidence, m.created_at))
    if newest.confidence >= highest.confidence:
        return Suggestion(newest.id, (
            f"Keep “{newest.value}”: it is the newest "
            f"({newest.created_at:%Y-%m-%d}) and has the highest confidence "
            f"({newest.confidence:.2f})."
        ), False)
    gap = (f"newest has confidence {newest.confidence:.2f}, “{highest.value}” has "
           f"{highest.confidence:.2f}")
    if newest.type == "correction":
        return Suggestion(newest.id, (
            f"Keep “{newest.value}”: newer and higher-confidence disagree ({gap}); it is a "
            "correction newer than what it contradicts, and corrections override."
        ), True)
    low = tx.LOW_CONFIDENCE
    if newest.confidence < low <= highest.confidence:
        return Suggestion(highest.id, (
            f"Keep “{highest.value}”: newer and higher-confidence disagree ({gap}); the "
            f"newest is under the {low} confidence threshold (possibly hypothetical), "
            "so the more certain statement wins."
        ), True)
    return Suggestion(newest.id, (
        f"Keep “{newest.value}”: newer and higher-confidence disagree ({gap}); "
        "preferring the newer because facts change over time. Check before accepting."
    ), True)


def _members(conn: Connection, key: Key) -> list[MemoryRecord]:
    stmt = select(*record_columns(RECORD_COLUMNS)).where(
        active_belief_state(), M.user_id == key[0], M.entity == key[1],
        M.attribute == key[2], M.value.is_not(None),
    ).order_by(M.created_at, M.seq)
    return [MemoryStore._record(r) for r in conn.execute(stmt)]


def _detail(key: Key, members: list[MemoryRecord]) -> GroupDetail:
    by_norm: dict[str, list[MemoryRecord]] = {}
    for m in members:
        by_norm.setdefault(_normalise(m.value or ""), []).append(m)
    reps = {norm: max(ms, key=lambda m: (m.created_at, m.seq)) for norm, ms in by_norm.items()}
    newest = max(reps.values(), key=lambda m: (m.created_at, m.confidence), default=None)
    oldest = min(reps.values(), key=lambda m: (m.created_at, -m.confidence), default=None)
    top = max(r.confidence for r in reps.values()) if reps else None
    cards = [
        Card(rep, norm, tuple(by_norm[norm]), newest=rep is newest,
             oldest=rep is oldest and len(reps) > 1,
             highest_confidence=rep.confidence == top and len(reps) > 1)
        for norm, rep in reps.items()
    ]
    cards.sort(key=lambda c: (c.memory.created_at, c.memory.seq), reverse=True)
    return GroupDetail(key, tuple(members), tuple(cards), _suggest(cards))


def _load(store: MemoryStore, key: Key) -> GroupDetail:
    """The current active members of a group, one card per value, and a suggestion."""
    with store.read() as conn:
        return _detail(key, _members(conn, key))
