"""Finding memories that restate one another: the matcher both the write path (one new
memory at a time, ``memdesk.core.write.duplicate_flags``) and the duplicates queue
(``memdesk.core.curation.duplicates``, a whole store) use.

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
cosine is a dot product.  A scan reads one user at a time: every text, one vector per
same-text group (the same text said 180 times is compared once), and compares the
groups by blocked matrix products; pairs whose triples are both known are decided in
numpy, the others by the word checks, whose verdicts are remembered by text (agents and
templates say the same sentences for many users).
"""

from __future__ import annotations

import gc
import re
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from difflib import SequenceMatcher
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
from sqlalchemy import Connection, Select, select, type_coerce
from sqlalchemy.types import NullType

from memdesk.core.store.episodes import not_an_episode
from memdesk.core.store.models import Memory, MemoryVector
from memdesk.core.store.query import active_belief_state

M = Memory.__table__.c
V = MemoryVector.__table__.c

# Measured on planted clusters of MiniLM vectors (bench/bench_duplicates.py, a held-out
# planting): with the value checks, 0.70-0.85 all keep precision >= 0.95 and recall
# >= 0.90 (0.80: 0.998 / 0.971); 0.80 rather than lower because a merge queue should
# not waste the operator's time on near-misses the planting does not know.  Cosine
# alone reaches neither target at any threshold.  The operator's own value is a store
# setting (``memdesk.core.write.settings``); this is its default.
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
        return parse_created(self.created_at)

    @cached_property  # a frozen dataclass without slots may cache in its __dict__
    def triple(self) -> tuple[str, str, str] | None:
        return triple_of(self.entity, self.attribute, self.value)


def parse_created(v: datetime | str) -> datetime:
    return v if isinstance(v, datetime) else datetime.fromisoformat(str(v))


def triple_of(entity: str | None, attribute: str | None, value: str | None
              ) -> tuple[str, str, str] | None:
    if entity is None or attribute is None or value is None:
        return None
    return (normalise_text(entity), normalise_text(attribute), normalise_text(value))


AGREE, UNKNOWN, DIFFER = "agree", "unknown", "differ"


@lru_cache(maxsize=1 << 16)
def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(normalise_text(text)))


# The verdicts below depend on texts only, and a store says the same sentences for many
# users: a scan of the demo's 1,000,000 memories asks about the same few thousand text
# pairs again and again.  Bounded (≈ 30 MB at most), so a store of distinct texts only
# pays the lookups.
@lru_cache(maxsize=1 << 17)
def value_said(value: str, text: str) -> bool:
    """Every word of ``value`` is a word of ``text`` (both normalised)."""
    words = _WORD.findall(normalise_text(value))
    return bool(words) and all(w in _words(text) for w in words)


@lru_cache(maxsize=1 << 17)
def text_relation(a: str, b: str) -> str:
    """Two texts without triples: ``DIFFER`` when both name something (``salient_words``)
    the other does not say, or one frame has other fillers (``_other_fillers``); else
    ``UNKNOWN``."""
    wa, wb = _words(a), _words(b)
    # Shared names say little ("the harbor build" / "the quarry build" share "CI"):
    # without a triple, names can only tell two values apart.
    sa, sb = salient_words(a) - wb, salient_words(b) - wa
    if sa and sb:
        return DIFFER
    return DIFFER if _other_fillers(a, b) else UNKNOWN


def relation(a: Row, b: Row) -> str:
    """Whether two memories on one topic state the same value (``AGREE``), different
    values (``DIFFER``: not duplicates however close their vectors), or cannot tell.

    Both triples: equal or not.  One triple: its value must be said in the other's
    text.  No triple: ``text_relation``."""
    return _relation((a.text, a.triple, a.value), (b.text, b.triple, b.value))


_Said = tuple[str, "tuple[str, str, str] | None", "str | None"]  # text, triple, value


def _relation(a: _Said, b: _Said) -> str:
    (text_a, ta, va), (text_b, tb, vb) = a, b
    if ta is not None and tb is not None:
        return AGREE if ta == tb else DIFFER
    if ta is not None:
        return AGREE if value_said(va or "", text_b) else DIFFER
    if tb is not None:
        return AGREE if value_said(vb or "", text_a) else DIFFER
    return text_relation(text_a, text_b)


_CODE = {AGREE: 1, UNKNOWN: 0, DIFFER: -1}


@lru_cache(maxsize=1 << 18)  # by what two memories say: the same pairs recur per user
def _verdict(a: _Said, b: _Said) -> int:
    return _CODE[_relation(a, b)]


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


