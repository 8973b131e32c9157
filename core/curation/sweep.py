"""Revaluation sweeps (seed 002, change 4 option B): sample N active memories uniformly
from an importance band, let an operator re-decide their importance one at a time, and
report what changed.

Sampling never sorts the table by RANDOM().  It draws random ``seq`` values (the
integer primary key) and keeps those whose row passes the filter: rejection sampling,
whose accepted rows are a uniformly random subset of the filtered band because every
existing row is equally likely to be probed.  Probes go in batches of primary-key
lookups sized from the acceptance rate seen so far.  When the filter is so narrow that
probing would be slow (a single user, a thin band), it enumerates the matching rows
through an index instead and samples from that list; the row set is then small by
construction.

A sweep and every decision are written as they happen (tables ``sweeps`` and
``sweep_items``), so a sweep can be paused, the app closed, and the sweep resumed.
Decisions change importance through the store's audited update path (action
``revalue``), in the same transaction as the sweep item, and can be undone.
"""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, func, insert, literal_column, select, update

from memdesk.core import taxonomy as tx
from memdesk.core.curation.contemplative import ContemplativeHint, contemplative_hint
from memdesk.core.curation.models import Sweep, SweepItem
from memdesk.core.errors import MemdeskError, NotFoundError, ValidationError
from memdesk.core.store.memory_store import MemoryStore, new_id, utcnow
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.query import MemoryFilter, active_belief_state
from memdesk.core.store.records import Changes, MemoryRecord

M = Memory.__table__.c
E = MemoryEvent.__table__.c
ST = Sweep.__table__
IT = SweepItem.__table__
S = ST.c
I = IT.c  # noqa: E741 - the item table's columns, read as "I.pos"

DEFAULT_BAND = (0.3, 0.49)
DEFAULT_N = 20
MAX_N = 1000
PROBE_BUDGET = 20_000  # primary-key probes before switching to enumeration
PROBE_CHUNK = 5_000  # probes per query (well under SQLite's bound-parameter limit)
ENUMERATE_MAX = 50_000  # a user with at most this many live rows is enumerated directly
SMALL_TABLE = 5_000  # below this many seq values, enumerating is cheapest
DECISIONS = ("revalue", "keep", "skip")
HIST_BINS = 10


class SweepError(MemdeskError):
    """A sweep action that cannot be done as asked (message fit for the operator)."""


# -- sampling -------------------------------------------------------------------------


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


def planner_safe_active(dialect: str):  # type: ignore[no-untyped-def]
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
    )


def _clauses(
    band: tuple[float, float], user: str | None, type_: str | None, dialect: str
) -> list:
    out = [planner_safe_active(dialect), M.importance.between(*band)]
    if user is not None:
        out.append(M.user_id == user)
    if type_ is not None:
        out.append(M.type == type_)
    return out


def _enumerate(conn: Connection, clauses: list, n: int, rng: random.Random) -> Sample:
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


# -- sweep state ----------------------------------------------------------------------


@dataclass(frozen=True)
class SweepItemState:
    pos: int
    memory_id: str
    importance_before: float
    decision: str | None  # None: not reviewed yet (or its decision was undone elsewhere)
    importance_after: float | None
    note: str | None
    decided_at: datetime | None
    decided_by: str | None
    event_id: int | None

    @property
    def decided(self) -> bool:
        return self.decision is not None


@dataclass(frozen=True)
class SweepState:
    """A sweep with its items, as stored."""

    id: str
    created_at: datetime
    actor: str
    band: tuple[float, float]
    n: int
    user_id: str | None
    type: str | None
    seed: int
    method: str
    population: int | None
    finished_at: datetime | None
    items: tuple[SweepItemState, ...]

    @property
    def total(self) -> int:
        return len(self.items)

    @property
    def done(self) -> int:
        return sum(1 for it in self.items if it.decided)

    @property
    def finished(self) -> bool:
        return self.done == self.total

    @property
    def current(self) -> SweepItemState | None:
        """The first item not yet decided, in review order."""
        return next((it for it in self.items if not it.decided), None)

    def describe(self) -> str:
        who = f" user {self.user_id}" if self.user_id else ""
        what = f" type {self.type}" if self.type else ""
        return (f"importance {self.band[0]:.2f}–{self.band[1]:.2f}{who}{what}, "
                f"{self.done} / {self.total} reviewed")


