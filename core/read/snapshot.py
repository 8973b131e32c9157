"""A per-user, in-memory snapshot of what the channels search, kept while it is valid.

Every retrieval is scoped to one user's active memories (about 2,000 per user in the
1,000,000-row demo).  Reading those rows each time costs two random page reads per row
(the row, and its vector in ``memory_vectors``): 15–20 ms per user at 1M rows with the
file in the page cache, far more from disk.  So the retriever keeps, per user, the
columns the channels need (text, type, layer, scores, creation time, triple, vector
matrix) and reuses them while that user's memories have not changed.

Validity is checked on every call with two index lookups: the newest audit event
(every audited change — edits, supersedes, deletes, maintenance, embedding backfills
— appends one) and the newest memory ``seq`` (inserts).  When either moved, the cache
reads what changed since it last looked (new rows and events, by primary-key range)
and invalidates only the snapshots of the users they touch: on a store that agents
write to, one agent's write must not turn every other user's next recall into a cold
one.  Changes it cannot attribute to users (a store-wide event such as an embedding
backfill or maintenance run, an event whose memory is gone, a memory moved between
users, or more than ``FULL_RESET_AFTER`` changes at once) invalidate every snapshot.
Unaudited raw SQL is seen after ``ttl`` seconds at the latest.
``access_count``/``last_accessed`` are not cached: the retriever reads them fresh for
its candidates.

The snapshot also holds the user's normalised texts as one string, which the keyword
channel scans for its stems (each stem's rows memoised per snapshot): FTS5's index is
store-wide, and a common word's doclist (258,000 rows for one query at 1M) costs
seconds to walk for the 2,000 rows of one user.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, select

from memdesk.core.read.terms import SEP, is_word_char, normalise_many, word_pattern
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.query import active_belief_state
from memdesk.core.store.vectors import embedding_column

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

    from memdesk.core.store.records import AnyRow

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
    # The rows' normalised texts (terms.normalise) joined by terms.SEP, and where each
    # row starts in it: the keyword channel's search text (see rows_for_stem).
    joined: str
    starts: np.ndarray  # int64, one per row
    # Per-call work that depends only on the snapshot and a key (a stem's rows, the
    # preference rows), computed on first use; it dies with the snapshot, so it is
    # never stale.
    memo: dict[Any, Any] = field(default_factory=dict)

    def rows_for_stem(self, stem: str) -> list[int]:
        """Rows holding one of ``stem``'s inflections as a whole word (terms.word_pattern).

        Found by one regular-expression scan of the joined texts, once per stem and
        snapshot, instead of a word → rows index built for every word of every row up
        front: that index was half of a user's first call (15 ms of 34 at 100k), and
        a query needs the rows of its few stems only.  Whole words, not prefixes: a
        prefix made "red" find "Redis".
        """
        key = ("word", stem)
        rows: list[int] | None = self.memo.get(key)
        if rows is None:
            import numpy as np

            # The stem searched as a literal, the word start checked per match.
            pattern = re.compile(word_pattern(stem, start=False))
            text = self.joined
            at = np.fromiter((m.start() for m in pattern.finditer(text)
                              if not m.start() or not is_word_char(text[m.start() - 1])),
                             np.int64)
            rows = self.memo[key] = np.unique(
                np.searchsorted(self.starts, at, side="right") - 1).tolist()
        return rows

    def rows_with(self, stems: list[str]) -> dict[int, set[str]]:
        """Rows containing one of a stem's inflections, and which stems each holds."""
        out: dict[int, set[str]] = {}
        for stem in stems:
            for i in self.rows_for_stem(stem):
                out.setdefault(i, set()).add(stem)
        return out

    def __len__(self) -> int:
        return len(self.ids)


def store_version(conn: Connection) -> tuple[Any, ...]:
    ev = conn.execute(select(func.max(E.id))).scalar()
    seq = conn.execute(select(func.max(M.seq))).scalar()
    return ev, seq


