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
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from difflib import SequenceMatcher
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
from sqlalchemy import Connection, func, insert, select, type_coerce
from sqlalchemy.types import NullType

from memdesk.core.ids import utcnow
from memdesk.core.store.models import Memory, MemoryVector
from memdesk.core.store.query import active_belief_state
from memdesk.core.write.models import DuplicateFlag

M = Memory.__table__.c
V = MemoryVector.__table__.c
FT = DuplicateFlag.__table__

# Measured on planted clusters of MiniLM vectors (bench/bench_duplicates.py, a held-out
# planting): with the value checks, 0.70-0.85 all keep precision >= 0.95 and recall
# >= 0.90 (0.80: 0.998 / 0.971); 0.80 rather than lower because a merge queue should
# not waste the operator's time on near-misses the planting does not know.  Cosine
# alone reaches neither target at any threshold.
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
    say is two values, and so is one frame with other fillers (``_other_fillers``);
    otherwise it cannot tell."""
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
    if sa and sb:
        return DIFFER
    return DIFFER if _other_fillers(a.text, b.text) else UNKNOWN


def _other_fillers(a: str, b: str) -> bool:
    """One sentence frame with other words in a few of its slots: "Runs black before
    every commit; deploys quill …" / "Runs tox before every commit; deploys beacon …"
    (a template note, two facts).  5 words or more, at least two thirds of them the
    same in the same order, the others swapped one or two words for one or two; a
    rewording moves, adds or drops words instead."""
    wa, wb = normalise_text(a).split(), normalise_text(b).split()
    if min(len(wa), len(wb)) < 5 or abs(len(wa) - len(wb)) > 2:
        return False
    if len(wa) == len(wb):  # the common case, without aligning
        differ = sum(1 for x, y in zip(wa, wb, strict=True) if x != y)
        return 0 < differ <= len(wa) / 3
    # A filler of one or two words in a slot ("harbor" / "project alpha"): align.
    same = 0
    for op, i1, i2, j1, j2 in SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if op == "equal":
            same += i2 - i1
        elif op != "replace" or i2 - i1 > 2 or j2 - j1 > 2:
            return False
    return same >= 2 * max(len(wa), len(wb)) / 3


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
        near = sims >= threshold - AGREE_MARGIN
        near &= (sims >= threshold) | has_triple[start:stop, None] | has_triple[None, start:]
        ii, jj = np.nonzero(near)
        upper = jj > ii  # column j is row start + j: keep each pair once, never a self-pair
        ii, jj = ii[upper], jj[upper]
        for i, j in zip(ii.tolist(), jj.tolist(), strict=True):
            a, b = with_vec[start + i], with_vec[start + j]
            if accepts(a, b, float(sims[i, j]), threshold):
                yield Edge(a.seq, b.seq, float(sims[i, j]), False)


# -- reading a user's active memories ----------------------------------------------------
_COLUMNS = (M.seq, M.id, M.text, M.entity, M.attribute, M.value, M.confidence,
            type_coerce(M.created_at, NullType()))


def _row_query():  # type: ignore[no-untyped-def]
    # created_at unconverted: parsing 1,000,000 timestamps costs more than the read;
    # only cluster members' are parsed (``Row.created``).
    return select(*_COLUMNS, V.vector).select_from(
        Memory.__table__.outerjoin(MemoryVector.__table__, V.seq == M.seq)
    ).where(active_belief_state())


def active_rows(conn: Connection, user_id: str) -> list[Row]:
    """Every active memory of one user, with its vector when it has one."""
    # fetchall: one driver call, not one per row (a third of a scan's time otherwise)
    return [Row(*r) for r in conn.execute(_row_query().where(M.user_id == user_id)
                                          .order_by(M.seq)).fetchall()]


def scan_rows(conn: Connection, user_id: str) -> list[Row]:
    """One user's active memories for a scan: every text, but vectors only for the
    first member with one of each same-text group (the others are joined by their
    text; reading 180 copies of one vector per group cost half of a scan)."""
    rows = [Row(*r, None) for r in conn.execute(
        select(*_COLUMNS).where(active_belief_state(), M.user_id == user_id).order_by(M.seq)
    ).fetchall()]
    groups = group_texts(rows)
    found: dict[int, bytes] = {}

    def fetch(seqs: list[int]) -> None:
        for k in range(0, len(seqs), 500):
            found.update(conn.execute(select(V.seq, V.vector).where(
                V.seq.in_(seqs[k : k + 500]))).all())

    fetch([g[0].seq for g in groups.values()])
    # A group whose first member has no vector: the others' (rare: written without one).
    fetch([m.seq for g in groups.values() if g[0].seq not in found for m in g[1:]])
    return [replace(r, vector=found.get(r.seq)) if r.seq in found else r for r in rows]


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


class UserRows:
    """One user's active memories as the write path compares against them: rows, the
    normalised texts and the vector matrix, extended in place by later rows."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows: list[Row] = []
        self.norms: dict[int, str] = {}
        self.with_vec: list[Row] = []
        self.index: dict[int, int] = {}
        self._blocks: list[np.ndarray] = []
        self.sig: tuple[int, int] = (0, 0)  # the cache's check: see ``_user_rows``
        self.extend(rows)

    def with_extra(self, rows: Sequence[Row]) -> UserRows:
        """These rows and ``rows`` (the cache's own rows stay as they are)."""
        out = UserRows([])
        out.rows, out.norms = list(self.rows), dict(self.norms)
        out.with_vec, out.index = list(self.with_vec), dict(self.index)
        out._blocks = list(self._blocks)  # shared, not copied: the cache's stay as they are
        out.extend(rows)
        return out

    def sims_to(self, vector: bytes) -> np.ndarray:
        """Cosine of ``vector`` with every row of ``with_vec``, in order.  einsum, not
        BLAS: a 2,000 x 384 product split over OpenBLAS's threads waits for them on a
        loaded machine (docs/retrieval.md), and one thread does it in well under 1 ms."""
        v = np.frombuffer(vector, dtype="<f4")
        parts = [np.einsum("ij,j->i", b, v) for b in self._blocks if b.shape[1] == v.size]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)

    def extend(self, rows: Sequence[Row]) -> None:
        for r in rows:
            self.rows.append(r)
            self.norms[r.seq] = normalise_text(r.text)
        vec = [r for r in rows if r.vector is not None]
        if vec:
            X = _matrix(vec)
            if X.shape[1] and (not self._blocks or self._blocks[0].shape[1] == X.shape[1]):
                for r in vec:
                    self.index[r.seq] = len(self.with_vec)
                    self.with_vec.append(r)
                self._blocks.append(X)



