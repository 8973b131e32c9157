"""Guided sweeps: a small model trained on the operator's own sweep decisions scores
the unreviewed band by how likely the operator is to raise each memory; a guided sweep
mixes uniform draws (which keep the band estimate unbiased) with the highest-scoring
memories (which rescue more per hour of reviewing).

The model is scikit-learn's logistic regression over ``features`` (standardised), with
balanced class weights because raises are the minority.  It is stored as JSON (means,
scales, coefficients), never pickled, with its training date and decision count; each
guided pick carries its score and the features that pushed it up most.

Cold start: until ``MIN_DECISIONS`` decisions with at least ``MIN_EACH`` raised and
``MIN_EACH`` not raised exist, there is no model and a guided sweep is all uniform.
"""

from __future__ import annotations

import heapq
import json
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import numpy as np
from sqlalchemy import Connection, Table, insert, select

from memdesk.core.curation import features as F
from memdesk.core.curation.decisions import Decision, latest_per_memory, load_decisions
from memdesk.core.curation.learning_models import CurationModel
from memdesk.core.errors import MemdeskError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import MemoryVector

MIN_DECISIONS = 30
MIN_EACH = 5
MAX_SOURCES = 20  # sources seen in training get their own one-hot (the rest: "other")
# Declarative types __table__ as a FromClause; this model maps a plain Table.
CM = cast(Table, CurationModel.__table__)
C = CM.c
GUIDED = "guided"


class ColdStart(MemdeskError):
    """Too few decisions to train on (the message says how many more are needed)."""


@dataclass(frozen=True)
class GuidedModel:
    id: str
    trained_at: datetime
    decisions: int
    raised: int
    spec: F.FeatureSpec
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    def scores(self, X: np.ndarray) -> np.ndarray:
        """P(the operator raises it) for each row of ``X``."""
        z = ((X - self.mean) / self.scale) @ self.coef + self.intercept
        return cast(np.ndarray, 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30))))

    def explain(self, x: np.ndarray, top: int = 3) -> str:
        """The features that pushed this memory's score up most, in plain words."""
        contrib = (x - self.mean) / self.scale * self.coef
        names = self.spec.names
        parts: dict[str, float] = {}
        for i, c in enumerate(contrib):
            name = names[i]
            if name.startswith("vector[") or name == "has vector":
                parts["meaning (vector)"] = parts.get("meaning (vector)", 0.0) + float(c)
            elif "=" in name and x[i] == 0:
                continue  # "not of type X" is no reason to show an operator
            else:
                parts[name] = float(c)
        best = sorted(((v, k) for k, v in parts.items() if v > 0), reverse=True)[:top]
        return ", ".join(f"{k} (+{v:.2f})" for v, k in best) or "no single feature stands out"

    def to_params(self) -> dict[str, Any]:
        return {"sources": list(self.spec.sources), "vectors": self.spec.vectors,
                "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": self.intercept,
                "raised": self.raised}


def cold_start_reason(decisions: list[Decision]) -> str | None:
    """Why no model can be trained yet (None: enough decisions)."""
    raised = sum(d.raised for d in decisions)
    rest = len(decisions) - raised
    if len(decisions) >= MIN_DECISIONS and raised >= MIN_EACH and rest >= MIN_EACH:
        return None
    return (f"Guided picks start after {MIN_DECISIONS} decisions with at least {MIN_EACH} "
            f"raised and {MIN_EACH} not raised (now {len(decisions)}: {raised} raised); "
            "until then sweeps are uniform.")


def _uses_vectors(conn: Connection) -> bool:
    return conn.execute(select(MemoryVector.__table__.c.seq).limit(1)).first() is not None


def _classifier() -> Any:  # a LogisticRegression: scikit-learn has no type information
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=0.5, class_weight="balanced", max_iter=2000)


def fit(conn: Connection, decisions: list[Decision]) -> tuple[GuidedModel, np.ndarray, np.ndarray]:
    """A model from these decisions (not stored), with its training matrix and labels."""
    model, X, y, _enc = fit_encoded(conn, decisions)
    return model, X, y


