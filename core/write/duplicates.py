"""Finding memories that restate one another: the matcher both the write path (one new
memory at a time) and the duplicates queue (``memdesk.core.curation.duplicates``, a
whole store) use.

Two memories of one user are duplicates when

* their texts are equal once normalised (Unicode NFKC, casefolded, punctuation dropped,
  whitespace collapsed), or
* their vectors' cosine is at least the threshold *and* they do not state different
  values: when both carry an entity/attribute/value triple the triples must be equal
  (normalised), and when they do not, neither may name something (a capitalised word
  past the first, or a number) that the other lacks while the other names something
  it lacks ("User works at Acme." and "User works at Globex." are one topic, two
  facts; their cosine is as high as a rewording's, see docs/benchmarks.md).

The store keeps L2-normalised float32 vectors (``memdesk.core.embeddings``), so a
cosine is a dot product; candidates come from one blocked matrix product per user
over the distinct texts only (the same text said 180 times is compared once).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
from sqlalchemy import Connection, insert, select, type_coerce
from sqlalchemy.types import NullType

from memdesk.core.ids import utcnow
from memdesk.core.store.models import Memory, MemoryVector
from memdesk.core.store.query import active_belief_state
from memdesk.core.write.duplicate_models import DuplicateFlag

M = Memory.__table__.c
V = MemoryVector.__table__.c
FT = DuplicateFlag.__table__

# Measured on planted clusters of MiniLM vectors (bench/bench_duplicates.py, a held-out
# planting): with the value checks, 0.75-0.85 all keep precision >= 0.95 and recall
# >= 0.90; 0.80 is the middle (0.992 / 0.972).  Cosine alone reaches neither there.
DEFAULT_THRESHOLD = 0.80
# Pairs whose values are seen to agree (equal triples, the value said in both) may be
# worded further apart: their threshold is this much lower.
AGREE_MARGIN = 0.15
MIN_THRESHOLD, MAX_THRESHOLD = 0.5, 1.0
_BLOCK = 2048  # rows of one block of the similarity product (about 16 MB of float32)

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_WORD = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=1 << 16)  # one user's texts repeat a lot; a scan meets each often
def normalise_text(text: str) -> str:
    """The comparison form of a text: NFKC, casefolded, punctuation dropped, whitespace
    collapsed ("User lives in  Lisbon!" and "user lives in lisbon" are one text)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_PUNCT.sub(" ", folded).split())


def _norm_value(v: str | None) -> str | None:
    return None if v is None else normalise_text(v)


