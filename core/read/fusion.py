"""From channel rankings to the final top-k: fusion, the score, the floor, diversity.

1. Fusion (``ReadConfig.fusion``): by default the weighted mean of each channel's
   normalised evidence (``score_fusion``), measured better than reciprocal rank fusion
   (``rrf``: ``sum(w / (k + rank))``, normalised so first everywhere is 1), which
   stays selectable; docs/retrieval.md has the figures.
2. The relevance floor: an item is kept only with one real relation to the query —
   enough of the query's keyword weight, a cosine above this query's calibrated floor
   (calibrate.py), or an entity match.  Candidates that are merely recent or
   important do not fill the top-k (the dispositional-memory design's G3: unrelated PostgreSQL and
   Redis
   entries survived a weak reranker).
3. The score: relevance weighted with importance, recency ``1/(1 + days/30)``
   (the V4 retriever proposal) and the per-type Ebbinghaus retention (the dispositional-memory
   design).
4. Diversity: at most ``max_per_week`` results from one ISO week, filled by score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memdesk.core.read import decay
from memdesk.core.read.config import CHANNELS, ReadConfig
from memdesk.core.store.episodes import EpisodeInfo


@dataclass
class Hit:
    """One scored memory, with everything needed to explain its place."""

    seq: int
    id: str
    text: str
    type: str
    layer: str | None
    user_id: str
    created_at: datetime
    importance: float
    confidence: float
    ranks: dict[str, int] = field(default_factory=dict)  # channel -> 1-based rank
    cosine: float | None = None
    keyword_share: float | None = None
    graph_via: str | None = None
    pool: str | None = None
    relevance: float = 0.0
    recency: float = 0.0
    retention: float = 0.0
    score: float = 0.0
    rerank: float | None = None
    # A preference ranked first because the query is a task it bears on (prompts.py).
    task_preference: bool = False
    # Below the relevance floor, returned only because the caller asked for k results
    # whatever their relevance (``retrieve(..., floor=False)``).
    below_floor: bool = False
    # Identical or near-identical memories collapsed into this one (dedup.py).
    same_as: list[Hit] = field(default_factory=list)
    # The episode this hit is (type episode) or was extracted from (episodic.py).
    episode: EpisodeInfo | None = None

    @property
    def week(self) -> str:
        y, w, _ = self.created_at.isocalendar()
        return f"{y}-W{w:02d}"

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id, "text": self.text, "type": self.type, "layer": self.layer,
            "score": round(self.score, 6), "relevance": round(self.relevance, 6),
            "ranks": {c: self.ranks.get(c) for c in ("fts", "vector", "graph")},
            "cosine": None if self.cosine is None else round(self.cosine, 4),
            "keyword_share": None if self.keyword_share is None else round(self.keyword_share, 4),
            "graph_via": self.graph_via, "pool": self.pool,
            "importance": self.importance, "recency": round(self.recency, 4),
            "retention": round(self.retention, 4), "created_at": self.created_at.isoformat(),
            "week": self.week,
            **({"rerank": self.rerank} if self.rerank is not None else {}),
            **({"task_preference": True} if self.task_preference else {}),
            **({"below_floor": True} if self.below_floor else {}),
            **({"same_as": [{"id": d.id, "text": d.text} for d in self.same_as]}
               if self.same_as else {}),
            **(self._episode_json() if self.episode is not None else {}),
        }

    def _episode_json(self) -> dict[str, object]:
        """An episode says who said it and when; a unit names the episode it came from."""
        assert self.episode is not None
        info = self.episode.to_json()
        if self.type == "episode":
            return {k: v for k, v in info.items() if k != "id"}
        return {"episode": info}


@dataclass
class Dropped:
    """A candidate the floor or the diversity rule removed, and why."""

    hit: Hit
    reason: str  # "floor" | "diversity"
    detail: str

    def to_json(self) -> dict[str, object]:
        return {"id": self.hit.id, "text": self.hit.text, "type": self.hit.type,
                "reason": self.reason, "detail": self.detail,
                "score": round(self.hit.score, 6),
                "ranks": {c: self.hit.ranks.get(c) for c in ("fts", "vector", "graph")}}


def rrf(hits: list[Hit], channels: tuple[str, ...], cfg: ReadConfig) -> None:
    """Weighted reciprocal rank fusion, normalised so first everywhere is 1."""
    w = dict(zip(CHANNELS, cfg.channel_weights, strict=True))
    best = sum(w[c] for c in channels) / (cfg.rrf_k + 1) if channels else 0.0
    for h in hits:
        total = sum(w[c] / (cfg.rrf_k + r) for c, r in h.ranks.items() if c in channels)
        h.relevance = total / best if best else 0.0


def channel_scores(h: Hit, cosine_floor: float | None, best_cosine: float | None,
                   keyword_floor: float) -> dict[str, float]:
    """Each channel's evidence for ``h`` on one 0–1 scale, zero below its own floor.

    vector: 0 at this query's floor, 1 at its best candidate (min-max between the two,
    so a query's weak best match does not look as good as another's exact one — it is
    the floor's distance that scales); fts: the keyword share, once it reaches the
    keyword floor (a memory sharing one word of a paraphrase with the query is no
    evidence); graph: 1 for a direct entity or value match, 0.5 for one hop.
    """
    out: dict[str, float] = {}
    if h.cosine is not None and cosine_floor is not None and best_cosine is not None:
        span = best_cosine - cosine_floor
        out["vector"] = (1.0 if h.cosine >= best_cosine else
                         min(max((h.cosine - cosine_floor) / span, 0.0), 1.0)
                         if span > 0 else 0.0)
    if h.keyword_share and h.keyword_share >= keyword_floor:
        out["fts"] = h.keyword_share
    if h.graph_via is not None:
        out["graph"] = 0.5 if h.graph_via.startswith("one hop") else 1.0
    return out


def score_fusion(hits: list[Hit], channels: tuple[str, ...], cfg: ReadConfig,
                 cosine_floor: float | None) -> None:
    """Relevance as the weighted mean of the channels' normalised scores.

    Unlike RRF, a channel's *weak* first place counts for little: a memory sharing one
    common word with the query is fts's rank 1 but has a small keyword share.  The
    mean is over the channels that found evidence for *some* candidate of this query:
    a channel with nothing to say (no entity named, no word in common) cannot tell
    candidates apart, and counting it would only shrink relevance against the
    importance and recency terms of the score.
    """
    w = dict(zip(CHANNELS, cfg.channel_weights, strict=True))
    cos = [h.cosine for h in hits if h.cosine is not None]
    best = max(cos) if cos else None
    scores = [channel_scores(h, cosine_floor, best, cfg.floor_keyword_share) for h in hits]
    spoke = {c for s in scores for c, v in s.items() if v > 0} & set(channels)
    total = sum(w[c] for c in spoke)
    for h, s in zip(hits, scores, strict=True):
        h.relevance = (sum(w[c] * s.get(c, 0.0) for c in spoke) / total) if total else 0.0


def fuse(hits: list[Hit], channels: tuple[str, ...], cfg: ReadConfig,
         cosine_floor: float | None) -> None:
    """Fill each hit's relevance with the configured method."""
    if cfg.fusion == "rrf":
        rrf(hits, channels, cfg)
    else:
        score_fusion(hits, channels, cfg, cosine_floor)