def find_for_new(rows: Sequence[Row] | UserRows, new_ids: Iterable[str],
                 threshold: float = DEFAULT_THRESHOLD) -> list[Flag]:
    """For each new memory among ``rows`` (one user's active memories), the closest
    other active memory it duplicates, if any (one flag per new memory)."""
    ur = rows if isinstance(rows, UserRows) else UserRows(rows)
    wanted = set(new_ids)
    new = [r for r in ur.rows if r.id in wanted]
    if not new:
        return []
    norms = ur.norms
    out: list[Flag] = []
    for r in new:
        # Earlier memories only: two new ones in one job flag the later against the first.
        def earlier(o: Row, r: Row = r) -> bool:
            return o.id != r.id and (o.id not in wanted or o.seq < r.seq)

        same = [o for o in ur.rows if norms[o.seq] == norms[r.seq] and earlier(o)]
        if same:
            out.append(Flag(r.id, max(same, key=lambda o: o.seq).id, 1.0 if r.vector else None,
                            True))
            continue
        if r.seq not in ur.index or r.vector is None:
            continue
        sims = ur.sims_to(r.vector)
        if sims.size != len(ur.with_vec):
            continue
        order = np.argsort(-sims)
        for k in order[:21].tolist():
            if sims[k] < threshold - AGREE_MARGIN:
                break
            o = ur.with_vec[k]
            if earlier(o) and accepts(r, o, float(sims[k]), threshold):
                out.append(Flag(r.id, o.id, float(sims[k]), False))
                break
    return out


# The write path's per-user rows, kept between jobs by the worker's process: a user's
# 2,000 rows with vectors take ~50 ms to read at load 7, checking a signature ~1 ms.
_CACHE: OrderedDict[tuple[str, str], UserRows] = OrderedDict()
_CACHE_USERS = 32  # ~2,000 rows x 1.5 KB each: ~100 MB at most
_CACHE_LOCK = threading.Lock()


def _user_rows(conn: Connection, user_id: str, ids: Sequence[str], *,
               fresh: bool = False) -> UserRows:
    """The user's active rows with this transaction's new ones (``ids``) last.

    The cache holds only committed rows, so a job whose transaction rolls back leaves
    nothing behind; it is checked by (rows not ended, newest seq) read from the index,
    which any new row or supersede changes (other edits: ``_still_true``)."""
    key = (conn.engine.url.render_as_string(hide_password=True), user_id)
    ours = dict(conn.execute(select(M.seq, M.id).where(M.id.in_(list(ids)))).all())
    lo = min(ours, default=None)
    # New rows are the newest seqs (the write lock keeps other writers out meanwhile).
    committed = (M.user_id == user_id, M.valid_until.is_(None)) + (
        (M.seq < lo,) if lo is not None else ())
    n, top = conn.execute(select(func.count(), func.max(M.seq)).where(*committed)).one()
    sig = (int(n or 0), int(top or 0))
    with _CACHE_LOCK:
        ur = None if fresh else _CACHE.get(key)
        if ur is not None and ur.sig != sig:
            added = [Row(*r) for r in conn.execute(_row_query().where(
                M.user_id == user_id, M.seq > ur.sig[1], M.seq <= sig[1]).order_by(M.seq)
            ).fetchall()]
            if ur.sig[0] + len(added) == sig[0]:
                ur.extend(added)
            else:  # something ended (a supersede, a delete): read them all again
                ur = None
        if ur is None:
            ur = UserRows([r for r in active_rows(conn, user_id) if r.seq not in ours])
        ur.sig = sig
        _CACHE[key] = ur
        _CACHE.move_to_end(key)
        while len(_CACHE) > _CACHE_USERS:
            _CACHE.popitem(last=False)
        new = [Row(*r) for r in conn.execute(_row_query().where(
            M.seq.in_(list(ours)), M.user_id == user_id).order_by(M.seq)).fetchall()]
        return ur.with_extra(new)


def _still_true(conn: Connection, flag: Flag, ur: UserRows) -> bool:
    """The flagged partner is still active with the text compared (one key lookup)."""
    row = conn.execute(select(M.text).where(M.id == flag.duplicate_of,
                                            active_belief_state())).first()
    partner = next(r for r in ur.rows if r.id == flag.duplicate_of)
    return row is not None and row[0] == partner.text


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
        ur = _user_rows(conn, user, ids)
        found = find_for_new(ur, ids, threshold)
        if not all(_still_true(conn, f, ur) for f in found):  # edited since it was read
            found = find_for_new(_user_rows(conn, user, ids, fresh=True), ids, threshold)
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