@lru_cache(maxsize=1 << 16)
def salient_words(text: str) -> frozenset[str]:
    """Words that name a particular thing: capitalised (past the first word) or with a
    digit; casefolded."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text))
    return frozenset(
        w.casefold() for i, w in enumerate(words)
        if any(c.isdigit() for c in w) or (i > 0 and w[:1].isupper())
    )


@dataclass(frozen=True)
class Row:
    """One active memory as the matcher sees it."""

    seq: int
    id: str
    text: str
    entity: str | None
    attribute: str | None
    value: str | None
    confidence: float
    created_at: datetime | str  # as the driver returns it: ``created`` parses it
    vector: bytes | None

    @property
    def created(self) -> datetime:
        v = self.created_at
        return v if isinstance(v, datetime) else datetime.fromisoformat(str(v))

    @cached_property  # a frozen dataclass without slots may cache in its __dict__
    def triple(self) -> tuple[str, str, str] | None:
        if self.entity is None or self.attribute is None or self.value is None:
            return None
        return (normalise_text(self.entity), normalise_text(self.attribute),
                normalise_text(self.value))


AGREE, UNKNOWN, DIFFER = "agree", "unknown", "differ"


@lru_cache(maxsize=1 << 16)
def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(normalise_text(text)))


def _contains(text_words: frozenset[str], value: str) -> bool:
    words = _WORD.findall(normalise_text(value))
    return bool(words) and all(w in text_words for w in words)


def relation(a: Row, b: Row) -> str:
    """Whether two memories on one topic state the same value (``AGREE``), different
    values (``DIFFER``: not duplicates however close their vectors), or cannot tell.

    Both triples: equal or not.  One triple: its value must be said in the other's
    text.  No triple: both naming something (``salient_words``) the other does not
    say is two values; otherwise it cannot tell."""
    ta, tb = a.triple, b.triple
    if ta is not None and tb is not None:
        return AGREE if ta == tb else DIFFER
    wa, wb = _words(a.text), _words(b.text)
    if ta is not None or tb is not None:
        value, other = (a.value, wb) if ta is not None else (b.value, wa)
        return AGREE if _contains(other, value or "") else DIFFER
    # Shared names say little ("the harbor build" / "the quarry build" share "CI"):
    # without a triple, names can only tell two values apart.
    sa, sb = salient_words(a.text) - wb, salient_words(b.text) - wa
    return DIFFER if sa and sb else UNKNOWN


def accepts(a: Row, b: Row, cosine: float, threshold: float) -> bool:
    """The pair test: ``threshold`` when the values cannot be compared, a margin below
    it when they are seen to agree, never when they differ."""
    rel = relation(a, b)
    if rel == DIFFER:
        return False
    return cosine >= (threshold - AGREE_MARGIN if rel == AGREE else threshold)


@dataclass(frozen=True)
class Edge:
    """Two memories found to be duplicates (``cosine`` None: same text, no vectors)."""

    a: int  # seq
    b: int  # seq
    cosine: float | None
    same_text: bool


def check_threshold(value: float) -> float:
    """The operator's similarity threshold, checked (bad input: a clear message)."""
    from memdesk.core.errors import ValidationError

    try:
        t = float(value)
    except (TypeError, ValueError):
        raise ValidationError("threshold", f"must be a number, not {value!r}") from None
    if not (MIN_THRESHOLD <= t <= MAX_THRESHOLD):  # also refuses NaN
        raise ValidationError(
            "threshold", f"must be between {MIN_THRESHOLD} and {MAX_THRESHOLD}, not {value}")
    return t


def _matrix(rows: Sequence[Row]) -> np.ndarray:
    dims = {len(r.vector) if r.vector is not None else 0 for r in rows}
    if len(dims) != 1 or 0 in dims:  # callers pass rows with vectors of one model
        return np.zeros((len(rows), 0), dtype=np.float32)
    return np.frombuffer(b"".join(r.vector or b"" for r in rows), dtype="<f4").reshape(
        len(rows), -1)


def group_texts(rows: Sequence[Row]) -> dict[str, list[Row]]:
    """Rows by normalised text, in the order given."""
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(normalise_text(r.text), []).append(r)
    return groups


def vector_edges(reps: Sequence[Row], threshold: float) -> Iterator[Edge]:
    """Pairs of distinct-text rows whose cosine reaches ``threshold`` and whose values
    do not differ; one blocked product ``X[i:i+B] @ X[i:].T`` per block (upper triangle
    only)."""
    with_vec = [r for r in reps if r.vector is not None]
    if len(with_vec) < 2:
        return
    X = _matrix(with_vec)
    if X.shape[1] == 0:
        return
    n = len(with_vec)
    # Below the threshold only pairs that can agree (a triple on one side) can pass.
    has_triple = np.array([r.triple is not None for r in with_vec])
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        sims = X[start:stop] @ X[start:].T
        # Keep only j > i: the block's own square below and on its diagonal goes.
        sims[:, : stop - start][np.tril_indices(stop - start)] = -2.0
        near = sims >= threshold - AGREE_MARGIN
        near &= (sims >= threshold) | has_triple[start:stop, None] | has_triple[None, start:]
        ii, jj = np.nonzero(near)
        for i, j in zip(ii.tolist(), jj.tolist(), strict=True):
            a, b = with_vec[start + i], with_vec[start + j]
            if accepts(a, b, float(sims[i, j]), threshold):
                yield Edge(a.seq, b.seq, float(sims[i, j]), False)


