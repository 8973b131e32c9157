"""Every tunable of the read path in one frozen value, with the seeds' defaults.

The write-phase design gives the confidence threshold (0.4), the V4 retriever proposal the
candidate pools
(recent 7 days: 30, older keyword matches: 15, random older: 5), the 30-day recency
curve and the two-per-week diversity rule, the dispositional-memory design the per-type half-lives
and the
preference limit (5).  The relevance floor is ours: it is what the dispositional-memory design's G3
lacked.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TypedDict, Unpack

from memdesk.core.errors import ValidationError

CHANNELS = ("fts", "vector", "graph")
FUSIONS = ("scores", "rrf")

# The dispositional-memory design names five half-lives; fact, procedure and reasoning are ours:
# facts and
# procedures change about as slowly as decisions, reasoning ages like a note's context.
HALF_LIFE_DAYS: dict[str, float] = {
    "preference": 120.0,
    "decision": 90.0,
    "fact": 90.0,
    "procedure": 90.0,
    "correction": 60.0,
    "error": 30.0,
    "reasoning": 30.0,
    "note": 14.0,
    # A conversation turn kept as said (an episode) matters while it is recent; what
    # lasts in it is what the extractor made a fact or preference of (90 and 120 days).
    "episode": 30.0,
}
DEFAULT_HALF_LIFE = 30.0


@dataclass(frozen=True)
class ReadConfig:
    """How the retriever, injection, decay and recording behave (all configurable)."""

    confidence_threshold: float = 0.4
    # Candidate pools (the V4 retriever proposal).
    recent_days: float = 7.0
    pool_recent: int = 30
    pool_keyword_older: int = 15
    pool_random_older: int = 5
    vector_candidates: int = 50
    # Rank by cosines centred on the user's mean memory vector (channels.centred;
    # users with fewer than 50 vectors keep raw cosines: too few for a mean).
    centre_vectors: bool = True
    graph_candidates: int = 30
    # Fusion and score.
    rrf_k: int = 60
    # How channel evidence becomes one relevance (fusion.py): "scores" (weighted sum of
    # each channel's normalised score, measured best) or "rrf" (reciprocal rank fusion).
    fusion: str = "scores"
    # Per-channel weights, for either method (fts, vector, graph).
    channel_weights: tuple[float, float, float] = (0.5, 1.0, 0.5)
    weight_relevance: float = 0.6
    weight_importance: float = 0.2
    weight_recency: float = 0.1
    weight_decay: float = 0.1
    recency_days: float = 30.0  # recency = 1 / (1 + days / recency_days)
    # Relevance floor: an item needs one real relation to the query to be kept.
    # The cosine floor is calibrated per query (calibrate.py): the median of the
    # query's cosines over the user's memories plus ``floor_z`` robust deviations,
    # both shrunk towards all-MiniLM-L6-v2's prior for unrelated text (median 0.02,
    # deviation 0.07, worth ``floor_prior_weight`` memories) so a store of three
    # memories gets the prior's floor, 0.02 + 4.5 × 0.07 ≈ 0.34.  4.5, and 2.75 for
    # the best candidate below, were chosen on the recall benchmark's labelled set
    # (docs/retrieval.md): the pair that keeps no-answer questions under one result.
    floor_z: float = 4.5
    # The vector channel's single best candidate needs only this many: a question
    # usually has one answer, and when it is there it is most often the best candidate
    # even when it does not stand out by ``floor_z`` deviations (a paraphrase sharing no word
    # with its answer).  Never above ``floor_z``.
    floor_best_z: float = 2.75
    # An episode (a turn kept as said) needs only this many.  A distilled unit ("The
    # user's daughter is 7.") stands out from the rest of a user's memories for the
    # question it answers; a conversation turn rarely does ("Emma turned 7 last week,
    # we had a dinosaur cake!").  Chosen on conversations (bench/conv_frontier.py,
    # docs/retrieval.md): at 4.5 the default found the answer turn of 0.17 of the
    # open-domain questions the same ranking answers at 0.63.  No bar keeps both what
    # the ranking finds (≥ 0.95 of ``floor=False`` in every category needs z ≤ 1.0) and
    # questions without an answer at ≤ 3 results (z ≥ 2.2): it favours finding the
    # answer, and every result carries its relevance so an agent can cut for itself.
    floor_z_episode: float = 1.0
    # Both bars were chosen for users of about this many memories; a user with more
    # gets them raised so that as few unrelated memories pass by chance
    # (calibrate.for_size).
    floor_reference_n: int = 250
    floor_prior_median: float = 0.02
    floor_prior_scale: float = 0.07
    floor_prior_weight: float = 50.0
    # The floor never rises above this: with this model a cosine of 0.5 is always a
    # close topical relation, and a tiny store with widely spread cosines would
    # otherwise get a floor above 1.
    floor_cap: float = 0.5
    # Share of the query's keyword weight a memory must hold (words the user never
    # wrote count too): at least half of what the query names.
    floor_keyword_share: float = 0.5
    # Diversity (the V4 retriever proposal): at most this many results from one ISO week; 0 = off.
    max_per_week: int = 2
    # A "when" question gets the results that carry an event date first (episodic.py).
    when_dated_first: bool = True
    # Dispositional injection (the dispositional-memory design) with fair rotation.
    preference_limit: int = 5
    # Relevance first: a preference whose cosine is this many robust deviations above
    # the query's background (calibrate.py) takes one of the first slots, best first,
    # at most ``inject_relevant_max`` of them: the rotation keeps the other slots, so
    # every preference still reaches the agent within ceil(n / 2) calls.  A looser bar
    # than a result's (``floor_z``): the slot is filled anyway, by rotation otherwise.
    inject_z: float = 1.0
    inject_relevant_max: int = 3
    # A task prompt ("Book me a massage": prompts.py) takes up to this many of the
    # preferences relevant to it (the injection bar above) as its first results.
    task_preferences: int = 3
    inject_types: tuple[str, ...] = ("preference",)
    inject_layers: tuple[str, ...] = ("procedural",)
    # Decay (the dispositional-memory design): Ebbinghaus with per-type half-lives,
    # retrieval-boosted.
    half_lives: dict[str, float] = field(default_factory=lambda: dict(HALF_LIFE_DAYS))
    default_half_life: float = DEFAULT_HALF_LIFE
    reinforcement: float = 0.5  # half-life grows by (1 + r * ln(1 + access_count))
    # Recording.
    record: bool = True
    retention_days: float | None = 90.0  # None keeps every retrieval record
    # Optional reranker (Ollama); None = off.
    rerank_model: str | None = None
    rerank_host: str | None = None
    rerank_timeout: float = 10.0
    rerank_top: int = 20

    def with_(self, **changes: Unpack[ReadConfigChanges]) -> ReadConfig:
        return replace(self, **changes).checked()

    def half_life(self, type_: str) -> float:
        return self.half_lives.get(type_, self.default_half_life)

    def checked(self) -> ReadConfig:
        """Raise ValidationError for values that would make retrieval meaningless."""
        if not 0.0 <= self.confidence_threshold <= 1.0:
            raise ValidationError("confidence_threshold", "must be in [0, 1]")
        for name in ("pool_recent", "pool_keyword_older", "pool_random_older", "task_preferences",
                     "vector_candidates", "graph_candidates", "preference_limit",
                     "max_per_week"):
            if getattr(self, name) < 0:
                raise ValidationError(name, "must not be negative")
        for name, v in self.half_lives.items():
            if not v > 0:
                raise ValidationError("half_lives", f"{name}: must be positive")
        if self.inject_relevant_max < 0:
            raise ValidationError("inject_relevant_max", "must not be negative")
        if self.fusion not in FUSIONS:
            raise ValidationError("fusion", f"unknown method {self.fusion!r}; use "
                                            f"{', '.join(FUSIONS)}")
        if len(self.channel_weights) != 3 or any(w < 0 for w in self.channel_weights):
            raise ValidationError("channel_weights", "three weights (fts, vector, graph), "
                                                     "none negative")
        if not self.floor_prior_scale > 0 or self.floor_prior_weight < 0:
            raise ValidationError("floor_prior_scale", "must be positive (and its weight "
                                                      "not negative)")
        if self.recent_days < 0 or self.recency_days <= 0:
            raise ValidationError("recency_days", "must be positive")
        return self


class ReadConfigChanges(TypedDict, total=False):
    """The fields ``ReadConfig.with_`` may change, with their types (the type checker
    holds every call to them).  Keep in step with ReadConfig's fields: a call naming a
    field missing here fails the type check."""

    confidence_threshold: float
    recent_days: float
    pool_recent: int
    pool_keyword_older: int
    pool_random_older: int
    vector_candidates: int
    centre_vectors: bool
    graph_candidates: int
    rrf_k: int
    fusion: str
    channel_weights: tuple[float, float, float]
    weight_relevance: float
    weight_importance: float
    weight_recency: float
    weight_decay: float
    recency_days: float
    floor_z: float
    floor_best_z: float
    floor_reference_n: int
    floor_prior_median: float
    floor_prior_scale: float
    floor_prior_weight: float
    floor_cap: float
    floor_keyword_share: float
    max_per_week: int
    when_dated_first: bool
    floor_z_episode: float
    preference_limit: int
    inject_z: float
    inject_relevant_max: int
    task_preferences: int
    inject_types: tuple[str, ...]
    inject_layers: tuple[str, ...]
    half_lives: dict[str, float]
    default_half_life: float
    reinforcement: float
    record: bool
    retention_days: float | None
    rerank_model: str | None
    rerank_host: str | None
    rerank_timeout: float
    rerank_top: int


def parse_channels(spec: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...] | None:
    """``"fts,vector"`` → ('fts', 'vector'); None or every channel → None (not isolated)."""
    if spec is None:
        return None
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for raw in items:
        name = raw.strip().lower()
        if not name:
            continue
        if name not in CHANNELS:
            raise ValidationError("channels", f"unknown channel {raw!r}; use {', '.join(CHANNELS)}")
        if name not in out:
            out.append(name)
    if not out:
        raise ValidationError("channels", f"name at least one of {', '.join(CHANNELS)}")
    return None if set(out) == set(CHANNELS) else tuple(c for c in CHANNELS if c in out)