def check_threshold(value: Any) -> float:
    """The operator's similarity threshold, checked (bad input: a clear message)."""
    from memdesk.core.errors import ValidationError

    if isinstance(value, bool):
        raise ValidationError("threshold", f"must be a number, not {value!r}")
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise ValidationError("threshold", f"must be a number, not {value!r}") from None
    if not (MIN_THRESHOLD <= t <= MAX_THRESHOLD):  # also refuses NaN
        raise ValidationError(
            "threshold", f"must be between {MIN_THRESHOLD} and {MAX_THRESHOLD}, not {value}")
    return t


def matrix_of(rows: Sequence[Row]) -> np.ndarray:
    dims = {len(r.vector) if r.vector is not None else 0 for r in rows}
    if len(dims) != 1 or 0 in dims:  # callers pass rows with vectors of one model
        return np.zeros((len(rows), 0), dtype=np.float32)
    return np.frombuffer(b"".join(r.vector or b"" for r in rows), dtype="<f4").reshape(
        len(rows), -1)


_BLAS = threading.Lock()
_CONTROLLER: Any = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """OpenBLAS on one thread for the block's product: split over two threads on a
    loaded machine it waits for the other one and takes 3x the CPU and 2x the wall time
    (750 x 384 blocks, load 10: bench/bench_duplicates.py).  The limit is process-wide,
    so concurrent scans take turns setting it (each block holds it for a few ms)."""
    global _CONTROLLER
    from threadpoolctl import ThreadpoolController  # scikit-learn's, a dependency

    with _BLAS:
        if _CONTROLLER is None:
            _CONTROLLER = ThreadpoolController()
        with _CONTROLLER.limit(limits=1, user_api="blas"):
            yield


