"""Revaluation sweeps (the V4 retriever proposal, change 4 option B): sample N active
memories uniformly from an importance band, let an operator re-decide their importance
one at a time, and report what changed.  How the sample is drawn (uniformly, without
sorting by RANDOM()) is ``memdesk.core.curation.sampling``.

The functions here are the implementation of :class:`memdesk.core.curation.service.Sweeps`,
the public surface; callers outside this package use the façade and the record types
below (``SweepState``, ``SweepStep``, ``ItemContext``, ``SweepReport``).

A sweep and every decision are written as they happen (tables ``sweeps`` and
``sweep_items``), so a sweep can be paused, the app closed, and the sweep resumed.
Decisions change importance through the store's audited update path (action
``revalue``), in the same transaction as the sweep item, and can be undone.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, insert, select, update

from memdesk.core import taxonomy as tx
from memdesk.core.curation import mixing
from memdesk.core.curation.contemplative import ContemplativeHint, contemplative_hint
from memdesk.core.curation.models import Sweep, SweepItem
from memdesk.core.curation.sampling import MAX_N as MAX_N  # the form's upper bound
from memdesk.core.curation.sampling import check_band, check_n, sample_band
from memdesk.core.errors import MemdeskError, NotFoundError, ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.audit import is_undone
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.query import MemoryFilter
from memdesk.core.store.records import Changed, Changes, MemoryRecord

M = Memory.__table__.c
E = MemoryEvent.__table__.c
# Declarative types __table__ as a FromClause; these models map plain Tables.
ST = cast(Table, Sweep.__table__)
IT = cast(Table, SweepItem.__table__)
S = ST.c
I = IT.c  # noqa: E741 - the item table's columns, read as "I.pos"

DEFAULT_BAND = (0.3, 0.49)
DEFAULT_N = 20
DECISIONS = ("revalue", "keep", "skip")
# The audited action of each decision (declared in memdesk.core.store.actions).
DECISION_ACTIONS = {"revalue": acts.REVALUE, "keep": acts.REVIEW_KEEP, "skip": acts.REVIEW_SKIP}
HIST_BINS = 10


class SweepError(MemdeskError):
    """A sweep action that cannot be done as asked (message fit for the operator)."""


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
    # What starting it changed (``Sweeps.start``): a new sweep, nothing to undo.
    changes: Changes = field(default_factory=lambda: Changes(kinds=Changed.NOTHING),
                             compare=False)

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

    def describe(self, show: Callable[[str], str] = str) -> str:
        """The band, filter and progress in words; ``show`` puts the user id (store
        text) into them (``isolate`` on screen, ``terminal`` on a terminal)."""
        who = f" user {show(self.user_id)}" if self.user_id else ""
        what = f" type {self.type}" if self.type else ""
        return (f"importance {self.band[0]:.2f}–{self.band[1]:.2f}{who}{what}, "
                f"{self.done} / {self.total} reviewed")


def _load(conn: Connection, sweep_id: str) -> SweepState:
    row = conn.execute(select(ST).where(S.id == sweep_id)).first()
    if row is None:
        raise NotFoundError(f"No sweep with id {sweep_id!r}")
    # An item whose decision event is undone (the generic undo, or `memdesk undo`)
    # counts as not reviewed, so the sweep never claims a change that is no longer
    # there; an undo that was itself undone (redo) brings the decision back.
    rows = conn.execute(
        select(IT, E.undone_by)
        .select_from(IT.outerjoin(MemoryEvent.__table__, E.id == I.event_id))
        .where(I.sweep_id == sweep_id)
        .order_by(I.pos)
    ).all()
    items = []
    for r in rows:
        m = r._mapping
        undone = is_undone(conn, m["undone_by"])
        items.append(SweepItemState(
            pos=m["pos"], memory_id=m["memory_id"], importance_before=m["importance_before"],
            decision=None if undone else m["decision"],
            importance_after=None if undone else m["importance_after"],
            note=m["note"], decided_at=None if undone else m["decided_at"],
            decided_by=m["decided_by"], event_id=None if undone else m["event_id"],
        ))
    m = row._mapping
    # finished_at is stamped when decide() takes the last item.  A sweep can also become
    # complete by a redo (undoing the undo of a decision), which writes no stamp: then
    # it finished with its newest decision.
    finished_at = None
    if all(it.decided for it in items):
        finished_at = m["finished_at"] or max(
            (it.decided_at for it in items if it.decided_at), default=None)
    return SweepState(
        id=m["id"], created_at=m["created_at"], actor=m["actor"],
        band=(m["band_lo"], m["band_hi"]), n=m["n"], user_id=m["user_id"], type=m["type"],
        seed=m["seed"], method=m["method"], population=m["population"],
        finished_at=finished_at, items=tuple(items),
    )


def _get(store: MemoryStore, sweep_id: str) -> SweepState:
    with store.read() as conn:
        return _load(conn, sweep_id)


def _start(
    store: MemoryStore,
    band: Sequence[float] = DEFAULT_BAND,
    n: int = DEFAULT_N,
    user: str | None = None,
    type: str | None = None,  # the issue's own parameter name
    seed: int | None = None,
    *,
    actor: str = "operator",
    note: str | None = None,
    guided: float = 0.0,
) -> SweepState:
    """Sample and persist a new sweep.  An empty band gives a clear error, not a sweep.

    ``guided``: the share of items picked by the guided-sweep model (``mixing``); the
    rest are uniform draws.  With no model yet (cold start) the sweep is all uniform."""
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
    plan = mixing.plan(store, (lo, hi), n, mixing.check_guided(guided), user=user,
                       type_=type_)

    with store.write() as conn:
        sample = sample_band(conn, (lo, hi), plan.n_uniform, rng, user=user, type_=type_)
        mixed = mixing.mix(plan, sample, rng)
        if not mixed.rows:
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
            for i, (mid, imp) in enumerate(mixed.rows)
        ])
        mixing.record(conn, sweep_id, mixed.picks)
        state = _load(conn, sweep_id)
    return replace(state, changes=Changes(kinds=Changed.SWEEPS))


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


def _list(
    store: MemoryStore, *, unfinished: bool = False, limit: int = 100
) -> list[SweepSummary]:
    """Sweeps, newest first, with their progress (decisions undone since not counted)."""
    stmt = select(S.id).order_by(S.created_at.desc(), S.id)
    out: list[SweepSummary] = []
    with store.read() as conn:
        for sweep_id in conn.execute(stmt).scalars():
            st = _load(conn, sweep_id)
            if unfinished and st.finished:
                continue
            out.append(SweepSummary(st.id, st.created_at, st.band, st.n, st.user_id, st.type,
                                    st.total, st.done, st.finished_at))
            if len(out) >= limit:
                break
    return out


# -- decisions ------------------------------------------------------------------------


def _audit_note(sweep_id: str, note: str | None) -> str:
    return f"sweep {sweep_id[:8]}" + (f": {note}" if note else "")


@dataclass(frozen=True)
class SweepStep:
    """One decision recorded or undone: which item, what it was, and what changed."""

    sweep_id: str
    pos: int
    decision: str  # revalue | keep | skip (for an undo: the decision undone)
    changes: Changes


def _decide(
    store: MemoryStore,
    sweep_id: str,
    pos: int,
    decision: str,
    *,
    importance: float | None = None,
    note: str | None = None,
    actor: str = "operator",
) -> SweepStep:
    """Record one decision (``revalue`` to ``importance``, ``keep`` or ``skip``).

    ``revalue`` changes the memory through the audited path (action "revalue", the
    note in the audit row) in the same transaction that records the sweep item.
    ``keep`` and ``skip`` are audited too (actions "review_keep" / "review_skip",
    nothing changed), so a memory's history shows it was reviewed and the decision is
    one audit group that the generic undo (``memdesk.core.undo.generic``) reverts: an item
    whose decision event is undone counts as undecided again.
    """
    if decision not in DECISIONS:
        raise ValidationError("decision", f"expected one of {', '.join(DECISIONS)}")
    if decision == "revalue":
        if importance is None:
            raise ValidationError("importance", "a revalue needs a new importance")
        importance = tx.check_unit("importance", importance)
    note = tx.check_optional_str("note", note, 10_000)
    actor = str(tx.Actor(actor))
    gid = new_id()
    with store.write() as conn:
        # Two operators deciding in one sweep at once: the second waits here and then
        # finds the item decided (PostgreSQL; SQLite's write transaction serialises).
        conn.execute(select(S.id).where(S.id == sweep_id).with_for_update()).all()
        state = _load(conn, sweep_id)
        item = next((it for it in state.items if it.pos == pos), None)
        if item is None:
            raise NotFoundError(f"Sweep {sweep_id[:8]} has no item {pos + 1}")
        if item.decided:
            raise SweepError(
                f"Item {pos + 1} of this sweep is already decided ({item.decision}); "
                "undo it first to change the decision."
            )
        rec = store.get(item.memory_id, conn, lock=True)
        kind, after = decision, None
        if decision == "revalue" and importance == rec.importance:
            kind = "keep"  # the operator confirmed the current value
        if kind == "revalue":
            after = importance
            ev = store.apply_in(
                conn, rec.id, {"importance": importance}, actor=actor, action=acts.REVALUE,
                note=_audit_note(sweep_id, note), group_id=gid,
            )
        else:
            after = rec.importance if kind == "keep" else None
            ev = store.log_in(conn, rec.id, actor, DECISION_ACTIONS[kind], {}, {},
                              note=_audit_note(sweep_id, note), group_id=gid)
        conn.execute(
            update(IT).where(I.sweep_id == sweep_id, I.pos == pos).values(
                decision=kind, importance_after=after, note=note, decided_at=utcnow(),
                decided_by=actor, event_id=ev,
            )
        )
        if state.done + 1 == state.total:
            conn.execute(update(ST).where(S.id == sweep_id).values(finished_at=utcnow()))
    kinds = Changed.SWEEPS | Changed.HISTORY
    if kind == "revalue":
        kinds |= Changed.MEMORIES
    return SweepStep(sweep_id, pos, kind, Changes((rec.id,), (ev,) if ev else (), gid, kinds,
                                                  action=DECISION_ACTIONS[kind]))


def _undo_decision(
    store: MemoryStore, sweep_id: str, pos: int | None = None, *, actor: str = "operator"
) -> SweepStep:
    """Undo the latest decision (or item ``pos``): importance restored, item undecided."""
    actor = str(tx.Actor(actor))
    state = _get(store, sweep_id)
    decided = [it for it in state.items if it.decided]
    if pos is not None:
        decided = [it for it in decided if it.pos == pos]
    if not decided:
        raise SweepError("Nothing to undo in this sweep.")
    item = max(decided, key=lambda it: (it.decided_at or datetime.min, it.pos))
    if item.event_id is not None:
        group = store.event(item.event_id).group_id
        if group is not None:
            return SweepStep(sweep_id, item.pos, item.decision or "",
                             store.undo_group(group, actor=actor))
    # Decisions recorded before every decision had its own audit group.
    with store.write() as conn:
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
    kinds = Changed.SWEEPS | (Changed.HISTORY if events else Changed.NOTHING)
    if item.decision == "revalue":
        kinds |= Changed.MEMORIES
    return SweepStep(sweep_id, item.pos, item.decision or "",
                     Changes((item.memory_id,), events, None, kinds))


# -- context and report ---------------------------------------------------------------


@dataclass(frozen=True)
class ItemContext:
    """What the reviewer sees for one item: the memory, its session neighbours, a hint."""

    item: SweepItemState
    memory: MemoryRecord | None  # None when the memory no longer exists
    neighbours: tuple[MemoryRecord, ...]
    hint: ContemplativeHint | None


def _session_neighbours(
    store: MemoryStore, memory: MemoryRecord, limit: int = 10
) -> list[MemoryRecord]:
    """Other memories of the same user and source session, closest in time first."""
    if not memory.source_session:
        return []
    # The nearest lie on both sides of the memory: read the closest limit + 1 before and
    # after it (the memory itself may be among them), not the session's first rows,
    # which in a long session are far from a late memory.
    flt = MemoryFilter(sessions=(memory.source_session,), user_ids=(memory.user_id,))
    at = memory.created_at
    before = store.page(flt.with_(created_to=at), order_by="created_at", descending=True,
                        limit=limit + 1)
    after = store.page(flt.with_(created_from=at), order_by="created_at",
                       descending=False, limit=limit + 1)
    rows = {r.id: r for r in (*before, *after) if r.id != memory.id}.values()
    near = sorted(rows, key=lambda r: (abs((r.created_at - at).total_seconds()),
                                       r.created_at, r.id))
    return sorted(near[:limit], key=lambda r: (r.created_at, r.id))


def _item_context(store: MemoryStore, item: SweepItemState) -> ItemContext:
    try:
        rec = store.get(item.memory_id)
    except NotFoundError:
        return ItemContext(item, None, (), None)
    return ItemContext(
        item, rec, tuple(_session_neighbours(store, rec)),
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


def _report(store: MemoryStore, sweep_id: str) -> SweepReport:
    """Before: importance when sampled; after: the decided importance (else unchanged)."""
    state = _get(store, sweep_id)
    before = [0] * HIST_BINS
    after = [0] * HIST_BINS
    raised = lowered = kept = skipped = undecided = 0
    rescued: list[str] = []
    sum_b = sum_a = 0.0
    for it in state.items:
        b = it.importance_before
        decided = it.importance_after
        a = decided if it.decision == "revalue" and decided is not None else b
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
