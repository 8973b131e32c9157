"""Health evaluation of a memory transition (the delta-memory design's DeltaMemoryHealthEvaluator).

    risk = 0.35·dominance + 0.30·volatility + 0.20·drift + 0.15·contradiction
    healthy < 0.35 ≤ suspicious < 0.70 ≤ dangerous

Every term is in [0, 1], so risk is too.  Definitions (see docs/delta-memory.md):

* dominance: the after set's dominance ratio — but 0 when nothing changed, because a
  transition that changed nothing cannot over-steer (without this an unchanged
  single-source memory would be "suspicious" forever at exactly 0.35).
* volatility: changed candidates / all candidates seen in either set.
* drift: |Δ aggregate| / max(1, aggregate before, aggregate after).  The seed uses
  |Δ aggregate|, which exceeds 1 once a set holds a few strong candidates; dividing by
  the larger aggregate only when it exceeds 1 keeps the seed's figure for small sets
  (appendix: 0.428) and bounds drift by 1 (|a − b| ≤ max(a, b) for a, b ≥ 0).
* contradiction: share of the after set's weighted score held by candidates that
  disagree with the strongest value of an entity+attribute group the transition
  touched (a group with at least two distinct normalised values and a changed member).
* confidence: mean confidence of the after set's candidates (reported, not in risk).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from memdesk.core.delta.contracts import (
    CandidateDelta,
    ChangeType,
    Contribution,
    Health,
    HealthStatus,
    MemorySet,
    Warning_,
)

RISK_WEIGHTS = {"dominance": 0.35, "volatility": 0.30, "drift": 0.20, "contradiction": 0.15}
SUSPICIOUS_AT = 0.35
DANGEROUS_AT = 0.70
HIGH_VOLATILITY = 0.5


def risk_score(dominance: float, volatility: float, drift: float, contradiction: float) -> float:
    w = RISK_WEIGHTS
    return (w["dominance"] * dominance + w["volatility"] * volatility + w["drift"] * drift
            + w["contradiction"] * contradiction)


def classify(risk: float) -> HealthStatus:
    if risk < SUSPICIOUS_AT:
        return HealthStatus.HEALTHY
    if risk < DANGEROUS_AT:
        return HealthStatus.SUSPICIOUS
    return HealthStatus.DANGEROUS


def drift_score(before_aggregate: float, after_aggregate: float) -> float:
    scale = max(1.0, before_aggregate, after_aggregate)
    return min(1.0, abs(after_aggregate - before_aggregate) / scale)


def _norm(v: str | None) -> str:
    return " ".join((v or "").casefold().split())


def contradiction_score(
    after: Sequence[Contribution], changed_keys: set[tuple[str, str]], aggregate: float
) -> float:
    """Weighted share of the after set that contradicts a touched entity+attribute group."""
    if aggregate <= 0:
        return 0.0
    groups: dict[tuple[str, str], list[Contribution]] = defaultdict(list)
    for c in after:
        if c.entity and c.attribute and c.value is not None:
            groups[(_norm(c.entity), _norm(c.attribute))].append(c)
    losing = 0.0
    for members in groups.values():
        by_value: dict[str, float] = defaultdict(float)
        for c in members:
            by_value[_norm(c.value)] += c.weighted_score
        if len(by_value) < 2:
            continue
        if not any((c.source, c.key) in changed_keys for c in members):
            continue  # an old disagreement the transition did not touch
        losing += sum(by_value.values()) - max(by_value.values())
    return min(1.0, losing / aggregate)


def evaluate_health(
    before: MemorySet,
    after: MemorySet,
    deltas: Sequence[CandidateDelta],
    changed_dominant: bool,
    dominance_threshold: float,
) -> Health:
    changed = [d for d in deltas if d.change_type is not ChangeType.UNCHANGED]
    anything = bool(changed)
    dominance = (after.dominance_ratio or 0.0) if anything else 0.0
    volatility = len(changed) / max(1, len(deltas))
    drift = drift_score(before.aggregate_score, after.aggregate_score) if anything else 0.0
    changed_keys = {(d.source, d.key) for d in changed}
    contradiction = contradiction_score(after.contributions, changed_keys, after.aggregate_score)
    conf = (sum(c.confidence for c in after.contributions) / len(after.contributions)
            if after.contributions else 0.0)
    risk = min(1.0, max(0.0, risk_score(dominance, volatility, drift, contradiction)))
    warnings: list[str] = []
    if anything and (after.dominance_ratio or 0.0) > dominance_threshold:
        warnings.append(Warning_.SOURCE_DOMINANCE.value)
    if volatility >= HIGH_VOLATILITY:
        warnings.append(Warning_.HIGH_VOLATILITY.value)
    if changed_dominant:
        warnings.append(Warning_.DOMINANCE_CHANGED.value)
    if contradiction > 0:
        warnings.append(Warning_.CONTRADICTION.value)
    return Health(
        dominance_score=dominance,
        volatility_score=volatility,
        drift_score=drift,
        contradiction_score=contradiction,
        confidence_score=conf,
        risk_score=risk,
        status=classify(risk),
        warnings=tuple(warnings),
    )


def formula_text(h: Health) -> str:
    """The risk formula with this diff's figures filled in (shown by CLI and GUI)."""
    return (
        f"risk = 0.35·{h.dominance_score:.3f} + 0.30·{h.volatility_score:.3f} + "
        f"0.20·{h.drift_score:.3f} + 0.15·{h.contradiction_score:.3f} = {h.risk_score:.3f} "
        f"→ {h.status.value} (healthy < {SUSPICIOUS_AT} ≤ suspicious < {DANGEROUS_AT} ≤ "
        "dangerous)"
    )