def _load(conn: Connection, sweep_id: str) -> SweepState:
    row = conn.execute(select(ST).where(S.id == sweep_id)).first()
    if row is None:
        raise NotFoundError(f"No sweep with id {sweep_id!r}")
    # An item whose revalue was undone outside the sweep (e.g. `memdesk undo`) counts
    # as not reviewed, so the sweep never claims a change that is no longer there.
    rows = conn.execute(
        select(IT, E.undone_by)
        .select_from(IT.outerjoin(MemoryEvent.__table__, E.id == I.event_id))
        .where(I.sweep_id == sweep_id)
        .order_by(I.pos)
    ).all()
    items = []
    for r in rows:
        m = r._mapping
        undone = m["undone_by"] is not None
        items.append(SweepItemState(
            pos=m["pos"], memory_id=m["memory_id"], importance_before=m["importance_before"],
            decision=None if undone else m["decision"],
            importance_after=None if undone else m["importance_after"],
            note=m["note"], decided_at=None if undone else m["decided_at"],
            decided_by=m["decided_by"], event_id=None if undone else m["event_id"],
        ))
    m = row._mapping
    return SweepState(
        id=m["id"], created_at=m["created_at"], actor=m["actor"],
        band=(m["band_lo"], m["band_hi"]), n=m["n"], user_id=m["user_id"], type=m["type"],
        seed=m["seed"], method=m["method"], population=m["population"],
        finished_at=m["finished_at"], items=tuple(items),
    )


def get_sweep(store: MemoryStore, sweep_id: str) -> SweepState:
    with store.read() as conn:
        return _load(conn, sweep_id)


def start_sweep(
    store: MemoryStore,
    band: Sequence[float] = DEFAULT_BAND,
    n: int = DEFAULT_N,
    user: str | None = None,
    type: str | None = None,  # the issue's own parameter name
    seed: int | None = None,
    *,
    actor: str = "operator",
    note: str | None = None,
) -> SweepState:
    """Sample and persist a new sweep.  An empty band gives a clear error, not a sweep."""
    lo, hi = check_band(band)
    n = check_n(n)
    user = tx.check_optional_str("user", user, 200)
    type_ = tx.check_type(type) if type not in (None, "") else None
    if seed is None:
        seed = secrets.randbits(48)  # stored, so the draw can be reproduced
    elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValidationError("seed", f"must be a non-negative whole number, got {seed!r}")
    actor = str(tx.Actor(actor))
    rng = random.Random(seed)
    sweep_id = new_id()

    def run() -> SweepState:
        with store.write() as conn:
            sample = sample_band(conn, (lo, hi), n, rng, user=user, type_=type_)
            if not sample.rows:
                raise SweepError(
                    f"No active memories with importance {lo:.2f}–{hi:.2f}"
                    + (f" for user {user}" if user else "")
                    + (f" of type {type_}" if type_ else "")
                    + "; nothing to sweep."
                )
            conn.execute(insert(ST).values(
                id=sweep_id, created_at=utcnow(), actor=actor, band_lo=lo, band_hi=hi, n=n,
                user_id=user, type=type_, seed=seed, method=sample.method,
                population=sample.population, note=note,
            ))
            conn.execute(insert(IT), [
                dict(sweep_id=sweep_id, pos=i, memory_id=mid, importance_before=imp)
                for i, (mid, imp) in enumerate(sample.rows)
            ])
            return _load(conn, sweep_id)

    return store.guarded(run)


@dataclass(frozen=True)
class SweepSummary:
    id: str
    created_at: datetime
    band: tuple[float, float]
    n: int
    user_id: str | None
    type: str | None
    total: int
    done: int
    finished_at: datetime | None


