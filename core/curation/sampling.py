"""Sampling a sweep: N active memories drawn uniformly from an importance band.

Sampling never sorts the table by RANDOM().  It draws random ``seq`` values (the
integer primary key) and keeps those whose row passes the filter: rejection sampling,
whose accepted rows are a uniformly random subset of the filtered band because every
existing row is equally likely to be probed.  Probes go in batches of primary-key
lookups sized from the acceptance rate seen so far.  When the filter is so narrow that
probing would be slow (a single user, a thin band), it enumerates the matching rows
through an index instead and samples from that list; the row set is then small by
construction.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, and_, func, literal_column, select

from memdesk.core import taxonomy as tx
from memdesk.core.errors import ValidationError
from memdesk.core.store.models import Memory
from memdesk.core.store.query import active_belief_state

M = Memory.__table__.c

MAX_N = 1000
PROBE_BUDGET = 20_000  # primary-key probes before switching to enumeration
PROBE_CHUNK = 5_000  # probes per query (well under SQLite's bound-parameter limit)
ENUMERATE_MAX = 50_000  # a user with at most this many live rows is enumerated directly
SMALL_TABLE = 5_000  # below this many seq values, enumerating is cheapest


@dataclass(frozen=True)
class Sample:
    """The sampled (id, importance) pairs, in review order, and how they were found."""

    rows: tuple[tuple[str, float], ...]
    method: str  # "rejection" | "enumeration"
    population: int  # rows matching the filter (an estimate for "rejection")
    probes: int = 0


def check_band(band: Sequence[float]) -> tuple[float, float]:
    try:
        lo, hi = band
    except (TypeError, ValueError):
        raise ValidationError("band", "expected two numbers (low, high)") from None
    lo = tx.check_unit("band", lo)
    hi = tx.check_unit("band", hi)
    if lo > hi:
        raise ValidationError("band", f"low ({lo}) is above high ({hi})")
    return lo, hi


def check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise ValidationError("n", f"must be a whole number from 1 to {MAX_N}, got {n!r}")
    return n


def planner_safe_active(dialect: str) -> ColumnElement[bool]:
    """``active_belief_state()`` worded so SQLite's planner does not pick the
    superseded_by index: ANALYZE sees its keys as nearly unique, so ``superseded_by IS
    NULL`` looks like a one-row lookup when it matches almost the whole table.  Unary
    ``+`` (SQLite's documented idiom) keeps a column out of index selection."""
    if dialect != "sqlite":
        return active_belief_state()
    return and_(
        M.valid_until.is_(None),
        literal_column("+memories.superseded_by").is_(None),
        literal_column("+memories.deleted_at").is_(None),
        literal_column("+memories.quarantined_at").is_(None),
        literal_column("+memories.archived_at").is_(None),
        literal_column("+memories.framing").is_(None),
    )


def _clauses(
    band: tuple[float, float], user: str | None, type_: str | None, dialect: str
) -> list[ColumnElement[bool]]:
    out = [planner_safe_active(dialect), M.importance.between(*band)]
    if user is not None:
        out.append(M.user_id == user)
    if type_ is not None:
        out.append(M.type == type_)
    return out


def _enumerate(conn: Connection, clauses: list[ColumnElement[bool]], n: int,
               rng: random.Random) -> Sample:
    rows = conn.execute(select(M.id, M.importance).where(*clauses).order_by(M.seq)).all()
    picked = rng.sample(rows, min(n, len(rows)))
    return Sample(tuple((r[0], float(r[1])) for r in picked), "enumeration", len(rows))


def sample_band(
    conn: Connection,
    band: tuple[float, float],
    n: int,
    rng: random.Random,
    *,
    user: str | None = None,
    type_: str | None = None,
    probe_budget: int = PROBE_BUDGET,
    small_table: int = SMALL_TABLE,
) -> Sample:
    """Up to ``n`` distinct active memories drawn uniformly from the filtered band."""
    clauses = _clauses(band, user, type_, conn.dialect.name)
    # Two queries: SQLite answers a lone min() or max() from the b-tree edge, but
    # scans the whole table when both are in one SELECT.
    lo_seq = conn.execute(select(func.min(M.seq))).scalar()
    hi_seq = conn.execute(select(func.max(M.seq))).scalar()
    if lo_seq is None or hi_seq is None:
        return Sample((), "enumeration", 0)
    span = hi_seq - lo_seq + 1
    if span <= small_table:
        return _enumerate(conn, clauses, n, rng)
    if user is not None:
        # One user's live rows are one range of ix_memories_user_valid: cheap to count.
        live = conn.execute(
            select(func.count()).where(M.user_id == user, M.valid_until.is_(None))
        ).scalar_one()
        if live <= ENUMERATE_MAX:
            return _enumerate(conn, clauses, n, rng)

    # Distinct values in order of first appearance among i.i.d. uniform draws form a
    # uniformly random permutation prefix, so the first n accepted rows are a uniform
    # random n-subset of the rows that pass the filter.
    tried: set[int] = set()
    accepted: list[tuple[str, float]] = []
    draws = 0
    hits = 0
    probed = 0
    while len(accepted) < n and draws < probe_budget:
        need = n - len(accepted)
        rate = (hits + 1) / (probed + 2)  # Laplace estimate; never zero
        size = min(PROBE_CHUNK, probe_budget - draws, max(64, math.ceil(need / rate * 1.5)))
        chunk: list[int] = []
        for _ in range(size):
            draws += 1
            s = rng.randrange(lo_seq, hi_seq + 1)
            if s not in tried:
                tried.add(s)
                chunk.append(s)
        if not chunk:
            continue
        found = {
            r[0]: (r[1], float(r[2]))
            for r in conn.execute(
                select(M.seq, M.id, M.importance).where(M.seq.in_(chunk), *clauses)
            )
        }
        probed += len(chunk)
        hits += len(found)
        for s in chunk:
            if s in found:
                accepted.append(found[s])
                if len(accepted) == n:
                    break
    if len(accepted) < n:
        # Too narrow to find by probing (or fewer than n rows exist): enumerate.
        return _enumerate(conn, clauses, n, rng)
    population = round(hits / probed * span) if probed else 0
    return Sample(tuple(accepted), "rejection", population, probed)