def head_edges(heads: Sequence[Row], threshold: float, *, check_values: bool = True
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs ``(i, j, cosine)`` (indices into ``heads``, ``i < j``) of rows whose cosine
    reaches ``threshold`` and whose values do not differ, as three arrays.

    One blocked product ``X[s:s+B] @ X[s:].T`` per block (upper triangle only).  Below
    the threshold only pairs that can agree (a triple on one side) are looked at; pairs
    with a triple on both sides are decided by comparing triple numbers, the rest by
    ``relation`` (remembered by text).  ``check_values`` False: cosine alone, the
    weaker matcher the benchmark shows failing."""
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))
    pos = [k for k, r in enumerate(heads) if r.vector is not None]
    if len(pos) < 2:
        return empty
    with_vec = [heads[k] for k in pos]
    X = matrix_of(with_vec)
    if X.shape[1] == 0:
        return empty
    where = np.asarray(pos, dtype=np.int64)
    ids: dict[tuple[str, str, str], int] = {}
    tid = np.array([-1 if r.triple is None else ids.setdefault(r.triple, len(ids))
                    for r in with_vec], dtype=np.int64)
    has = tid >= 0
    said = [(r.text, r.triple, r.value) for r in with_vec]
    low = threshold - AGREE_MARGIN if check_values else threshold
    out_i: list[np.ndarray] = []
    out_j: list[np.ndarray] = []
    out_s: list[np.ndarray] = []
    n = len(with_vec)
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        with one_blas_thread():
            sims = X[start:stop] @ X[start:].T
        ii, jj = np.nonzero(sims >= low)
        upper = jj > ii  # column j is row start + j: each pair once, never a self-pair
        ii, jj = ii[upper], jj[upper]
        s = sims[ii, jj]
        gi, gj = ii + start, jj + start
        if not check_values:
            out_i.append(where[gi])
            out_j.append(where[gj])
            out_s.append(s)
            continue
        both = has[gi] & has[gj]
        keep = both & (tid[gi] == tid[gj])  # equal triples agree: the margin applies
        ask = ~both & ((s >= threshold) | has[gi] | has[gj])
        asked = np.flatnonzero(ask)
        if asked.size:
            rel = np.fromiter((_verdict(said[i], said[j]) for i, j in zip(
                gi[asked].tolist(), gj[asked].tolist(), strict=True)), np.int8, asked.size)
            keep[asked] = (rel > 0) | ((rel == 0) & (s[asked] >= threshold))
        out_i.append(where[gi[keep]])
        out_j.append(where[gj[keep]])
        out_s.append(s[keep])
    return np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_s)


def vector_edges(reps: Sequence[Row], threshold: float) -> Iterator[Edge]:
    """``head_edges`` as ``Edge`` values (by seq)."""
    ii, jj, ss = head_edges(reps, threshold)
    for i, j, s in zip(ii.tolist(), jj.tolist(), ss.tolist(), strict=True):
        yield Edge(reps[i].seq, reps[j].seq, s, False)


def group_texts(rows: Sequence[Row]) -> dict[str, list[Row]]:
    """Rows by normalised text, in the order given."""
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(normalise_text(r.text), []).append(r)
    return groups


# -- reading a user's active memories ----------------------------------------------------
_COLUMNS = (M.seq, M.id, M.text, M.entity, M.attribute, M.value, M.confidence,
            type_coerce(M.created_at, NullType()))


def row_query() -> Select[*tuple[Any, ...]]:
    # created_at unconverted: parsing 1,000,000 timestamps costs more than the read;
    # only cluster members' are parsed (``parse_created``).
    return select(*_COLUMNS, V.vector).select_from(
        Memory.__table__.outerjoin(MemoryVector.__table__, V.seq == M.seq)
    ).where(active_belief_state(), not_an_episode())


def active_rows(conn: Connection, user_id: str) -> list[Row]:
    """Every active memory of one user, with its vector when it has one."""
    # fetchall: one driver call, not one per row (a third of a scan's time otherwise)
    return [Row(*r) for r in conn.execute(row_query().where(M.user_id == user_id)
                                          .order_by(M.seq)).fetchall()]


# A member as a scan reads it: (seq, id, text, entity, attribute, value, confidence,
# created_at) -- the driver's row, never copied into an object (a scan meets 1,000,000).
ScanRow = Sequence[Any]


@dataclass(frozen=True)
class UserScan:
    """One user's active memories grouped by normalised text.  ``groups[k][0]`` is the
    member that stands for group ``k`` (one with a vector when any has one) and
    ``heads[k]`` is it as a ``Row`` with its vector."""

    user_id: str
    groups: list[list[ScanRow]]
    heads: list[Row]

    @property
    def size(self) -> int:
        return sum(len(g) for g in self.groups)


@contextmanager
def gc_paused() -> Iterator[None]:
    """The garbage collector off while a scan builds one user's rows or clusters
    (never across a ``yield``): the rows, members and pairs hold no reference cycles,
    and collections triggered by their sheer number took a quarter of a 1,000,000-
    memory scan's CPU, most of it walking the clusters the caller already holds."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _vectors(conn: Connection, seqs: list[int]) -> dict[int, bytes]:
    found: dict[int, bytes] = {}
    for k in range(0, len(seqs), 500):
        found.update(conn.execute(select(V.seq, V.vector).where(
            V.seq.in_(seqs[k : k + 500]))).all())
    return found


def scan_user(conn: Connection, user_id: str) -> UserScan:
    """One user's active memories for a scan: every text, but a vector only for the
    first member with one of each same-text group (the others are joined by their
    text; reading 180 copies of one vector per group cost half of a scan)."""
    by_text: dict[str, list[ScanRow]] = {}
    with gc_paused():
        for r in conn.execute(select(*_COLUMNS).where(
                active_belief_state(), not_an_episode(), M.user_id == user_id)
                .order_by(M.seq)).fetchall():
            by_text.setdefault(normalise_text(r[2]), []).append(r)
    groups = list(by_text.values())
    found = _vectors(conn, [g[0][0] for g in groups])
    # A group whose first member has no vector: another's (rare: written without one).
    found.update(_vectors(conn, [m[0] for g in groups if g[0][0] not in found for m in g[1:]]))
    heads: list[Row] = []
    for k, g in enumerate(groups):
        if g[0][0] not in found:
            with_vec = [m for m in g if m[0] in found]
            if with_vec:
                groups[k] = g = [with_vec[0], *(m for m in g if m is not with_vec[0])]
        heads.append(Row(*(*g[0], found.get(g[0][0]))))  # the 8 scan columns + vector
    return UserScan(user_id, groups, heads)


def with_rows(scan: UserScan, extra: Sequence[Row]) -> UserScan:
    """``scan`` as if ``extra`` were among the user's active memories too: memories not
    in the store yet (an import preview), each joining the group of its normalised text
    or starting one.  A member with a vector stands for its group, as in ``scan_user``.
    ``extra`` rows carry seqs of their own (below 0, so they never meet a stored one)."""
    index = {normalise_text(g[0][2]): k for k, g in enumerate(scan.groups)}
    groups = [list(g) for g in scan.groups]
    heads = list(scan.heads)
    # Times as the store's driver gives them (text from SQLite, datetimes from
    # PostgreSQL): the clustering parses all members' times one way.
    as_datetime = bool(groups) and isinstance(groups[0][0][7], datetime)
    for r in extra:
        created = parse_created(r.created_at) if as_datetime else str(r.created_at)
        member = (r.seq, r.id, r.text, r.entity, r.attribute, r.value, r.confidence,
                  created)
        k = index.get(normalise_text(r.text))
        if k is None:
            index[normalise_text(r.text)] = len(groups)
            groups.append([member])
            heads.append(r)
        elif heads[k].vector is None and r.vector is not None:
            groups[k].insert(0, member)
            heads[k] = r
        else:
            groups[k].append(member)
    return UserScan(scan.user_id, groups, heads)


def active_users(conn: Connection) -> list[str]:
    return list(conn.execute(select(M.user_id).where(active_belief_state()).distinct()
                             .order_by(M.user_id)).scalars())