def floor_reason(h: Hit, channels: tuple[str, ...], cfg: ReadConfig,
                 cosine_floor: float | None = None,
                 best_floor: float | None = None,
                 episode_floor: float | None = None) -> str | None:
    """None when ``h`` relates to the query through an active channel; else why not.

    ``cosine_floor`` is this query's calibrated floor (calibrate.py); without one (no
    vectors at all) the prior's floor applies.
    """
    if cosine_floor is None:
        cosine_floor = cfg.floor_prior_median + cfg.floor_z * cfg.floor_prior_scale
    if h.type == "episode":  # a turn as said is judged on the conversational bar
        cosine_floor = min(cosine_floor, episode_floor if episode_floor is not None else
                           cfg.floor_prior_median + cfg.floor_z_episode * cfg.floor_prior_scale)
    why: list[str] = []
    if "fts" in channels:
        share = h.keyword_share or 0.0
        if share >= cfg.floor_keyword_share:
            return None
        why.append("no keyword match" if share == 0 else
                   f"keywords {share:.2f} < {cfg.floor_keyword_share:.2f} of the query")
    if "vector" in channels:
        if h.cosine is not None and h.cosine >= cosine_floor:
            return None
        if (best_floor is not None and h.ranks.get("vector") == 1 and h.cosine is not None
                and h.cosine >= best_floor):
            return None
        why.append("no vector" if h.cosine is None else
                   f"cosine {h.cosine:.2f} < {cosine_floor:.2f}")
    if "graph" in channels:
        if "graph" in h.ranks:
            return None
        why.append("no entity match")
    return "; ".join(why)


def closest_first(dropped: list[Dropped]) -> list[Hit]:
    """The floor's rejects, nearest to the query first: by cosine, then keyword share.

    For a caller that wants k results whatever their relevance (plain vector search's
    contract): below the floor, fusion's relevance is 0 for all of them, so the score
    would rank them by importance and recency alone, which says nothing about the query.
    """
    hits = [d.hit for d in dropped if d.reason == "floor"]
    return sorted(hits, key=lambda h: (h.cosine is None, -(h.cosine or 0.0),
                                       -(h.keyword_share or 0.0), -h.seq))


def score(hits: list[Hit], now: datetime, access: dict[int, tuple[datetime | None, int]],
          cfg: ReadConfig) -> None:
    """Fill recency, retention and the final score (vectorised over ``hits``)."""
    import numpy as np

    if not hits:
        return
    created = decay.days_between(now, [h.created_at for h in hits])
    anchors = [access.get(h.seq, (None, 0))[0] or h.created_at for h in hits]
    since = decay.days_between(now, anchors)
    counts = np.array([access.get(h.seq, (None, 0))[1] for h in hits], dtype=np.float64)
    rec = decay.recency(created, cfg)
    ret = decay.retention([h.type for h in hits], since, counts, cfg)
    rel = np.array([h.relevance for h in hits])
    imp = np.array([h.importance for h in hits])
    total = (cfg.weight_relevance * rel + cfg.weight_importance * imp
             + cfg.weight_recency * rec + cfg.weight_decay * ret)
    for h, r, t, s in zip(hits, rec.tolist(), ret.tolist(), total.tolist(), strict=True):
        h.recency, h.retention, h.score = r, t, s


def diversify(ranked: list[Hit], k: int, cfg: ReadConfig) -> tuple[list[Hit], list[Dropped]]:
    """Top ``k`` by score with at most ``max_per_week`` per ISO week (0: no limit)."""
    out: list[Hit] = []
    dropped: list[Dropped] = []
    per_week: dict[str, int] = {}
    for h in ranked:
        if len(out) >= k:
            break
        if cfg.max_per_week and per_week.get(h.week, 0) >= cfg.max_per_week:
            dropped.append(Dropped(h, "diversity",
                                   f"{cfg.max_per_week} results from {h.week} already"))
            continue
        per_week[h.week] = per_week.get(h.week, 0) + 1
        out.append(h)
    return out, dropped
