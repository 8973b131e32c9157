"""The three retrieval channels and the V4 retriever proposal's candidate pools, each on its own.

Every channel searches one user's active belief state with ``confidence >=`` the
threshold (the write-phase design), from that user's
:class:`~memdesk.core.read.snapshot.UserSnapshot`.
Channels return memories best first:

- **fts**: keyword matches — the user's rows holding one of the query's content
  words as a whole word (or an inflection of it; never as a prefix), found by a
  scan of the snapshot's texts (snapshot.py says why not the store-wide FTS5
  index), weighted by the rarity of the
  words they share with the query, drawn from two pools so recent matches cannot crowd
  out older ones: recent (last 7 days) and older, each with its own budget (the V4
  retriever proposal's flooding bug);
- **vector**: exact cosine similarity between the query's embedding and the user's
  stored vectors (numpy; docs/retrieval.md says why not an ANN index);
- **graph**: query phrases matched against the entities and values of triples (never
  attribute names), then one hop to memories that share the other end of a matched
  triple.

Pools A (recent, newest first) and C (random older) add candidates that no channel
ranked, so they are scored too; the relevance floor decides whether they stay.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, Connection, and_, select

from memdesk.core.read import terms as qt
from memdesk.core.read.calibrate import Background, background
from memdesk.core.read.config import CHANNELS, ReadConfig
from memdesk.core.read.query import Query, as_query
from memdesk.core.read.snapshot import UserSnapshot
from memdesk.core.store.models import Memory
from memdesk.core.store.query import active_belief_state

if TYPE_CHECKING:
    import numpy as np

M = Memory.__table__.c
# Triples whose entity is the speaker connect everything to everything: no hop there.
HUB_NODES = frozenset({"user", "me", "i", "we", "us", "the user", "agent", "assistant"})
CANDIDATE_COLUMNS = (
    "seq", "id", "text", "type", "layer", "importance", "confidence", "created_at",
    "last_accessed", "access_count", "entity", "attribute", "value", "user_id",
)


def scope(user_id: str, cfg: ReadConfig) -> ColumnElement[bool]:
    """SQL for the rows any channel may return: the user's active, confident memories."""
    return and_(M.user_id == user_id, active_belief_state(),
                M.confidence >= cfg.confidence_threshold)


def eligible(snap: UserSnapshot, cfg: ReadConfig) -> np.ndarray:
    """Boolean mask over the snapshot's rows: confidence at or above the threshold."""
    return snap.confidence >= cfg.confidence_threshold


@dataclass
class KeywordHits:
    """The fts channel's answer: ranked seqs, each one's keyword share and pool."""

    ranked: list[int] = field(default_factory=list)
    share: dict[int, float] = field(default_factory=dict)
    pool: dict[int, str] = field(default_factory=dict)
    recent_matches: int = 0
    older_matches: int = 0


def keyword_rows(snap: UserSnapshot, stems: list[str], ok: np.ndarray) -> dict[int, set[str]]:
    """Eligible snapshot rows holding a stem's inflection as a word (and which stems)."""
    if not stems:
        return {}
    return {i: hit for i, hit in snap.rows_with(stems).items() if ok[i]}