def list_sweeps(
    store: MemoryStore, *, unfinished: bool = False, limit: int = 100
) -> list[SweepSummary]:
    """Sweeps, newest first, with their progress."""
    done = func.count(I.decision)
    stmt = (
        select(S.id, S.created_at, S.band_lo, S.band_hi, S.n, S.user_id, S.type,
               S.finished_at, func.count(I.pos), done)
        .select_from(ST.outerjoin(IT, I.sweep_id == S.id))
        .group_by(S.id)
        .order_by(S.created_at.desc(), S.id)
        .limit(limit)
    )
    if unfinished:
        stmt = stmt.where(S.finished_at.is_(None))
    with store.read() as conn:
        rows = conn.execute(stmt).all()
    return [
        SweepSummary(r[0], r[1], (r[2], r[3]), r[4], r[5], r[6], r[8], r[9], r[7]) for r in rows
    ]


# -- decisions ------------------------------------------------------------------------


def _audit_note(sweep_id: str, note: str | None) -> str:
    return f"sweep {sweep_id[:8]}" + (f": {note}" if note else "")


def decide(
    store: MemoryStore,
    sweep_id: str,
    pos: int,
    decision: str,
    *,
    importance: float | None = None,
    note: str | None = None,
    actor: str = "operator",
) -> Changes:
    """Record one decision (``revalue`` to ``importance``, ``keep`` or ``skip``).

    ``revalue`` changes the memory through the audited path (action "revalue", the
    note in the audit row) in the same transaction that records the sweep item.
    ``keep`` is audited too (action "review_keep", nothing changed) so a memory's
    history shows it was reviewed; ``skip`` only records the sweep item.
    """
    if decision not in DECISIONS:
        raise ValidationError("decision", f"expected one of {', '.join(DECISIONS)}")
    if decision == "revalue":
        if importance is None:
            raise ValidationError("importance", "a revalue needs a new importance")
        importance = tx.check_unit("importance", importance)
    note = tx.check_optional_str("note", note, 10_000)
    actor = str(tx.Actor(actor))

    def run() -> Changes:
        with store.write() as conn:
            state = _load(conn, sweep_id)
            item = next((it for it in state.items if it.pos == pos), None)
            if item is None:
                raise NotFoundError(f"Sweep {sweep_id[:8]} has no item {pos}")
            if item.decided:
                raise SweepError(
                    f"Item {pos + 1} of this sweep is already decided ({item.decision}); "
                    "undo it first to change the decision."
                )
            rec = store.get(item.memory_id, conn)
            kind, after, ev = decision, None, None
            if decision == "revalue" and importance == rec.importance:
                kind = "keep"  # the operator confirmed the current value
            if kind == "revalue":
                after = importance
                ev = store.apply_in(
                    conn, rec.id, {"importance": importance}, actor=actor, action="revalue",
                    note=_audit_note(sweep_id, note),
                )
            elif kind == "keep":
                after = rec.importance
                ev = store.log_in(conn, rec.id, actor, "review_keep", {}, {},
                                note=_audit_note(sweep_id, note))
            conn.execute(
                update(IT).where(I.sweep_id == sweep_id, I.pos == pos).values(
                    decision=kind, importance_after=after, note=note, decided_at=utcnow(),
                    decided_by=actor, event_id=ev,
                )
            )
            if state.done + 1 == state.total:
                conn.execute(update(ST).where(S.id == sweep_id).values(finished_at=utcnow()))
        return Changes(
            (rec.id,), (ev,) if ev else (), memories=kind == "revalue",
            extra={"sweep_id": sweep_id, "pos": pos, "decision": kind},
        )

    return store.guarded(run)


def undo_decision(
    store: MemoryStore, sweep_id: str, pos: int | None = None, *, actor: str = "operator"
) -> Changes:
    """Undo the latest decision (or item ``pos``): importance restored, item undecided."""
    actor = str(tx.Actor(actor))

    def run() -> Changes:
        with store.write() as conn:
            state = _load(conn, sweep_id)
            decided = [it for it in state.items if it.decided]
            if pos is not None:
                decided = [it for it in decided if it.pos == pos]
            if not decided:
                raise SweepError("Nothing to undo in this sweep.")
            item = max(decided, key=lambda it: (it.decided_at or datetime.min, it.pos))
            events: tuple[int, ...] = ()
            if item.event_id is not None:
                events = (store.undo_in(conn, item.event_id, actor, None),)
            conn.execute(
                update(IT).where(I.sweep_id == sweep_id, I.pos == item.pos).values(
                    decision=None, importance_after=None, note=None, decided_at=None,
                    decided_by=None, event_id=None,
                )
            )
            conn.execute(update(ST).where(S.id == sweep_id).values(finished_at=None))
        return Changes(
            (item.memory_id,), events, memories=item.decision == "revalue",
            extra={"sweep_id": sweep_id, "pos": item.pos, "undone": item.decision},
        )

    return store.guarded(run)


