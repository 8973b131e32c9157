"""Calibration back into the write path: the operator's sweep decisions say what
importance a memory *should* have had; a calibration map learned from them suggests an
importance for new memories, shown beside the write-time value, and applied
automatically for the sources the operator chooses.

The map is the guided-sweep model's raise score (same features, fitted on the same
decisions; out-of-fold scores, so the map does not learn the model's in-sample
confidence) calibrated to a probability that the operator raises the memory by
scikit-learn's isotonic regression: one map per source with at least ``PER_SOURCE``
decisions, a pooled map for the rest.  Where that probability is at least one half the
suggestion is the importance the operator gave the memories of that source they raised
(their mean); below it, the write-time value stands.  The rule is the one that minimises
absolute error: an in-between value (the probability-weighted mean) would be wrong for
both the memories kept and those raised.  A suggestion is made only for write-time
importances inside the range the decisions cover (the bands swept): outside it the
operator has taught nothing.

Calibration error is reported on held-out decisions: a fifth of them, set aside before
fitting, scored by mean absolute error of the write-time importance (before) and of the
suggestion (after) against what the operator decided.  Applying a suggestion is one
audited ``calibrate`` action per batch, undone by the generic undo.

For a source with auto-apply on, the job worker applies the suggestion as it stores a
memory (``calibrate_at_write``, the worker's hook, in the job's write transaction): one
``calibrate`` group per job, so one undo restores the job's write-time importances.
The audit row's ``before`` keeps the write-time value; suggestions are made from it and
show it beside the calibrated one.
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import numpy as np
from sqlalchemy import Connection, Table, delete, insert, select

from memdesk.core import taxonomy as tx
from memdesk.core.curation import features as F
from memdesk.core.curation import guided as G
from memdesk.core.curation.decisions import Decision, latest_per_memory, load_decisions
from memdesk.core.curation.learning_models import CalibrationSource, CurationModel
from memdesk.core.curation.sampling import planner_safe_active
from memdesk.core.errors import ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryEvent, MemoryProvenance
from memdesk.core.store.records import MEMORY_EDIT, Changed, Changes

CALIBRATION = "calibration"
MIN_DECISIONS = 40
PER_SOURCE = 50
POOLED = "*"
HELD_OUT = 0.2
# Declarative types __table__ as a FromClause; these models map plain Tables.
CM = cast(Table, CurationModel.__table__)
C = CM.c
CS = cast(Table, CalibrationSource.__table__)
M = Memory.__table__.c
E = MemoryEvent.__table__.c
P = MemoryProvenance.__table__.c


@dataclass(frozen=True)
class Calibrator:
    id: str
    trained_at: datetime
    decisions: int
    model: G.GuidedModel
    maps: dict[str, tuple[np.ndarray, np.ndarray]]  # source -> isotonic (score, P) knots
    raise_to: dict[str, float]  # source -> mean importance the operator raised to
    lo: float  # write-time importances covered by the decisions
    hi: float
    mae_before: float | None = None
    mae_after: float | None = None
    held_out: int = 0

    def p_raise(self, enc: F.Rows) -> np.ndarray:
        """Calibrated probability that the operator would raise each row."""
        s = self.model.scores(enc.X)
        out = np.zeros(len(enc.ids))
        for i, src in enumerate(enc.sources):
            x, y = self.maps.get(src) or self.maps[POOLED]
            out[i] = float(np.interp(s[i], x, y))
        return out

    def suggest_rows(self, enc: F.Rows) -> np.ndarray:
        """Suggested importance per row (NaN: outside the range decisions cover)."""
        p = self.p_raise(enc)
        out = np.full(len(enc.ids), np.nan)
        for i, src in enumerate(enc.sources):
            if not self.lo <= enc.importance[i] <= self.hi:
                continue
            to = self.raise_to.get(src, self.raise_to[POOLED])
            out[i] = round(to, 2) if p[i] >= 0.5 else float(enc.importance[i])
        return out

    def to_params(self) -> dict[str, Any]:
        return {"model": self.model.to_params(), "range": [self.lo, self.hi],
                "maps": {k: [x.tolist(), y.tolist()] for k, (x, y) in self.maps.items()},
                "raise_to": self.raise_to}

    def metrics(self) -> dict[str, Any]:
        return {"mae_before": self.mae_before, "mae_after": self.mae_after,
                "held_out": self.held_out}

    def describe(self) -> str:
        text = (f"Calibration trained {self.trained_at:%Y-%m-%d %H:%M} on {self.decisions} "
                f"decisions; suggests for write-time importance {self.lo:.2f}–{self.hi:.2f}")
        if self.mae_before is not None and self.mae_after is not None:
            change = self.mae_after / self.mae_before - 1 if self.mae_before else 0.0
            text += (f"; held-out error (MAE, {self.held_out} decisions) {self.mae_before:.3f}"
                     f" → {self.mae_after:.3f} ({change:+.0%})")
        return text


def _maps(scores: np.ndarray, before: np.ndarray, after: np.ndarray, sources: list[str]
          ) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[str, float]]:
    from sklearn.isotonic import IsotonicRegression

    raised = (after > before).astype(float)

    def fit(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
        iso.fit(scores[idx], raised[idx])
        return np.asarray(iso.X_thresholds_), np.asarray(iso.y_thresholds_)

    def raise_to(idx: np.ndarray) -> float | None:
        up = after[idx][raised[idx] > 0]
        return float(up.mean()) if len(up) else None

    every = np.arange(len(scores))
    maps = {POOLED: fit(every)}
    to = {POOLED: raise_to(every) or float(after.max(initial=0.5))}
    arr = np.array(sources)
    for src in set(sources):
        idx = np.flatnonzero(arr == src)
        if len(idx) >= PER_SOURCE:
            maps[src] = fit(idx)
            if (t := raise_to(idx)) is not None:
                to[src] = t
    return maps, to


def _fit(conn: Connection, ds: list[Decision]) -> Calibrator:
    model, X, y, enc = G.fit_encoded(conn, ds)
    by_id = {d.memory_id: d for d in latest_per_memory(ds)}
    after = np.array([by_id[i].after for i in enc.ids])
    scores = G.out_of_fold_scores(model, X, y)
    maps, to = _maps(scores, enc.importance, after, enc.sources)
    return Calibrator(new_id(), utcnow(), len(ds), model, maps, to,
                      float(enc.importance.min()), float(enc.importance.max()))


def _errors(conn: Connection, cal: Calibrator, ds: list[Decision]) -> tuple[float, float, int]:
    rows = F.read_ids(conn, [d.memory_id for d in ds], cal.model.spec)
    by_id = {d.memory_id: d for d in ds}
    enc = F.encode(rows, cal.model.spec, importance=[by_id[r[1]].before for r in rows])
    after = np.array([by_id[i].after for i in enc.ids])
    sug = cal.suggest_rows(enc)
    keep = ~np.isnan(sug)
    if not keep.any():
        return float("nan"), float("nan"), 0
    before = np.abs(enc.importance[keep] - after[keep]).mean()
    return float(before), float(np.abs(sug[keep] - after[keep]).mean()), int(keep.sum())


def fit_calibration(conn: Connection, decisions: list[Decision], *, seed: int = 0
                    ) -> Calibrator:
    """Fit on all decisions; error measured by fitting once more without a held-out fifth."""
    ds = latest_per_memory(decisions)
    if len(ds) < MIN_DECISIONS:
        raise G.ColdStart(f"Calibration needs {MIN_DECISIONS} decisions (now {len(ds)}).")
    order = list(ds)
    random.Random(seed).shuffle(order)
    cut = max(1, int(len(order) * HELD_OUT))
    held, train_part = order[:cut], order[cut:]
    before = after = None
    n_held = 0
    try:
        trial = _fit(conn, train_part)
        b, a, n_held = _errors(conn, trial, held)
        if n_held:
            before, after = b, a
    except G.ColdStart:
        pass  # too few to hold any out: report no error figures rather than a bad one
    full = _fit(conn, ds)
    return Calibrator(full.id, full.trained_at, full.decisions, full.model, full.maps,
                      full.raise_to, full.lo, full.hi, before, after, n_held)


def train(store: MemoryStore) -> Calibrator:
    with store.read() as conn:
        cal = fit_calibration(conn, load_decisions(conn))
    with store.write() as conn:
        conn.execute(insert(CM).values(
            id=cal.id, kind=CALIBRATION, trained_at=cal.trained_at, decisions=cal.decisions,
            params=json.dumps(cal.to_params()), metrics=json.dumps(cal.metrics())))
    return cal


def latest(conn: Connection) -> Calibrator | None:
    row = conn.execute(select(CM).where(C.kind == CALIBRATION)
                       .order_by(C.trained_at.desc()).limit(1)).first()
    if row is None:
        return None
    try:
        p = json.loads(row.params)
        m = json.loads(row.metrics or "{}")
        model = G.from_params(row.id, row.trained_at, row.decisions, p["model"])
        maps = {k: (np.asarray(x), np.asarray(y)) for k, (x, y) in p["maps"].items()}
        return Calibrator(row.id, row.trained_at, row.decisions, model, maps,
                          {k: float(v) for k, v in p["raise_to"].items()},
                          float(p["range"][0]), float(p["range"][1]),
                          m.get("mae_before"), m.get("mae_after"), int(m.get("held_out", 0)))
    except (ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class Suggestion:
    memory_id: str
    write_time: float  # the importance the write path gave it
    suggested: float | None  # None: outside what the decisions cover
    source: str
    p_raise: float  # calibrated probability that the operator would raise it
    current: float | None = None  # its importance now, when a calibration changed it

    @property
    def applied(self) -> bool:
        return self.current is not None and self.current != self.write_time


def suggest(store: MemoryStore, memory_ids: list[str]) -> list[Suggestion]:
    """Suggested importances for these memories (empty without a calibration)."""
    with store.read() as conn:
        cal = latest(conn)
    if cal is None or not memory_ids:
        return []
    return suggest_with(store, cal, memory_ids)


def _write_time(conn: Connection, memory_ids: list[str]) -> dict[str, float]:
    """The importance before the first calibration of each calibrated memory."""
    out: dict[str, float] = {}
    for k in range(0, len(memory_ids), 500):
        for mid, before in conn.execute(
                select(E.memory_id, E.before).where(
                    E.memory_id.in_(memory_ids[k:k + 500]), E.action == acts.CALIBRATE.name)
                .order_by(E.id)):
            value = json.loads(before or "{}").get("importance")
            if mid not in out and isinstance(value, int | float):
                out[mid] = float(value)
    return out


def suggest_with(store: MemoryStore, cal: Calibrator, memory_ids: list[str]
                 ) -> list[Suggestion]:
    """Suggestions of a given calibration (benchmarks compare calibrations), made from
    the write-time importance (a calibrated memory's is in its audit row)."""
    with store.read() as conn:
        rows = F.read_ids(conn, memory_ids, cal.model.spec)
        first = _write_time(conn, [r[1] for r in rows])
    now = [float(r[5]) for r in rows]
    enc = F.encode(rows, cal.model.spec,
                   importance=[first.get(r[1], now[i]) for i, r in enumerate(rows)])
    sug = cal.suggest_rows(enc)
    p = cal.p_raise(enc)
    return [Suggestion(mid, float(enc.importance[i]),
                       None if np.isnan(sug[i]) else float(sug[i]), enc.sources[i],
                       float(p[i]), now[i] if mid in first else None)
            for i, mid in enumerate(enc.ids)]


def set_auto_apply(store: MemoryStore, source: str, on: bool, *, actor: str = "operator"
                   ) -> Changes:
    source = tx.check_optional_str("source", source, 64) or ""
    if not source:
        raise ValidationError("source", "name a memory source (an extractor, or 'direct')")
    actor = str(tx.Actor(actor))
    with store.write() as conn:
        conn.execute(delete(CS).where(CS.c.source == source))
        if on:
            conn.execute(insert(CS).values(source=source, auto_apply=True, since=utcnow(),
                                           actor=actor))
    return Changes(kinds=Changed.NOTHING)


def auto_sources(store: MemoryStore) -> dict[str, datetime]:
    with store.read() as conn:
        return {r.source: r.since for r in conn.execute(
            select(CS).where(CS.c.auto_apply.is_(True)))}


@dataclass(frozen=True)
class Applied:
    count: int
    changes: Changes


def apply(store: MemoryStore, memory_ids: list[str], *, actor: str = "operator",
          note: str | None = None) -> Applied:
    """Set each memory's importance to its suggestion: one audited, undoable group."""
    sugs = [s for s in suggest(store, memory_ids)
            if s.suggested is not None
            and s.suggested != (s.write_time if s.current is None else s.current)]
    gid = new_id()
    ids, evs = [], []
    with store.write() as conn:
        for s in sugs:
            ev = store.apply_in(conn, s.memory_id, {"importance": s.suggested}, actor=actor,
                                action=acts.CALIBRATE, group_id=gid,
                                note=note or f"calibrated from {s.write_time:.2f}")
            if ev is not None:
                ids.append(s.memory_id)
                evs.append(ev)
    if not evs:
        return Applied(0, Changes(kinds=Changed.NOTHING))
    return Applied(len(evs), Changes(tuple(ids), tuple(evs), gid, MEMORY_EDIT,
                                     action=acts.CALIBRATE))


def pending(store: MemoryStore) -> list[str]:
    """Active memories of auto-apply sources written since auto-apply was turned on
    and never calibrated nor reviewed in a sweep (the operator's word wins)."""
    from memdesk.core.curation.models import SweepItem

    auto = auto_sources(store)
    if not auto:
        return []
    with store.read() as conn:
        done = set(conn.execute(select(E.memory_id).where(E.action == acts.CALIBRATE.name))
                   .scalars())
        done.update(conn.execute(select(SweepItem.__table__.c.memory_id)).scalars())
        out: list[str] = []
        for src, since in auto.items():
            stmt = (select(M.id).select_from(Memory.__table__.outerjoin(
                MemoryProvenance.__table__, P.memory_id == M.id))
                .where(planner_safe_active(conn.dialect.name), M.created_at >= since))
            stmt = stmt.where(P.extractor.is_(None) if src == F.DIRECT
                              else P.extractor == src)
            out += [i for i in conn.execute(stmt).scalars() if i not in done]
    return out


def apply_pending(store: MemoryStore, *, actor: str = "worker") -> Applied:
    """Calibrate every pending memory of the auto-apply sources (one undoable group)."""
    ids = pending(store)
    if not ids:
        return Applied(0, Changes(kinds=Changed.NOTHING))
    return apply(store, ids, actor=actor, note="auto-applied calibration")


# -- at write time: the job worker's hook ------------------------------------------------
# Parsed calibrations by (store, model id): a job only checks which one is newest (an
# index read), and parses it when training made a new one.
_PARSED: dict[tuple[str, str], Calibrator] = {}
_PARSED_LOCK = threading.Lock()


def _newest(conn: Connection) -> Calibrator | None:
    mid = conn.execute(select(C.id).where(C.kind == CALIBRATION)
                       .order_by(C.trained_at.desc()).limit(1)).scalar()
    if mid is None:
        return None
    key = (conn.engine.url.render_as_string(hide_password=True), str(mid))
    with _PARSED_LOCK:
        cal = _PARSED.get(key)
    if cal is None:
        cal = latest(conn)
        if cal is None or cal.id != mid:
            return cal
        with _PARSED_LOCK:
            if len(_PARSED) > 8:
                _PARSED.clear()
            _PARSED[key] = cal
    return cal


def calibrate_at_write(store: MemoryStore, conn: Connection, job_id: str,
                       extractor: str | None, memory_ids: list[str]) -> list[str]:
    """The job worker's hook (``Worker(hooks=...)``), in the job's write transaction
    after its inserts: when the job's source has auto-apply on and a calibration
    exists, each new memory gets its suggested importance.  One ``calibrate`` group per
    job (one undo step restores the job's write-time values, which the audit rows keep).
    Returns the lines for the job's log."""
    if not memory_ids:
        return []
    source = extractor or F.DIRECT
    if conn.execute(select(CS.c.source).where(
            CS.c.source == source, CS.c.auto_apply.is_(True))).first() is None:
        return []  # the common case: one primary-key read
    cal = _newest(conn)
    if cal is None:
        return []
    enc = F.encode(F.read_ids(conn, memory_ids, cal.model.spec), cal.model.spec)
    sug = cal.suggest_rows(enc)
    gid = new_id()
    changed = 0
    for i, mid in enumerate(enc.ids):
        to, was = float(sug[i]), float(enc.importance[i])
        if np.isnan(to) or to == was:
            continue
        if store.apply_in(conn, mid, {"importance": to}, actor="worker",
                          action=acts.CALIBRATE, group_id=gid,
                          note=(f"calibrated at write time from {was:.2f} (job {job_id}; "
                                f"auto-apply for source {source})")) is not None:
            changed += 1
    if not changed:
        return []
    return [f"calibrated the importance of {changed} memor"
            f"{'y' if changed == 1 else 'ies'} (auto-apply for source {source}; "
            f"calibration trained {cal.trained_at:%Y-%m-%d %H:%M} on {cal.decisions} "
            f"decisions; undo group {gid})"]