def keyword_channel(snap: UserSnapshot, query: Query | str, cfg: ReadConfig, now: datetime,
                    ok: np.ndarray) -> KeywordHits:
    stems = list(as_query(query).keywords)
    rows = keyword_rows(snap, stems, ok)
    out = KeywordHits()
    if not rows:
        return out
    n = max(int(ok.sum()), len(rows))
    found = sorted(rows.items())
    df = {s: 0 for s in stems}
    for _i, hit in found:
        for s in hit:
            df[s] += 1
    weight = {s: qt.idf(n, d) for s, d in df.items() if d}
    # The query's whole weight counts, words the user never wrote included (at the
    # weight of a word found once): "What's my blood type?" is not covered by a memory
    # that holds "type" just because no memory holds "blood".
    unmatched = sum(qt.idf(n, 1) for s, d in df.items() if not d)
    total = (sum(weight.values()) + unmatched) or 1.0
    cutoff = (now - timedelta(days=cfg.recent_days)).timestamp()
    recent: list[tuple[float, int]] = []
    older: list[tuple[float, int]] = []
    for i, hit in found:
        share = sum(weight[s] for s in hit) / total
        seq = int(snap.seqs[i])
        out.share[seq] = share
        (recent if snap.created_ts[i] >= cutoff else older).append((share, i))
    out.recent_matches, out.older_matches = len(recent), len(older)
    imp, ts, seqs = snap.importance, snap.created_ts, snap.seqs
    # Pool A's matches: best first, then newest.  Pool B: older matches, best first and
    # then by importance (the V4 retriever proposal orders by importance only; with
    # equal relevance that is what happens, and the relevance key keeps a specific
    # older match reachable).
    recent.sort(key=lambda x: (-x[0], -ts[x[1]], -seqs[x[1]]))
    older.sort(key=lambda x: (-x[0], -imp[x[1]], -seqs[x[1]]))
    chosen = [(s, i, "A") for s, i in recent[: cfg.pool_recent]]
    chosen += [(s, i, "B") for s, i in older[: cfg.pool_keyword_older]]
    chosen.sort(key=lambda x: (-x[0], -imp[x[1]], -seqs[x[1]]))
    for _s, i, pool in chosen:
        seq = int(seqs[i])
        out.ranked.append(seq)
        out.pool[seq] = pool
    return out


def recent_pool(snap: UserSnapshot, cfg: ReadConfig, now: datetime, limit: int,
                ok: np.ndarray) -> list[int]:
    """Pool A: the newest memories of the last ``recent_days`` (the V4 retriever proposal)."""
    import numpy as np

    if limit <= 0 or not len(snap):
        return []
    cutoff = (now - timedelta(days=cfg.recent_days)).timestamp()
    rows = np.nonzero(ok & (snap.created_ts >= cutoff))[0]
    order = sorted(rows.tolist(), key=lambda i: (-snap.created_ts[i], -snap.seqs[i]))
    return [int(snap.seqs[i]) for i in order[:limit]]


def random_older_pool(snap: UserSnapshot, cfg: ReadConfig, now: datetime,
                      ok: np.ndarray) -> list[int]:
    """Pool C: a random sample of memories older than ``recent_days`` (the V4 retriever
    proposal)."""
    import numpy as np

    if cfg.pool_random_older <= 0 or not len(snap):
        return []
    cutoff = (now - timedelta(days=cfg.recent_days)).timestamp()
    rows = np.nonzero(ok & (snap.created_ts < cutoff))[0].tolist()
    pick = random.sample(rows, min(cfg.pool_random_older, len(rows)))
    return [int(snap.seqs[i]) for i in pick]


@dataclass
class VectorHits:
    """The vector channel's answer: its top seqs, and the cosine of every scored row."""

    ranked: list[int] = field(default_factory=list)
    without_vector: int = 0
    by_row: Any = None  # cosine per snapshot row (NaN: no vector or not eligible)
    row_of: dict[int, int] = field(default_factory=dict)
    background: Background | None = None  # the calibrated floor (calibrate.py)

    @property
    def floor(self) -> float | None:
        """The cosine a memory needs for this query (calibrate.py)."""
        return None if self.background is None else self.background.floor

    def cosine(self, seq: int) -> float | None:
        """The cosine of ``seq`` (None when it was not scored)."""
        if self.by_row is None or seq not in self.row_of:
            return None
        v = float(self.by_row[self.row_of[seq]])
        return None if v != v else v


def cosines(vectors: np.ndarray, qvec: Any) -> np.ndarray:
    """``vectors @ qvec`` (float32) on one thread.

    numpy's OpenBLAS splits even a 2,000 × 384 product over its threads, and on a
    busy 2-core machine waiting for them cost 7–23 ms per call against 0.25 ms on one
    thread (measured).  numpy cannot be told its thread count per call, torch can
    (the retriever sets one thread for query encoding), so when torch is already
    loaded — it is whenever the real encoder made ``qvec`` — the product runs there,
    without copying the matrix.
    """
    import sys

    import numpy as np

    q = np.ascontiguousarray(qvec, dtype=np.float32)
    torch = sys.modules.get("torch")
    if torch is not None and vectors.flags.writeable and vectors.flags.c_contiguous:
        out: np.ndarray = (torch.from_numpy(vectors) @ torch.from_numpy(q.copy())).numpy()
        return out
    return vectors @ q


