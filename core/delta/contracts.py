"""The delta-memory contracts of the delta-memory design, as plain dataclasses (no pydantic).

``MemorySet`` is a weighted belief state at one moment ("what is active now?");
``DeltaDiff`` is the measured transition between two of them ("how did it change, who
caused it, and should the change be trusted?").  Types built in bulk by the diff
(``Contribution``, ``CandidateDelta``) are slotted, non-frozen dataclasses because
creating tens of thousands of frozen ones costs more than the diff itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any


class ChangeType(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    STRENGTHENED = "strengthened"
    WEAKENED = "weakened"
    UNCHANGED = "unchanged"


class HealthStatus(StrEnum):
    HEALTHY = "healthy"
    SUSPICIOUS = "suspicious"
    DANGEROUS = "dangerous"


class Action(StrEnum):
    ACCEPT = "accept"
    DAMPEN = "dampen"
    REJECT = "reject"
    INVESTIGATE = "investigate"


class Warning_(StrEnum):
    """Warning codes a diff can raise (the seed's three, plus contradictions)."""

    SOURCE_DOMINANCE = "memory_source_dominance_detected"
    HIGH_VOLATILITY = "high_memory_volatility"
    DOMINANCE_CHANGED = "source_dominance_changed"
    CONTRADICTION = "contradictory_memory_detected"


# The seed's source types; any other string is accepted for custom providers.
SOURCE_TYPES = ("context_memory", "search_memory", "database_memory", "model_memory")


@dataclass(frozen=True)
class SourceConfig:
    """One configurable memory source (seed: MemorySourceConfigDTO)."""

    name: str
    source_type: str
    weight: float
    enabled: bool = True
    top_k: int = 10
    confidence_threshold: float = 0.0


@dataclass(frozen=True)
class DeltaConfig:
    """All sources plus the policy knobs (seed: DeltaMemoryConfigDTO)."""

    sources: tuple[SourceConfig, ...]
    normalize_weights: bool = True
    dominance_threshold: float = 0.6

    def source(self, name: str) -> SourceConfig | None:
        for s in self.sources:
            if s.name == name:
                return s
        return None

    def effective_weights(self) -> dict[str, float]:
        """Weights actually applied: enabled sources only, normalised if asked."""
        enabled = {s.name: s.weight for s in self.sources if s.enabled}
        if not self.normalize_weights:
            return enabled
        return normalize_weights(enabled)


def normalize_weights(weights: dict[str, float]) -> dict[str, float]:
    """Scale weights to sum to 1 (all zero stays all zero: nothing to scale)."""
    total = sum(weights.values())
    if total <= 0:
        return dict(weights)
    return {k: v / total for k, v in weights.items()}


DEFAULT_SOURCES = (
    SourceConfig("context", "context_memory", 0.30),
    SourceConfig("search", "search_memory", 0.25),
    SourceConfig("database", "database_memory", 0.25),
    SourceConfig("model_prior", "model_memory", 0.20),
)


def text_key(text: str) -> str:
    """Stable identity of a candidate without an id: hash of its normalised text."""
    norm = " ".join(text.casefold().split())
    return "h:" + hashlib.sha1(norm.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Candidate:
    """A raw memory candidate offered by one source, before weighting and filtering."""

    source: str
    text: str
    confidence: float
    relevance: float
    raw_score: float | None = None
    candidate_id: str | None = None
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)
    entity: str | None = None
    attribute: str | None = None
    value: str | None = None

    @property
    def key(self) -> str:
        return f"id:{self.candidate_id}" if self.candidate_id else text_key(self.text)


@dataclass(slots=True)
class Contribution:
    """A candidate that made it into a memory set, with its weighting and provenance."""

    key: str
    source: str
    text: str
    confidence: float
    relevance: float
    raw_score: float | None
    original_score: float  # raw_score, or relevance × confidence
    source_weight: float
    weighted_score: float  # source_weight × original_score
    provenance: dict[str, Any]
    entity: str | None = None
    attribute: str | None = None
    value: str | None = None


@dataclass(frozen=True)
class SourceReport:
    """What one source did in a memory set (seed: MemorySourceReportDTO)."""

    source: str
    source_type: str
    weight: float
    enabled: bool
    offered: int
    kept: int
    below_threshold: int
    over_top_k: int
    weighted_total: float
    share: float
    mean_confidence: float


@dataclass
class MemorySet:
    """A weighted belief state at one moment (seed: MemorySetDTO)."""

    id: str
    goal: str
    query: str | None
    label: str
    created_at: datetime
    contributions: list[Contribution]
    source_reports: list[SourceReport]
    aggregate_score: float
    dominant_source: str | None
    dominance_ratio: float | None
    weights: dict[str, float] = field(default_factory=dict)

    @property
    def candidates(self) -> list[Contribution]:
        return self.contributions

    def source_totals(self) -> dict[str, float]:
        return {r.source: r.weighted_total for r in self.source_reports}


@dataclass(slots=True)
class CandidateDelta:
    """How one candidate changed between two sets; also its contribution delta."""

    key: str
    source: str
    text: str
    before_score: float
    after_score: float
    delta: float
    change_type: ChangeType
    before_weight: float | None = None
    after_weight: float | None = None
    before_original: float | None = None
    after_original: float | None = None


@dataclass(frozen=True)
class SourceDelta:
    """Change of one source's weighted total and share (seed: SourceDeltaDTO)."""

    source: str
    before_total: float
    after_total: float
    weighted_score_delta: float
    before_share: float
    after_share: float
    added: int
    removed: int
    strengthened: int
    weakened: int


@dataclass(frozen=True)
class Attribution:
    """Which source caused the change (seed: DeltaMemoryAttributionDTO)."""

    source_influence: dict[str, float]
    primary_cause_source: str | None
    primary_cause_candidate: str | None  # key of the candidate with the largest |delta|


@dataclass(frozen=True)
class Health:
    """Was the change safe? (seed: DeltaMemoryHealthDTO)."""

    dominance_score: float
    volatility_score: float
    drift_score: float
    contradiction_score: float
    confidence_score: float
    risk_score: float
    status: HealthStatus
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Decision:
    """What to do about the change (seed: DeltaMemoryChangeDecisionDTO)."""

    action: Action
    reason: str
    source_to_review: str | None = None
    recommended_weight_adjustments: dict[str, float] = field(default_factory=dict)
    recommended_followup_checks: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchBias:
    """How memory thinks the next search should be shaped (seed: SearchBiasDTO).

    The seed says "runtimes"; memdesk's runtimes are its memory sources.
    """

    preferred_sources: tuple[str, ...]
    suppressed_sources: tuple[str, ...]
    query_expansions: tuple[str, ...]
    query_suppressions: tuple[str, ...]
    depth_hint: str  # "shallow" | "normal" | "deep"
    should_rerun: bool
    should_stop: bool
    reason: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class DeltaDiff:
    """The measured transition between two memory sets (seed: DeltaMemoryDiffDTO)."""

    before_id: str
    after_id: str
    before_dominant_source: str | None
    after_dominant_source: str | None
    changed_top_candidate: bool
    changed_dominant_source: bool
    aggregate_score_delta: float
    candidate_deltas: list[CandidateDelta]
    source_deltas: list[SourceDelta]
    attribution: Attribution
    health: Health
    decision: Decision
    bias: SearchBias

    @property
    def contribution_deltas(self) -> list[CandidateDelta]:
        """Contributions whose weighted score moved (weight or score changed)."""
        return [d for d in self.candidate_deltas if d.change_type is not ChangeType.UNCHANGED]

    @property
    def changed(self) -> bool:
        return any(d.change_type is not ChangeType.UNCHANGED for d in self.candidate_deltas)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe summary (the CLI's --json and stored decision payloads)."""
        return {
            "before_id": self.before_id,
            "after_id": self.after_id,
            "before_dominant_source": self.before_dominant_source,
            "after_dominant_source": self.after_dominant_source,
            "changed_top_candidate": self.changed_top_candidate,
            "changed_dominant_source": self.changed_dominant_source,
            "aggregate_score_delta": self.aggregate_score_delta,
            "candidate_deltas": [
                {
                    "key": d.key, "source": d.source, "text": d.text,
                    "change_type": d.change_type.value, "before_score": d.before_score,
                    "after_score": d.after_score, "delta": d.delta,
                }
                for d in self.candidate_deltas
            ],
            "source_deltas": [asdict(s) for s in self.source_deltas],
            "attribution": asdict(self.attribution),
            "health": {**asdict(self.health), "status": self.health.status.value,
                       "warnings": list(self.health.warnings)},
            "decision": {**asdict(self.decision), "action": self.decision.action.value,
                         "recommended_followup_checks":
                             list(self.decision.recommended_followup_checks)},
            "search_bias": self.bias.to_json(),
        }