# -- context and report ---------------------------------------------------------------


@dataclass(frozen=True)
class ItemContext:
    """What the reviewer sees for one item: the memory, its session neighbours, a hint."""

    item: SweepItemState
    memory: MemoryRecord | None  # None when the memory no longer exists
    neighbours: tuple[MemoryRecord, ...]
    hint: ContemplativeHint | None


def session_neighbours(
    store: MemoryStore, memory: MemoryRecord, limit: int = 10
) -> list[MemoryRecord]:
    """Other memories of the same user and source session, closest in time first."""
    if not memory.source_session:
        return []
    rows = store.page(
        MemoryFilter(sessions=(memory.source_session,), user_ids=(memory.user_id,)),
        order_by="created_at", descending=False, limit=200,
    )
    rows = [r for r in rows if r.id != memory.id]
    rows.sort(key=lambda r: abs((r.created_at - memory.created_at).total_seconds()))
    return sorted(rows[:limit], key=lambda r: r.created_at)


def item_context(store: MemoryStore, item: SweepItemState) -> ItemContext:
    try:
        rec = store.get(item.memory_id)
    except NotFoundError:
        return ItemContext(item, None, (), None)
    return ItemContext(
        item, rec, tuple(session_neighbours(store, rec)),
        contemplative_hint(rec.text, rec.importance),
    )


@dataclass(frozen=True)
class SweepReport:
    """Outcome of a sweep: counts and the importance histogram before and after."""

    sweep_id: str
    total: int
    raised: int  # "rescued": importance went up
    lowered: int
    kept: int
    skipped: int
    undecided: int
    before: tuple[int, ...]  # HIST_BINS counts over [0, 1]
    after: tuple[int, ...]
    mean_before: float
    mean_after: float
    rescued_ids: tuple[str, ...]

    @property
    def bin_edges(self) -> tuple[float, ...]:
        return tuple(round(i / HIST_BINS, 2) for i in range(HIST_BINS + 1))

    def to_json(self) -> dict[str, Any]:
        return {
            "sweep_id": self.sweep_id, "total": self.total, "raised": self.raised,
            "lowered": self.lowered, "kept": self.kept, "skipped": self.skipped,
            "undecided": self.undecided, "bin_edges": list(self.bin_edges),
            "before": list(self.before), "after": list(self.after),
            "mean_before": self.mean_before, "mean_after": self.mean_after,
            "rescued_ids": list(self.rescued_ids),
        }


def _bin(v: float) -> int:
    return min(HIST_BINS - 1, int(v * HIST_BINS + 1e-9))


def report(store: MemoryStore, sweep_id: str) -> SweepReport:
    """Before: importance when sampled; after: the decided importance (else unchanged)."""
    state = get_sweep(store, sweep_id)
    before = [0] * HIST_BINS
    after = [0] * HIST_BINS
    raised = lowered = kept = skipped = undecided = 0
    rescued: list[str] = []
    sum_b = sum_a = 0.0
    for it in state.items:
        b = it.importance_before
        revalued = it.decision == "revalue" and it.importance_after is not None
        a = it.importance_after if revalued else b
        before[_bin(b)] += 1
        after[_bin(a)] += 1
        sum_b += b
        sum_a += a
        if it.decision is None:
            undecided += 1
        elif it.decision == "skip":
            skipped += 1
        elif it.decision == "keep" or a == b:
            kept += 1
        elif a > b:
            raised += 1
            rescued.append(it.memory_id)
        else:
            lowered += 1
    n = max(1, state.total)
    return SweepReport(
        state.id, state.total, raised, lowered, kept, skipped, undecided, tuple(before),
        tuple(after), round(sum_b / n, 4), round(sum_a / n, 4), tuple(rescued),
    )
