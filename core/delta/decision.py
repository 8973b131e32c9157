"""Governance decision for a memory transition (the delta-memory design's
DeltaMemoryDecisionService).

The rules are the seed appendix's, in order: healthy → accept; dangerous → reject and
review the cause; a changed dominant source → investigate; otherwise dampen the
primary cause by 0.15 of weight and recompose.
"""

from __future__ import annotations

from memdesk.core.delta.contracts import Action, Decision, Health, HealthStatus

DAMPEN_STEP = -0.15
RECOMPOSE = "recompose_memory_after_weight_adjustment"


def decide(primary_cause: str | None, health: Health, changed_dominant_source: bool) -> Decision:
    if health.status is HealthStatus.HEALTHY:
        return Decision(Action.ACCEPT, "memory change appears stable")
    if health.status is HealthStatus.DANGEROUS:
        return Decision(Action.REJECT, "memory drift risk is too high",
                        source_to_review=primary_cause)
    if changed_dominant_source:
        return Decision(Action.INVESTIGATE, "dominant memory source changed",
                        source_to_review=primary_cause)
    return Decision(
        Action.DAMPEN,
        "memory shift is suspicious but not dangerous",
        source_to_review=primary_cause,
        recommended_weight_adjustments={primary_cause: DAMPEN_STEP} if primary_cause else {},
        recommended_followup_checks=(RECOMPOSE,) if primary_cause else (),
    )