def _at_least(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Whether version ``a`` includes every change of ``b`` (both parts only grow)."""
    return all((x or 0) >= (y or 0) for x, y in zip(a, b, strict=True))


def touched_users(conn: Connection, since: tuple[Any, ...], cap: int) -> set[str] | None:
    """Users whose active memories may differ from what they were at ``since``;
    None when that cannot be said cheaply (then every snapshot is suspect)."""
    ev0, seq0 = (v or 0 for v in since)
    users = set(conn.execute(
        select(M.user_id).where(M.seq > seq0).limit(cap + 1)).scalars())
    events = conn.execute(
        select(E.memory_id, E.before).where(E.id > ev0).limit(cap + 1)).all()
    if len(users) > cap or len(events) > cap:
        return None
    ids: set[str] = set()
    for memory_id, before in events:
        # A store-wide event (no memory: backfill, maintenance) or a memory that
        # changed owner (its old user's snapshot still holds it) cannot be narrowed down.
        if memory_id is None or (before and '"user_id"' in before):
            return None
        ids.add(memory_id)
    found: dict[str, str] = {}
    id_list = sorted(ids)
    for k in range(0, len(id_list), 500):
        found.update(conn.execute(select(M.id, M.user_id)
                                  .where(M.id.in_(id_list[k:k + 500]))).all())
    if len(found) < len(ids):  # an event about a memory that is gone, or not a memory
        return None
    return users | set(found.values())


def _norm_all(values: list[str | None]) -> list[str]:
    """Trimmed, lower-cased; '' for none (inline: a call per cell cost 3 ms a build)."""
    return [v.strip().lower() if v else "" for v in values]


def user_rows(conn: Connection, user_id: str) -> Sequence[AnyRow]:
    """The user's active rows, oldest first, with the columns a snapshot keeps.

    The one query that reads vectors for the read path: kept apart from the array
    building below so a change of where vectors live touches only this function.
    """
    return conn.execute(
        select(M.seq, M.id, M.text, M.type, M.layer, M.importance, M.confidence,
               M.created_at, M.entity, M.attribute, M.value, embedding_column())
        .where(M.user_id == user_id, active_belief_state()).order_by(M.seq)
    ).all()


def search_text(texts: list[str]) -> tuple[str, list[int]]:
    """The normalised texts joined by ``SEP``, and the offset where each one starts."""
    parts = normalise_many(texts)
    starts, at = [], 0
    for part in parts:
        starts.append(at)
        at += len(part) + 1
    return SEP.join(parts), starts


def build(conn: Connection, user_id: str, version: tuple[Any, ...], dim: int) -> UserSnapshot:
    import numpy as np

    rows = user_rows(conn, user_id)
    # Column lists in one C-level transpose instead of a Python attribute read per cell:
    # this loop was most of a user's first call once the rows were in the page cache.
    (seq_c, id_c, text_c, type_c, layer_c, imp_c, conf_c, created_c, ent_c, attr_c,
     val_c, emb_c) = ([list(col) for col in zip(*rows, strict=True)] if rows
                      else [[] for _ in range(12)])
    size = dim * 4
    vec_rows = [i for i, e in enumerate(emb_c) if e is not None and len(e) == size]
    mismatch = sum(1 for e in emb_c if e is not None) - len(vec_rows)
    # A writable buffer: the vector channel hands the matrix to torch without a copy.
    vectors = (np.frombuffer(bytearray(b"".join([emb_c[i] for i in vec_rows])), dtype="<f4")
               .reshape(len(vec_rows), dim)
               if vec_rows else np.zeros((0, dim), dtype=np.float32))
    seqs = np.array(seq_c, dtype=np.int64)
    joined, starts = search_text(text_c)
    return UserSnapshot(
        version=version, built=time.monotonic(), seqs=seqs,
        row_of=dict(zip(seq_c, range(len(seq_c)), strict=True)),
        ids=id_c, texts=text_c, types=type_c, layers=layer_c,
        importance=np.array(imp_c, dtype=np.float64),
        confidence=np.array(conf_c, dtype=np.float64),
        created=created_c,
        created_ts=np.array([c.timestamp() for c in created_c], dtype=np.float64),
        entities=_norm_all(ent_c), attributes=_norm_all(attr_c), values=_norm_all(val_c),
        raw_triples=list(zip(ent_c, attr_c, val_c, strict=True)),
        vec_rows=np.array(vec_rows, dtype=np.int64), vectors=vectors, dim_mismatch=mismatch,
        joined=joined, starts=np.array(starts, dtype=np.int64),
    )


class SnapshotCache:
    """LRU of user snapshots for one store; thread-safe.

    A snapshot is valid while it was built at or after the last change seen for its
    user (``_stale_from``) and for the whole store (``_all_stale_from``), and is
    younger than ``ttl``.
    """

    FULL_RESET_AFTER = 2_000  # changes since the last look: beyond this, drop everything

    def __init__(self, max_users: int = 64, ttl: float = 60.0) -> None:
        self.max_users = max_users
        self.ttl = ttl
        self._items: OrderedDict[str, UserSnapshot] = OrderedDict()
        self._lock = threading.Lock()
        self.builds = 0
        self._seen: tuple[Any, ...] | None = None  # the store version changes were read up to
        self._stale_from: dict[str, tuple[Any, ...]] = {}
        self._all_stale_from: tuple[Any, ...] = (0, 0)

    def users(self) -> list[str]:
        """The users held, most recently used first."""
        with self._lock:
            return list(reversed(self._items))

    def get_cached(self, user_id: str) -> UserSnapshot | None:
        """The snapshot held for ``user_id``, valid or not (for tests and inspection)."""
        with self._lock:
            return self._items.get(user_id)

    def _valid(self, snap: UserSnapshot, user_id: str) -> bool:
        return (_at_least(snap.version, self._all_stale_from)
                and _at_least(snap.version, self._stale_from.get(user_id, (0, 0))))

    def _catch_up(self, conn: Connection, version: tuple[Any, ...]) -> None:
        """Mark the users touched since the last look as stale at ``version``."""
        with self._lock:
            seen = self._seen
        if seen is not None and _at_least(seen, version):
            return
        touched = None if seen is None else touched_users(conn, seen, self.FULL_RESET_AFTER)
        with self._lock:
            if self._seen is not None and _at_least(self._seen, version):
                return  # another thread read the same changes meanwhile
            # Stale snapshots stay listed (not valid): ``users()`` is what a warm-up
            # rebuilds, and the recently active users are the ones worth rebuilding.
            if self._seen is None:
                pass  # first look: nothing is cached yet, so nothing can be stale
            elif touched is None:
                self._all_stale_from = version
                self._stale_from.clear()
            else:
                for user in touched:
                    self._stale_from[user] = version
            self._seen = version if self._seen is None else tuple(
                max(a or 0, b or 0) for a, b in zip(self._seen, version, strict=True))

    def get(self, conn: Connection, user_id: str, dim: int) -> UserSnapshot:
        version = store_version(conn)
        self._catch_up(conn, version)
        with self._lock:
            snap = self._items.get(user_id)
            if (snap is not None and self._valid(snap, user_id)
                    and time.monotonic() - snap.built < self.ttl):
                self._items.move_to_end(user_id)
                return snap
        snap = build(conn, user_id, version, dim)
        with self._lock:
            self.builds += 1
            # A build from an older read transaction than a change already seen for
            # this user is correct for its caller but must not be kept.
            if self._valid(snap, user_id):
                self._items[user_id] = snap
                self._items.move_to_end(user_id)
                while len(self._items) > self.max_users:
                    self._items.popitem(last=False)
        return snap
