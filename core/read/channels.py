"""The three retrieval channels and seed 002's candidate pools, each on its own.

Every query is scoped to one user's active belief state with ``confidence >=``
the threshold (seed 003).  Channels return memories best first:

- **fts**: keyword matches (content words ORed, weighted by rarity among the user's
  memories), drawn from two pools so recent matches cannot crowd out older ones —
  recent (last 7 days) and older, each with its own budget (seed 002's flooding bug);
- **vector**: cosine similarity between the query's embedding and stored ones,
  exact (numpy over the user's vectors; docs/retrieval.md says why not an ANN index);
- **graph**: query phrases matched against entity/attribute/value triples, then one
  hop to memories that share the other end of a matched triple.

Pools A (recent, newest first) and C (random older) add candidates that no channel
ranked, so they are scored too; the relevance floor decides whether they stay.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Connection,
    DateTime,
    Float,
    Integer,
    Text,
    and_,
    func,
    literal,
    or_,
    select,
    text,
)

from memdesk.core.read import terms as qt
from memdesk.core.read.config import ReadConfig
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


def scope(user_id: str, cfg: ReadConfig):  # type: ignore[no-untyped-def]
    """The rows any channel may return: the user's active, confident memories."""
    return and_(M.user_id == user_id, active_belief_state(),
                M.confidence >= cfg.confidence_threshold)


@dataclass
class KeywordHits:
    """The fts channel's answer: ranked seqs, each one's keyword share and pool."""

    ranked: list[int] = field(default_factory=list)
    share: dict[int, float] = field(default_factory=dict)
    pool: dict[int, str] = field(default_factory=dict)
    recent_matches: int = 0
    older_matches: int = 0


def _match_sql(dialect: str, stems: list[str]):  # type: ignore[no-untyped-def]
    if dialect == "sqlite":
        return None
    if dialect == "postgresql":
        tsq = " | ".join(s + ":*" for s in stems)
        return func.to_tsvector(literal("simple"), M.text).op("@@")(
            func.to_tsquery(literal("simple"), tsq))
    return or_(*(func.lower(M.text).contains(s) for s in stems))


def keyword_rows(conn: Connection, user_id: str, stems: list[str], cfg: ReadConfig) -> list[Any]:
    """(seq, text, created_at, importance) of the user's rows matching any stem."""
    if not stems:
        return []
    if conn.dialect.name == "sqlite":
        # The user's rows drive and each probes the FTS index by rowid: cost follows the
        # user's row count, not how common a word is across the whole store.
        sql = text(
            "SELECT m.seq, m.text, m.created_at, m.importance FROM memories AS m "
            "CROSS JOIN memories_fts AS f "
            "WHERE m.user_id = :u AND m.valid_until IS NULL AND m.superseded_by IS NULL "
            "AND m.deleted_at IS NULL AND m.confidence >= :t "
            "AND f.rowid = m.seq AND f.memories_fts MATCH :q"
        ).columns(seq=Integer(), text=Text(), created_at=DateTime(), importance=Float())
        return conn.execute(sql, {"u": user_id, "t": cfg.confidence_threshold,
                                  "q": qt.fts_or_expression(stems)}).all()
    stmt = select(M.seq, M.text, M.created_at, M.importance).where(
        scope(user_id, cfg), _match_sql(conn.dialect.name, stems))
    return conn.execute(stmt).all()


def user_size(conn: Connection, user_id: str, cfg: ReadConfig) -> int:
    stmt = select(func.count()).select_from(Memory.__table__).where(scope(user_id, cfg))
    return int(conn.execute(stmt).scalar_one())


def keyword_channel(
    conn: Connection, user_id: str, query: str, cfg: ReadConfig, now: datetime
) -> KeywordHits:
    stems = qt.keywords(query)
    rows = keyword_rows(conn, user_id, stems, cfg)
    out = KeywordHits()
    if not rows:
        return out
    n = max(user_size(conn, user_id, cfg), len(rows))
    found = [(r, qt.matched(stems, r.text)) for r in rows]
    df = {s: 0 for s in stems}
    for _r, hit in found:
        for s in hit:
            df[s] += 1
    weight = {s: qt.idf(n, d) for s, d in df.items() if d}
    total = sum(weight.values()) or 1.0
    cutoff = now - timedelta(days=cfg.recent_days)
    recent, older = [], []
    for r, hit in found:
        share = sum(weight[s] for s in hit) / total
        if share <= 0:
            continue  # matched by FTS but not by a whole-word prefix (e.g. inside a token)
        out.share[r.seq] = share
        (recent if r.created_at >= cutoff else older).append((share, r))
    out.recent_matches, out.older_matches = len(recent), len(older)
    # Pool A's matches: best first, then newest.  Pool B: older matches, best first and
    # then by importance (seed 002 orders by importance only; with equal relevance that
    # is what happens, and the relevance key keeps a specific older match reachable).
    recent.sort(key=lambda x: (-x[0], -x[1].created_at.timestamp(), -x[1].seq))
    older.sort(key=lambda x: (-x[0], -x[1].importance, -x[1].seq))
    chosen = [(s, r, "A") for s, r in recent[: cfg.pool_recent]]
    chosen += [(s, r, "B") for s, r in older[: cfg.pool_keyword_older]]
    chosen.sort(key=lambda x: (-x[0], -x[1].importance, -x[1].seq))
    for _s, r, pool in chosen:
        out.ranked.append(r.seq)
        out.pool[r.seq] = pool
    return out