# -- reading a user's active memories ----------------------------------------------------
def _row_query():  # type: ignore[no-untyped-def]
    # created_at unconverted: parsing 1,000,000 timestamps costs more than the read;
    # only cluster members' are parsed (``Row.created``).
    return select(M.seq, M.id, M.text, M.entity, M.attribute, M.value, M.confidence,
                  type_coerce(M.created_at, NullType()), V.vector).select_from(
        Memory.__table__.outerjoin(MemoryVector.__table__, V.seq == M.seq)
    ).where(active_belief_state())


def active_rows(conn: Connection, user_id: str) -> list[Row]:
    """Every active memory of one user, with its vector when it has one."""
    return [Row(*r) for r in conn.execute(_row_query().where(M.user_id == user_id)
                                          .order_by(M.seq))]


def active_users(conn: Connection) -> list[str]:
    return list(conn.execute(select(M.user_id).where(active_belief_state()).distinct()
                             .order_by(M.user_id)).scalars())


# -- the write path ----------------------------------------------------------------------
@dataclass(frozen=True)
class Flag:
    memory_id: str
    duplicate_of: str
    cosine: float | None
    same_text: bool


def find_for_new(rows: Sequence[Row], new_ids: Iterable[str],
                 threshold: float = DEFAULT_THRESHOLD) -> list[Flag]:
    """For each new memory among ``rows`` (one user's active memories), the closest
    other active memory it duplicates, if any (one flag per new memory)."""
    wanted = set(new_ids)
    new = [r for r in rows if r.id in wanted]
    if not new:
        return []
    norms = {r.seq: normalise_text(r.text) for r in rows}
    with_vec = [r for r in rows if r.vector is not None]
    X = _matrix(with_vec)
    index = {r.seq: i for i, r in enumerate(with_vec)}
    out: list[Flag] = []
    for r in new:
        # Earlier memories only: two new ones in one job flag the later against the first.
        others = [o for o in rows if o.id != r.id and (o.id not in wanted or o.seq < r.seq)]
        same = [o for o in others if norms[o.seq] == norms[r.seq]]
        if same:
            out.append(Flag(r.id, max(same, key=lambda o: o.seq).id, 1.0 if r.vector else None,
                            True))
            continue
        if r.seq not in index or X.shape[1] == 0:
            continue
        idx = [index[o.seq] for o in others if o.seq in index]
        if not idx:
            continue
        sims = X[idx] @ X[index[r.seq]]
        order = np.argsort(-sims)
        for k in order[: 20].tolist():
            if sims[k] < threshold - AGREE_MARGIN:
                break
            o = with_vec[idx[k]]
            if accepts(r, o, float(sims[k]), threshold):
                out.append(Flag(r.id, o.id, float(sims[k]), False))
                break
    return out


def flag_duplicates_in(conn: Connection, values: Sequence[dict[str, Any]],
                       threshold: float = DEFAULT_THRESHOLD) -> list[Flag]:
    """The job worker's check, inside its write transaction after the inserts: flag
    each new memory (``values``: the inserted rows) that duplicates an active one."""
    by_user: dict[str, list[str]] = {}
    for v in values:
        by_user.setdefault(v["user_id"], []).append(v["id"])
    flags: list[Flag] = []
    now = utcnow()
    for user, ids in by_user.items():
        found = find_for_new(active_rows(conn, user), ids, threshold)
        if found:
            conn.execute(insert(FT), [
                {"user_id": user, "memory_id": f.memory_id, "duplicate_of": f.duplicate_of,
                 "cosine": f.cosine, "same_text": f.same_text, "created_at": now}
                for f in found])
        flags += found
    return flags


def flags_of(conn: Connection, user_id: str | None = None) -> dict[str, Flag]:
    """The write path's flags by new memory id (newest flag of each)."""
    stmt = select(FT.c.memory_id, FT.c.duplicate_of, FT.c.cosine, FT.c.same_text
                  ).order_by(FT.c.id)
    if user_id is not None:
        stmt = stmt.where(FT.c.user_id == user_id)
    return {r[0]: Flag(r[0], r[1], r[2], bool(r[3])) for r in conn.execute(stmt)}