CENTRE_MIN = 50  # fewer vectors than this: no mean worth centring on


def centred(snap: UserSnapshot, qvec: np.ndarray, sims: np.ndarray) -> np.ndarray:
    """The cosines after moving the origin to the user's mean memory vector.

    Every memory of one user shares a direction (the same person, the same register:
    "I …", "User …"); a query shares it too, so raw cosines are all lifted by it and
    memories close to that centre are near every query (hubs).  Centring removes it:
    ``cos(v - m, q - m)``, computed from the raw products with two per-row numbers
    memoised in the snapshot (``v·m`` and ``|v - m|``), so no centred copy of the
    matrix is kept.
    """
    import numpy as np

    memo = snap.memo.get("centre")
    if memo is None:
        mean = snap.vectors.mean(axis=0, dtype=np.float64).astype(np.float32)
        vm = cosines(snap.vectors, mean)  # one thread, as every product here
        mm = float(mean @ mean)
        norms = np.sqrt(np.maximum(1.0 - 2.0 * vm + mm, 1e-12)).astype(np.float32)
        memo = snap.memo["centre"] = (mean, vm, mm, norms)
    mean, vm, mm, norms = memo
    q = np.asarray(qvec, dtype=np.float32)
    qm = float(q @ mean)
    qn = math.sqrt(max(float(q @ q) - 2.0 * qm + mm, 1e-12))
    out: np.ndarray = ((sims - vm - qm + mm) / (norms * qn)).astype(np.float32)
    return out


def vector_channel(snap: UserSnapshot, qvec: np.ndarray, cfg: ReadConfig,
                   ok: np.ndarray) -> VectorHits:
    import numpy as np

    out = VectorHits()
    out.without_vector = int(ok.sum()) - int(ok[snap.vec_rows].sum()) if len(snap) else 0
    if not len(snap.vec_rows):
        return out
    keep = ok[snap.vec_rows]
    rows = snap.vec_rows[keep]
    if not len(rows):
        return out
    sims = cosines(snap.vectors, qvec)
    if cfg.centre_vectors and len(snap.vec_rows) >= CENTRE_MIN:
        sims = centred(snap, qvec, sims)
    sims = sims[keep]
    out.background = background(sims, cfg)
    n = min(cfg.vector_candidates, len(rows))
    if n > 0:
        top = np.argpartition(-sims, n - 1)[:n] if n < len(rows) else np.arange(len(rows))
        top = top[np.argsort(-sims[top], kind="stable")]
        out.ranked = [int(snap.seqs[rows[i]]) for i in top]
    out.by_row = np.full(len(snap), np.nan, dtype=np.float32)
    out.by_row[rows] = sims
    out.row_of = snap.row_of
    return out


@dataclass
class GraphHits:
    """The graph channel's answer: ranked seqs and, for each, how it was reached."""

    ranked: list[int] = field(default_factory=list)
    via: dict[int, str] = field(default_factory=dict)


def node_rows(snap: UserSnapshot) -> dict[str, list[int]]:
    """Every entity and value of the user's triples → the rows naming it (memoised)."""
    index = snap.memo.get("nodes")
    if index is None:
        index = {}
        for i, (e, v) in enumerate(zip(snap.entities, snap.values, strict=True)):
            for node in {e, v}:
                if node:
                    index.setdefault(node, []).append(i)
        snap.memo["nodes"] = index
    return index


def subject_rows(snap: UserSnapshot) -> dict[str, list[int]]:
    """Every entity of the user's triples → the rows *about* it (memoised)."""
    index = snap.memo.get("subjects")
    if index is None:
        index = {}
        for i, e in enumerate(snap.entities):
            if e:
                index.setdefault(e, []).append(i)
        snap.memo["subjects"] = index
    return index