def recent_pool(conn: Connection, user_id: str, cfg: ReadConfig, now: datetime,
                limit: int) -> list[int]:
    """Pool A: the newest memories of the last ``recent_days`` (seed 002)."""
    if limit <= 0:
        return []
    cutoff = now - timedelta(days=cfg.recent_days)
    stmt = (select(M.seq).where(scope(user_id, cfg), M.created_at >= cutoff)
            .order_by(M.created_at.desc(), M.seq.desc()).limit(limit))
    return list(conn.execute(stmt).scalars())


def random_older_pool(conn: Connection, user_id: str, cfg: ReadConfig, now: datetime) -> list[int]:
    """Pool C: a random sample of memories older than ``recent_days`` (seed 002)."""
    if cfg.pool_random_older <= 0:
        return []
    cutoff = now - timedelta(days=cfg.recent_days)
    stmt = (select(M.seq).where(scope(user_id, cfg), M.created_at < cutoff)
            .order_by(func.random()).limit(cfg.pool_random_older))
    return list(conn.execute(stmt).scalars())


@dataclass
class VectorHits:
    """The vector channel's answer: its top seqs, and the cosine of every scored row."""

    ranked: list[int] = field(default_factory=list)
    cosine: dict[int, float] = field(default_factory=dict)
    without_vector: int = 0


def vector_channel(conn: Connection, user_id: str, qvec: np.ndarray, cfg: ReadConfig) -> VectorHits:
    import numpy as np

    from memdesk.core.embeddings import matrix

    rows = conn.execute(select(M.seq, M.embedding).where(scope(user_id, cfg))).all()
    out = VectorHits()
    seqs, blobs = [], []
    dim_bytes = len(qvec) * 4
    for seq, blob in rows:
        if blob is None or len(blob) != dim_bytes:
            out.without_vector += 1
            continue
        seqs.append(seq)
        blobs.append(blob)
    if not seqs:
        return out
    sims = matrix(blobs) @ np.asarray(qvec, dtype=np.float32)
    n = min(cfg.vector_candidates, len(seqs))
    if n > 0:
        top = np.argpartition(-sims, n - 1)[:n] if n < len(seqs) else np.arange(len(seqs))
        top = top[np.argsort(-sims[top], kind="stable")]
        out.ranked = [seqs[i] for i in top]
    out.cosine = dict(zip(seqs, sims.tolist(), strict=True))
    return out


@dataclass
class GraphHits:
    """The graph channel's answer: ranked seqs and, for each, how it was reached."""

    ranked: list[int] = field(default_factory=list)
    via: dict[int, str] = field(default_factory=dict)


def _node(col):  # type: ignore[no-untyped-def]
    return func.lower(func.trim(col))


def graph_channel(conn: Connection, user_id: str, query: str, cfg: ReadConfig) -> GraphHits:
    grams = [g for g in qt.entity_grams(query) if g not in HUB_NODES]
    out = GraphHits()
    if not grams or cfg.graph_candidates <= 0:
        return out
    cols = (M.seq, M.entity, M.attribute, M.value, M.importance, M.created_at)
    direct = conn.execute(
        select(*cols).where(scope(user_id, cfg),
                            or_(_node(M.entity).in_(grams), _node(M.value).in_(grams)))
        .order_by(M.importance.desc(), M.created_at.desc(), M.seq.desc())
        .limit(cfg.graph_candidates)
    ).all()
    nodes: set[str] = set()
    gset = set(grams)
    for r in direct:
        e, v = (r.entity or "").strip().lower(), (r.value or "").strip().lower()
        out.ranked.append(r.seq)
        out.via[r.seq] = f"{r.entity} · {r.attribute} · {r.value}"
        nodes.update(x for x in (e, v) if x and x not in gset and x not in HUB_NODES)
    room = cfg.graph_candidates - len(out.ranked)
    if nodes and room > 0:
        hop = conn.execute(
            select(*cols).where(scope(user_id, cfg),
                                or_(_node(M.entity).in_(nodes), _node(M.value).in_(nodes)),
                                M.seq.not_in(out.ranked))
            .order_by(M.importance.desc(), M.created_at.desc(), M.seq.desc()).limit(room)
        ).all()
        for r in hop:
            out.ranked.append(r.seq)
            out.via[r.seq] = f"one hop: {r.entity} · {r.attribute} · {r.value}"
    return out


def load_candidates(conn: Connection, seqs: list[int]) -> dict[int, Any]:
    """Row data for the candidate set, by seq."""
    out: dict[int, Any] = {}
    cols = [M[c] for c in CANDIDATE_COLUMNS]
    for i in range(0, len(seqs), 500):
        for r in conn.execute(select(*cols).where(M.seq.in_(seqs[i : i + 500]))):
            out[r.seq] = r
    return out
