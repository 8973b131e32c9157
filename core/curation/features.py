"""What the guided-sweep model sees of a memory: its vector (when the store has them),
type, layer and source one-hots, text length, whether a contemplative pattern matches,
its access history and its write-time importance.

Rows are read in ``seq`` order in chunks, so scoring a band of a million memories holds
one chunk of vectors in memory at a time, never the whole band.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import ColumnElement, Connection, Join, select

from memdesk.core import taxonomy as tx
from memdesk.core.curation.contemplative import contemplative_hint
from memdesk.core.curation.sampling import planner_safe_active
from memdesk.core.embeddings import DIM, matrix
from memdesk.core.store.models import Memory, MemoryProvenance
from memdesk.core.store.vectors import vector_of_row

if TYPE_CHECKING:
    from memdesk.core.store.records import AnyRow

M = Memory.__table__.c
P = MemoryProvenance.__table__.c
DIRECT = "direct"  # a memory with no extraction behind it (operator add, import, demo)
# The type columns of a learned model.  Fixed when the episode type came in: a model
# stored before then has exactly these columns, and an episode (a verbatim turn) gets no
# type column of its own (its layer column still says episodic).
TYPES = tuple(t.value for t in tx.MemoryType if t is not tx.MemoryType.EPISODE)
LAYERS = tuple(x.value for x in tx.Layer)
CHUNK = 20_000


@dataclass(frozen=True)
class Rows:
    """A chunk of memories as model input (``X``) with their ids and descriptors."""

    ids: list[str]
    importance: np.ndarray
    types: list[str]
    sources: list[str]
    X: np.ndarray


@dataclass(frozen=True)
class FeatureSpec:
    """Which columns the model was trained on (stored with it, so scoring matches)."""

    sources: tuple[str, ...]
    vectors: bool

    @property
    def names(self) -> list[str]:
        out = [f"type={t}" for t in TYPES] + [f"layer={x}" for x in LAYERS]
        out += [f"source={s}" for s in self.sources] + ["source=other"]
        out += ["length", "contemplative wording", "times accessed", "ever accessed",
                "write-time importance"]
        # A source's errors differ by type (an extractor under-rating decisions but not
        # facts): one column per (source, type), the calibration-per-type-and-source.
        out += [f"source={s} & type={t}" for s in self.sources for t in TYPES]
        if self.vectors:
            out += [f"vector[{i}]" for i in range(DIM)] + ["has vector"]
        return out


def _columns(vectors: bool) -> list[ColumnElement[Any]]:
    cols: list[ColumnElement[Any]] = [M.seq, M.id, M.text, M.type, M.layer, M.importance,
                                      M.access_count, M.last_accessed, P.extractor]
    if vectors:
        cols.append(vector_of_row())
    return cols


def _from() -> Join:
    return Memory.__table__.outerjoin(MemoryProvenance.__table__, P.memory_id == M.id)


def encode(rows: Sequence[AnyRow], spec: FeatureSpec,
           importance: Sequence[float] | None = None) -> Rows:
    """Rows of ``_columns`` as a feature matrix.  ``importance`` overrides the stored
    value (a decided memory is learned from the importance it had when reviewed)."""
    n = len(rows)
    width = len(spec.names)
    X = np.zeros((n, width), dtype=np.float32)
    t_at = {t: i for i, t in enumerate(TYPES)}
    l_at = {x: len(TYPES) + i for i, x in enumerate(LAYERS)}
    s0 = len(TYPES) + len(LAYERS)
    s_at = {s: s0 + i for i, s in enumerate(spec.sources)}
    other = s0 + len(spec.sources)
    base = other + 1
    cross = base + 5
    ids, types, sources = [], [], []
    imp = np.zeros(n, dtype=np.float64)
    blobs: list[bytes] = []
    have: list[int] = []
    for i, r in enumerate(rows):
        ids.append(r[1])
        text_ = r[2] or ""
        types.append(r[3])
        src = r[8] or DIRECT
        sources.append(src)
        if r[3] in t_at:
            X[i, t_at[r[3]]] = 1.0
        if r[4] in l_at:
            X[i, l_at[r[4]]] = 1.0
        X[i, s_at.get(src, other)] = 1.0
        value = float(importance[i]) if importance is not None else float(r[5])
        imp[i] = value
        X[i, base] = np.log1p(len(text_))
        X[i, base + 1] = 1.0 if contemplative_hint(text_, value) else 0.0
        X[i, base + 2] = np.log1p(max(0, int(r[6] or 0)))
        X[i, base + 3] = 1.0 if r[7] is not None else 0.0
        X[i, base + 4] = value
        if src in s_at and r[3] in t_at:
            X[i, cross + (s_at[src] - s0) * len(TYPES) + t_at[r[3]]] = 1.0
        if spec.vectors and r[9] is not None and len(r[9]) == DIM * 4:
            blobs.append(r[9])
            have.append(i)
    if spec.vectors and have:
        vec0 = cross + len(spec.sources) * len(TYPES)
        X[have, vec0:vec0 + DIM] = matrix(blobs)
        X[have, vec0 + DIM] = 1.0
    return Rows(ids, imp, types, sources, X)


def read_ids(conn: Connection, ids: Sequence[str], spec: FeatureSpec) -> list[AnyRow]:
    """The feature rows of these memories (any state), in the order given."""
    found: dict[str, AnyRow] = {}
    for i in range(0, len(ids), 500):
        part = list(ids[i:i + 500])
        for r in conn.execute(select(*_columns(spec.vectors)).select_from(_from())
                              .where(M.id.in_(part))):
            found[r[1]] = r
    return [found[i] for i in ids if i in found]


def iter_band(conn: Connection, band: tuple[float, float], spec: FeatureSpec, *,
              user: str | None = None, type_: str | None = None,
              chunk: int = CHUNK) -> Iterator[Sequence[AnyRow]]:
    """The active memories of ``band`` in chunks, in ``seq`` order."""
    clauses = [planner_safe_active(conn.dialect.name), M.importance.between(*band)]
    if user is not None:
        clauses.append(M.user_id == user)
    if type_ is not None:
        clauses.append(M.type == type_)
    last = None
    while True:
        stmt = select(*_columns(spec.vectors)).select_from(_from()).where(*clauses)
        if last is not None:
            stmt = stmt.where(M.seq > last)
        rows = conn.execute(stmt.order_by(M.seq).limit(chunk)).all()
        if not rows:
            return
        yield rows
        last = rows[-1][0]
        if len(rows) < chunk:
            return
