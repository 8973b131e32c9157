"""Persistence of memory sets (snapshots) and of the diffs between consecutive ones.

A snapshot is written with its items in one transaction, together with the diff from
the previous snapshot of the same goal; a flagged diff (suspicious or dangerous) enters
the drift review queue as ``review = 'pending'``, a healthy one as ``'none'``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, cast

import numpy as np
from sqlalchemy import Connection, Table, func, insert, select

from memdesk.core.delta.contracts import (
    Contribution,
    DeltaDiff,
    HealthStatus,
    MemorySet,
    SourceReport,
)
from memdesk.core.delta.models import MemoryDiffRow, MemorySetItem, MemorySetRow
from memdesk.core.errors import NotFoundError
from memdesk.core.store.prefixes import resolve_id

# Declarative types __table__ as a FromClause; these models map plain Tables.
SETS = cast(Table, MemorySetRow.__table__)
ITEMS = cast(Table, MemorySetItem.__table__)
DIFFS = cast(Table, MemoryDiffRow.__table__)

FLAGGED = (HealthStatus.SUSPICIOUS.value, HealthStatus.DANGEROUS.value)


@dataclass(frozen=True)
class SnapshotInfo:
    """One row of the snapshot list (no items)."""

    id: str
    goal: str
    query: str | None
    label: str
    created_at: datetime
    aggregate_score: float
    dominant_source: str | None
    dominance_ratio: float | None
    item_count: int
    status: str | None  # health of the diff leading here (None: first of its goal)
    action: str | None


@dataclass(frozen=True)
class DiffRecord:
    """A stored diff: its figures, decision and review state (the queue's rows)."""

    id: int
    goal: str
    before_id: str
    after_id: str
    created_at: datetime
    aggregate_delta: float
    before_dominant: str | None
    after_dominant: str | None
    changed_dominant: bool
    primary_cause: str | None
    dominance: float
    volatility: float
    drift: float
    contradiction: float
    confidence: float
    risk: float
    status: str
    action: str
    decision: dict[str, Any]
    warnings: list[str]
    influence: dict[str, float]
    bias: dict[str, Any]
    review: str
    review_note: str | None
    reviewed_at: datetime | None


@dataclass
class SnapshotSeries:
    """Arrays for plotting one goal's snapshots in time order."""

    goal: str
    ids: list[str]
    times: list[datetime]
    labels: list[str]
    sources: list[str]
    shares: dict[str, np.ndarray]  # each source's share of the weighted score
    aggregate: np.ndarray
    dominance: np.ndarray
    status: list[str | None]
    risk: np.ndarray  # NaN for the first snapshot
    diff_ids: list[int | None]

    def __len__(self) -> int:
        return len(self.ids)


def set_row(ms: MemorySet) -> dict[str, Any]:
    return dict(
        id=ms.id, goal=ms.goal, query=ms.query, label=ms.label[:200], created_at=ms.created_at,
        aggregate_score=ms.aggregate_score, dominant_source=ms.dominant_source,
        dominance_ratio=ms.dominance_ratio, item_count=len(ms.contributions),
        weights=json.dumps(ms.weights, sort_keys=True),
        source_totals=json.dumps({r.source: r.weighted_total for r in ms.source_reports
                                  if r.weighted_total > 0}, sort_keys=True),
        source_reports=json.dumps([asdict(r) for r in ms.source_reports]),
    )


def item_rows(ms: MemorySet) -> list[dict[str, Any]]:
    return [
        dict(set_id=ms.id, position=i, key=c.key[:200], source=c.source, text=c.text,
             confidence=c.confidence, relevance=c.relevance, raw_score=c.raw_score,
             original_score=c.original_score, source_weight=c.source_weight,
             weighted_score=c.weighted_score,
             provenance=json.dumps(c.provenance, ensure_ascii=False, default=str)
             if c.provenance else None,
             entity=c.entity, attribute=c.attribute, value=c.value)
        for i, c in enumerate(ms.contributions)
    ]


def diff_row(goal: str, created_at: datetime, d: DeltaDiff) -> dict[str, Any]:
    h = d.health
    status = h.status.value
    return dict(
        goal=goal, before_id=d.before_id, after_id=d.after_id, created_at=created_at,
        aggregate_delta=d.aggregate_score_delta, before_dominant=d.before_dominant_source,
        after_dominant=d.after_dominant_source, changed_dominant=d.changed_dominant_source,
        primary_cause=d.attribution.primary_cause_source, dominance=h.dominance_score,
        volatility=h.volatility_score, drift=h.drift_score,
        contradiction=h.contradiction_score, confidence=h.confidence_score, risk=h.risk_score,
        status=status, action=d.decision.action.value,
        decision=json.dumps(d.to_json()["decision"]), warnings=json.dumps(list(h.warnings)),
        influence=json.dumps(d.attribution.source_influence, sort_keys=True),
        bias=json.dumps(d.bias.to_json()),
        review="pending" if status in FLAGGED else "none",
    )


def insert_sets(conn: Connection, sets: list[MemorySet]) -> None:
    if not sets:
        return
    conn.execute(insert(SETS), [set_row(s) for s in sets])
    items = [r for s in sets for r in item_rows(s)]
    if items:
        conn.execute(insert(ITEMS), items)


def insert_diffs(conn: Connection, rows: list[dict[str, Any]]) -> None:
    if rows:
        conn.execute(insert(DIFFS), rows)


def previous_id(conn: Connection, goal: str, created_at: datetime,
                exclude: str | None = None) -> str | None:
    stmt = (select(SETS.c.id).where(SETS.c.goal == goal, SETS.c.created_at <= created_at)
            .order_by(SETS.c.created_at.desc(), SETS.c.seq.desc()).limit(1))
    if exclude is not None:
        stmt = stmt.where(SETS.c.id != exclude)
    return conn.execute(stmt).scalar()


def resolve(conn: Connection, ref: str) -> str:
    """A snapshot id from its full id or a unique prefix (see core/store/prefixes.py)."""
    return resolve_id(conn, SETS.c.id, ref, "snapshot")


def load_set(conn: Connection, set_id: str) -> MemorySet:
    row = conn.execute(select(SETS).where(SETS.c.id == set_id)).first()
    if row is None:
        raise NotFoundError(f"No snapshot {set_id!r}")
    items = conn.execute(
        select(ITEMS).where(ITEMS.c.set_id == set_id).order_by(ITEMS.c.position)
    ).all()
    contributions = [
        Contribution(
            key=i.key, source=i.source, text=i.text, confidence=i.confidence,
            relevance=i.relevance, raw_score=i.raw_score, original_score=i.original_score,
            source_weight=i.source_weight, weighted_score=i.weighted_score,
            provenance=json.loads(i.provenance) if i.provenance else {},
            entity=i.entity, attribute=i.attribute, value=i.value,
        )
        for i in items
    ]
    reports = [SourceReport(**r) for r in json.loads(row.source_reports)]
    return MemorySet(
        id=row.id, goal=row.goal, query=row.query, label=row.label, created_at=row.created_at,
        contributions=contributions, source_reports=reports,
        aggregate_score=row.aggregate_score, dominant_source=row.dominant_source,
        dominance_ratio=row.dominance_ratio, weights=json.loads(row.weights),
    )


def _diff_record(r: Any) -> DiffRecord:
    return DiffRecord(
        id=r.id, goal=r.goal, before_id=r.before_id, after_id=r.after_id,
        created_at=r.created_at, aggregate_delta=r.aggregate_delta,
        before_dominant=r.before_dominant, after_dominant=r.after_dominant,
        changed_dominant=bool(r.changed_dominant), primary_cause=r.primary_cause,
        dominance=r.dominance, volatility=r.volatility, drift=r.drift,
        contradiction=r.contradiction, confidence=r.confidence, risk=r.risk,
        status=r.status, action=r.action, decision=json.loads(r.decision),
        warnings=json.loads(r.warnings), influence=json.loads(r.influence),
        bias=json.loads(r.bias), review=r.review, review_note=r.review_note,
        reviewed_at=r.reviewed_at,
    )


def diff_record(conn: Connection, diff_id: int) -> DiffRecord:
    r = conn.execute(select(DIFFS).where(DIFFS.c.id == diff_id)).first()
    if r is None:
        raise NotFoundError(f"No stored diff {diff_id}")
    return _diff_record(r)


def diff_records(conn: Connection, *, goal: str | None = None, flagged_only: bool = True,
                 pending_only: bool = False, limit: int = 5000) -> list[DiffRecord]:
    stmt = select(DIFFS).order_by(DIFFS.c.created_at.desc(), DIFFS.c.id.desc()).limit(limit)
    if goal is not None:
        stmt = stmt.where(DIFFS.c.goal == goal)
    if pending_only:
        stmt = stmt.where(DIFFS.c.review == "pending")
    elif flagged_only:
        stmt = stmt.where(DIFFS.c.status.in_(FLAGGED))
    return [_diff_record(r) for r in conn.execute(stmt)]


def list_snapshots(conn: Connection, *, goal: str | None = None, limit: int = 100,
                   offset: int = 0) -> list[SnapshotInfo]:
    stmt = (
        select(SETS.c.id, SETS.c.goal, SETS.c.query, SETS.c.label, SETS.c.created_at,
               SETS.c.aggregate_score, SETS.c.dominant_source, SETS.c.dominance_ratio,
               SETS.c.item_count, DIFFS.c.status, DIFFS.c.action)
        .select_from(SETS.outerjoin(DIFFS, DIFFS.c.after_id == SETS.c.id))
        .order_by(SETS.c.created_at.desc(), SETS.c.seq.desc()).offset(offset).limit(limit)
    )
    if goal is not None:
        stmt = stmt.where(SETS.c.goal == goal)
    return [SnapshotInfo(*r) for r in conn.execute(stmt)]


def goals(conn: Connection) -> list[tuple[str, int, datetime]]:
    """(goal, snapshot count, latest snapshot time), most recently active first."""
    stmt = (select(SETS.c.goal, func.count(), func.max(SETS.c.created_at))
            .group_by(SETS.c.goal).order_by(func.max(SETS.c.created_at).desc()))
    return [(g, int(n), t) for g, n, t in conn.execute(stmt)]


def series(conn: Connection, goal: str) -> SnapshotSeries:
    stmt = (
        select(SETS.c.id, SETS.c.created_at, SETS.c.label, SETS.c.aggregate_score,
               SETS.c.dominance_ratio, SETS.c.source_totals, DIFFS.c.status, DIFFS.c.risk,
               DIFFS.c.id)
        .select_from(SETS.outerjoin(DIFFS, DIFFS.c.after_id == SETS.c.id))
        .where(SETS.c.goal == goal).order_by(SETS.c.created_at, SETS.c.seq)
    )
    rows = conn.execute(stmt).all()
    totals = [json.loads(r[5]) for r in rows]
    names = sorted({k for t in totals for k in t})
    n = len(rows)
    agg = np.fromiter((r[3] for r in rows), float, n)
    shares = {}
    safe = np.where(agg > 0, agg, 1.0)
    for s in names:
        shares[s] = np.fromiter((t.get(s, 0.0) for t in totals), float, n) / safe
    return SnapshotSeries(
        goal=goal, ids=[r[0] for r in rows], times=[r[1] for r in rows],
        labels=[r[2] for r in rows], sources=names, shares=shares, aggregate=agg,
        dominance=np.fromiter((r[4] or 0.0 for r in rows), float, n),
        status=[r[6] for r in rows],
        risk=np.fromiter((np.nan if r[7] is None else r[7] for r in rows), float, n),
        diff_ids=[r[8] for r in rows],
    )
