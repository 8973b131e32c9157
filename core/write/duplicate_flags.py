"""The write path's duplicate check: the job worker flags a new memory that restates an
active one of its user (``flag_duplicates_in``, inside the job's write transaction),
with the matcher of ``memdesk.core.write.duplicates`` and the operator's threshold
(``memdesk.core.write.settings``); the duplicates queue lists flagged clusters first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from sqlalchemy import Connection, Table, func, insert, select

from memdesk.core.ids import utcnow
from memdesk.core.store.query import active_belief_state
from memdesk.core.write import settings
from memdesk.core.write.duplicates import (
    AGREE_MARGIN,
    DEFAULT_THRESHOLD,
    M,
    Row,
    accepts,
    active_rows,
    matrix_of,
    normalise_text,
    row_query,
)
from memdesk.core.write.models import DuplicateFlag

# Declarative types __table__ as a FromClause; this model maps a plain Table.
FT = cast(Table, DuplicateFlag.__table__)


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
            X = matrix_of(vec)
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
            added = [Row(*r) for r in conn.execute(row_query().where(
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
        new = [Row(*r) for r in conn.execute(row_query().where(
            M.seq.in_(list(ours)), M.user_id == user_id).order_by(M.seq)).fetchall()]
        return ur.with_extra(new)


def _still_true(conn: Connection, flag: Flag, ur: UserRows) -> bool:
    """The flagged partner is still active with the text compared (one key lookup)."""
    row = conn.execute(select(M.text).where(M.id == flag.duplicate_of,
                                            active_belief_state())).first()
    partner = next(r for r in ur.rows if r.id == flag.duplicate_of)
    return row is not None and row[0] == partner.text


def flag_duplicates_in(conn: Connection, values: Sequence[dict[str, Any]],
                       threshold: float | None = None) -> list[Flag]:
    """The job worker's check, inside its write transaction after the inserts: flag
    each new memory (``values``: the inserted rows) that duplicates an active one, at
    the operator's threshold (the store setting) unless ``threshold`` is given."""
    if not values:
        return []
    if threshold is None:
        threshold = float(settings.get_in(conn, settings.DUPLICATE_THRESHOLD))
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