def out_of_fold_scores(model: GuidedModel, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each training row's score from a model that did not see it (5-fold), so a
    calibration fitted to them is not fooled by the model's in-sample confidence."""
    from sklearn.model_selection import cross_val_predict

    folds = int(min(5, np.bincount(y).min()))
    if folds < 2:
        return model.scores(X)
    Z = (X - model.mean) / model.scale
    return cast(np.ndarray,
                cross_val_predict(_classifier(), Z, y, cv=folds, method="predict_proba")[:, 1])


def fit_encoded(conn: Connection, decisions: list[Decision]
                ) -> tuple[GuidedModel, np.ndarray, np.ndarray, F.Rows]:
    """``fit``, also returning the encoded rows (ids, sources, importances)."""

    decisions = latest_per_memory(decisions)
    reason = cold_start_reason(decisions)
    if reason:
        raise ColdStart(reason)
    src_count: Counter[str] = Counter()
    probe = F.FeatureSpec((), _uses_vectors(conn))
    rows = F.read_ids(conn, [d.memory_id for d in decisions], probe)
    by_id = {d.memory_id: d for d in decisions}
    rows = [r for r in rows if r[1] in by_id]
    for r in rows:
        src_count[r[8] or F.DIRECT] += 1
    spec = F.FeatureSpec(tuple(s for s, _ in src_count.most_common(MAX_SOURCES)),
                         probe.vectors)
    enc = F.encode(rows, spec, importance=[by_id[r[1]].before for r in rows])
    y = np.array([by_id[i].raised for i in enc.ids], dtype=int)
    X = enc.X.astype(np.float64)
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0  # constant columns: leave them at zero after centring
    clf = _classifier()
    clf.fit((X - mean) / scale, y)
    model = GuidedModel(new_id(), utcnow(), len(y), int(y.sum()), spec, mean, scale,
                        clf.coef_[0].astype(np.float64), float(clf.intercept_[0]))
    return model, X, y, enc


def train(store: MemoryStore) -> GuidedModel:
    """Train on every standing decision and store the model (ColdStart: too few)."""
    with store.read() as conn:
        model, _X, _y = fit(conn, load_decisions(conn))
    with store.write() as conn:
        conn.execute(insert(CM).values(
            id=model.id, kind=GUIDED, trained_at=model.trained_at,
            decisions=model.decisions, params=json.dumps(model.to_params()), metrics=None))
    return model


def from_params(mid: str, trained_at: datetime, decisions: int,
                p: dict[str, Any]) -> GuidedModel:
    spec = F.FeatureSpec(tuple(p["sources"]), bool(p["vectors"]))
    return GuidedModel(mid, trained_at, decisions, int(p.get("raised", 0)), spec,
                       np.asarray(p["mean"]), np.asarray(p["scale"]),
                       np.asarray(p["coef"]), float(p["intercept"]))


def latest(conn: Connection) -> GuidedModel | None:
    row = conn.execute(select(CM).where(C.kind == GUIDED)
                       .order_by(C.trained_at.desc()).limit(1)).first()
    if row is None:
        return None
    try:
        return from_params(row.id, row.trained_at, row.decisions, json.loads(row.params))
    except (ValueError, KeyError, TypeError):
        return None  # a damaged row: behave as before any training


@dataclass(frozen=True)
class GuidedPick:
    memory_id: str
    importance: float
    score: float
    reason: str


def top_unreviewed(conn: Connection, model: GuidedModel, band: tuple[float, float], k: int,
                   *, exclude: Collection[str] = (), user: str | None = None,
                   type_: str | None = None) -> list[GuidedPick]:
    """The ``k`` highest-scoring active memories of the band that no sweep holds yet."""
    if k <= 0:
        return []
    from memdesk.core.curation.models import SweepItem

    reviewed = set(conn.execute(select(SweepItem.__table__.c.memory_id)).scalars())
    reviewed.update(exclude)
    heap: list[tuple[float, str, int, Any]] = []
    for rows in F.iter_band(conn, band, model.spec, user=user, type_=type_):
        enc = F.encode(rows, model.spec)
        s = model.scores(enc.X)
        order = np.argsort(-s)[: k + len(reviewed)]
        for j in order:
            mid = enc.ids[j]
            if mid in reviewed:
                continue
            item = (float(s[j]), mid, int(j), (enc.X[j], float(enc.importance[j])))
            if len(heap) < k:
                heapq.heappush(heap, item)
            elif item[0] > heap[0][0]:
                heapq.heapreplace(heap, item)
            else:
                break  # the rest of this chunk scores lower still
    best = sorted(heap, key=lambda t: (-t[0], t[1]))
    return [GuidedPick(mid, imp, score, f"score {score:.2f}: " + model.explain(x))
            for score, mid, _j, (x, imp) in best]


def score_band(conn: Connection, model: GuidedModel, band: tuple[float, float]
               ) -> tuple[list[str], np.ndarray]:
    """Every active memory of the band with its score (for benchmarks and reports)."""
    ids: list[str] = []
    parts: list[np.ndarray] = []
    for rows in F.iter_band(conn, band, model.spec):
        enc = F.encode(rows, model.spec)
        ids += enc.ids
        parts.append(model.scores(enc.X))
    return ids, (np.concatenate(parts) if parts else np.zeros(0))
