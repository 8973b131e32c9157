"""A per-user, in-memory snapshot of what the channels search, kept while it is valid.

Every retrieval is scoped to one user's active memories (about 2,000 per user in the
1,000,000-row demo).  Reading those rows each time costs a random page read per row
in a store whose rows carry 1.5 KB vectors (100–200 ms per call at 1M rows), so the
retriever keeps, per user, the columns the channels need (text, type, layer, scores,
creation time, triple, vector matrix) and reuses them while the store has not changed.

Validity is checked on every call with two index lookups: the newest audit event
(every audited change — edits, supersedes, deletes, maintenance, embedding backfills
— appends one) and the newest memory ``seq`` (bulk inserts).  Unaudited raw SQL is
seen after ``ttl`` seconds at the latest.  ``access_count``/``last_accessed`` are not
cached: the retriever reads them fresh for its candidates.

The snapshot also holds the user's word postings (word → rows), which the keyword
channel searches: FTS5's index is store-wide, and a common word's doclist (258,000
rows for one query at 1M) costs seconds to walk for the 2,000 rows of one user.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, select

from memdesk.core.read.terms import words
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.query import active_belief_state
from memdesk.core.store.vectors import embedding_column

if TYPE_CHECKING:
    import numpy as np

M = Memory.__table__.c
E = MemoryEvent.__table__.c


@dataclass
class UserSnapshot:
    """Column arrays over one user's active memories (row i is the same memory in each)."""

    version: tuple[Any, ...]
    built: float
    seqs: np.ndarray  # int64
    row_of: dict[int, int]
    ids: list[str]
    texts: list[str]
    types: list[str]
    layers: list[str | None]
    importance: np.ndarray
    confidence: np.ndarray
    created: list[Any]  # datetimes
    created_ts: np.ndarray  # POSIX seconds, for vectorised pools
    entities: list[str]  # lower-cased, trimmed ('' when none)
    attributes: list[str]
    values: list[str]
    raw_triples: list[tuple[str | None, str | None, str | None]]
    vec_rows: np.ndarray  # row indexes that have a vector
    vectors: np.ndarray  # (len(vec_rows), dim) float32
    dim_mismatch: int  # rows whose vector has another size (another model)
    postings: dict[str, list[int]]  # lower-cased word -> rows containing it

    def rows_with(self, stems: list[str]) -> dict[int, set[str]]:
        """Rows containing a word that starts with a stem, and which stems each holds."""
        out: dict[int, set[str]] = {}
        for stem in stems:
            for word, rows in self.postings.items():
                if word.startswith(stem):
                    for i in rows:
                        out.setdefault(i, set()).add(stem)
        return out

    def __len__(self) -> int:
        return len(self.ids)


def store_version(conn: Connection) -> tuple[Any, ...]:
    ev = conn.execute(select(func.max(E.id))).scalar()
    seq = conn.execute(select(func.max(M.seq))).scalar()
    return ev, seq


def _norm(v: str | None) -> str:
    return (v or "").strip().lower()


def build(conn: Connection, user_id: str, version: tuple[Any, ...], dim: int) -> UserSnapshot:
    import numpy as np

    rows = conn.execute(
        select(M.seq, M.id, M.text, M.type, M.layer, M.importance, M.confidence,
               M.created_at, M.entity, M.attribute, M.value, embedding_column())
        .where(M.user_id == user_id, active_belief_state()).order_by(M.seq)
    ).all()
    vec_rows, blobs, mismatch = [], [], 0
    for i, r in enumerate(rows):
        if r.embedding is not None:
            if len(r.embedding) == dim * 4:
                vec_rows.append(i)
                blobs.append(r.embedding)
            else:
                mismatch += 1
    vectors = (np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim)
               if blobs else np.zeros((0, dim), dtype=np.float32))
    seqs = np.array([r.seq for r in rows], dtype=np.int64)
    postings: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        for word in set(words(r.text)):
            postings.setdefault(word, []).append(i)
    return UserSnapshot(
        version=version, built=time.monotonic(), seqs=seqs,
        row_of={int(s): i for i, s in enumerate(seqs)},
        ids=[r.id for r in rows], texts=[r.text for r in rows], types=[r.type for r in rows],
        layers=[r.layer for r in rows],
        importance=np.array([r.importance for r in rows], dtype=np.float64),
        confidence=np.array([r.confidence for r in rows], dtype=np.float64),
        created=[r.created_at for r in rows],
        created_ts=np.array([r.created_at.timestamp() for r in rows], dtype=np.float64),
        entities=[_norm(r.entity) for r in rows], attributes=[_norm(r.attribute) for r in rows],
        values=[_norm(r.value) for r in rows],
        raw_triples=[(r.entity, r.attribute, r.value) for r in rows],
        vec_rows=np.array(vec_rows, dtype=np.int64), vectors=vectors, dim_mismatch=mismatch,
        postings=postings,
    )


class SnapshotCache:
    """LRU of user snapshots for one store; thread-safe."""

    def __init__(self, max_users: int = 64, ttl: float = 60.0) -> None:
        self.max_users = max_users
        self.ttl = ttl
        self._items: OrderedDict[str, UserSnapshot] = OrderedDict()
        self._lock = threading.Lock()
        self.builds = 0

    def get(self, conn: Connection, user_id: str, dim: int) -> UserSnapshot:
        version = store_version(conn)
        with self._lock:
            snap = self._items.get(user_id)
            if (snap is not None and snap.version == version
                    and time.monotonic() - snap.built < self.ttl):
                self._items.move_to_end(user_id)
                return snap
        snap = build(conn, user_id, version, dim)
        with self._lock:
            self.builds += 1
            self._items[user_id] = snap
            self._items.move_to_end(user_id)
            while len(self._items) > self.max_users:
                self._items.popitem(last=False)
        return snap