def graph_channel(snap: UserSnapshot, query: Query | str, cfg: ReadConfig,
                  ok: np.ndarray) -> GraphHits:
    """Triples whose entity or value the query names, then one hop from their other end.

    The hop reaches the triples *about* the other end (it is their entity): from
    "Lantern · primary_datastore · SQLite" to "SQLite · journal_mode · WAL", not to
    "Orchard · primary_datastore · SQLite", a sibling that only shares the value (the
    inspector showed "Where does Lantern run in production?" returning every other
    service stored in SQLite or built by Jenkins).

    Attribute names are never matched: they are the vocabulary of the question, not
    its subject ("what reptile *lives* with us?" is not about where the user lives;
    matching ``lives_in`` returned "User lives in Lisbon." for it).  A query that
    names a thing ("Lisbon", "project-alpha", "pytest") reaches the triples about it.
    """
    grams = {g for g in as_query(query).grams if g not in HUB_NODES}
    out = GraphHits()
    if not grams or cfg.graph_candidates <= 0:
        return out

    def best_first(rows: set[int]) -> list[int]:
        return sorted((i for i in rows if ok[i]),
                      key=lambda i: (-snap.importance[i], -snap.created_ts[i], -snap.seqs[i]))

    index = node_rows(snap)
    direct = best_first({i for g in grams for i in index.get(g, ())})[: cfg.graph_candidates]
    ents, vals = snap.entities, snap.values
    nodes: set[str] = set()
    for i in direct:
        out.ranked.append(int(snap.seqs[i]))
        out.via[int(snap.seqs[i])] = " · ".join(x or "" for x in snap.raw_triples[i])
        nodes.update(x for x in (ents[i], vals[i]) if x and x not in grams and x not in HUB_NODES)
    room = cfg.graph_candidates - len(out.ranked)
    if nodes and room > 0:
        taken = set(direct)
        about = subject_rows(snap)
        hop = best_first({i for n in nodes for i in about.get(n, ())} - taken)[:room]
        for i in hop:
            out.ranked.append(int(snap.seqs[i]))
            out.via[int(snap.seqs[i])] = "one hop: " + " · ".join(
                x or "" for x in snap.raw_triples[i])
    return out


def why_empty(query: Query | str, active: tuple[str, ...], used: tuple[str, ...],
              per_channel: dict[str, list[Any]], snap: Any, ok: Any) -> dict[str, str]:
    """For each channel that ranked nothing, why (in the operator's words)."""
    out: dict[str, str] = {}
    for c in CHANNELS:
        if per_channel.get(c):
            continue
        if c not in active:
            out[c] = "switched off for this retrieval"
        elif c not in used:
            out[c] = "vectors are off (see the notes)"
        elif not int(ok.sum()):
            out[c] = "this user has no active memory at or above the confidence threshold"
        elif c == "fts":
            words = as_query(query).keywords
            out[c] = ("the query has only stop words" if not words else
                      "no memory of this user holds " + ", ".join(words[:6])
                      + (" …" if len(words) > 6 else "") + " as a whole word")
        elif c == "vector":
            out[c] = "none of this user's memories has a vector yet (run `memdesk embed`)"
        else:
            has_triples = any(e or v for e, v in zip(snap.entities, snap.values, strict=True))
            out[c] = ("the query names no entity or value of this user's triples"
                      if has_triples else "this user's memories carry no triples")
    return out


def load_candidates(conn: Connection, seqs: list[int]) -> dict[int, Any]:
    """Row data for the candidate set, by seq (fresh: access counts change per call)."""
    out: dict[int, Any] = {}
    cols = [M[c] for c in CANDIDATE_COLUMNS]
    for i in range(0, len(seqs), 500):
        for r in conn.execute(select(*cols).where(M.seq.in_(seqs[i : i + 500]),
                                                  active_belief_state())):
            out[r.seq] = r
    return out
