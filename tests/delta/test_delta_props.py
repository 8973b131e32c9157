"""Property tests (hypothesis) of the delta-memory maths."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.core.delta.compose import build_memory_set
from memdesk.core.delta.contracts import (
    Action,
    Candidate,
    ChangeType,
    DeltaConfig,
    HealthStatus,
    SourceConfig,
)
from memdesk.core.delta.diff import diff

SOURCES = ("context", "search", "database", "model_prior")
unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def configs(draw) -> DeltaConfig:  # type: ignore[no-untyped-def]
    return DeltaConfig(
        tuple(
            SourceConfig(n, "t", draw(st.floats(0.0, 5.0)), draw(st.booleans()) or i == 0,
                         draw(st.integers(0, 6)), draw(st.sampled_from([0.0, 0.3])))
            for i, n in enumerate(SOURCES)
        ),
        normalize_weights=draw(st.booleans()),
        dominance_threshold=draw(unit),
    )


texts = st.sampled_from([f"memory {i}" for i in range(12)])
candidate = st.builds(
    Candidate,
    source=st.sampled_from(SOURCES),
    text=texts,
    confidence=unit,
    relevance=unit,
    raw_score=st.one_of(st.none(), unit),
    entity=st.sampled_from([None, "user"]),
    attribute=st.sampled_from([None, "lang"]),
    value=st.sampled_from([None, "Go", "Rust", "go "]),
)
candidate_lists = st.lists(candidate, max_size=25)


@settings(max_examples=150, deadline=None)
@given(configs(), candidate_lists, candidate_lists)
def test_scores_bounded_and_influence_sums_to_one(cfg, before_c, after_c) -> None:  # type: ignore[no-untyped-def]
    before = build_memory_set("g", None, before_c, cfg)
    after = build_memory_set("g", None, after_c, cfg)
    d = diff(before, after)
    h = d.health
    for v in (h.dominance_score, h.volatility_score, h.drift_score, h.contradiction_score,
              h.confidence_score, h.risk_score):
        assert 0.0 <= v <= 1.0
    moved = sum(abs(c.delta) for c in d.candidate_deltas)
    if moved > 0:
        assert math.isclose(sum(d.attribution.source_influence.values()), 1.0)
        assert d.attribution.primary_cause_source in d.attribution.source_influence
    else:
        assert d.attribution.source_influence == {}
    # Every candidate of either set appears exactly once in the deltas.
    keys = {(c.source, c.key) for c in before.contributions + after.contributions}
    assert len(d.candidate_deltas) == len(keys)
    assert math.isclose(sum(c.delta for c in d.candidate_deltas), d.aggregate_score_delta,
                        abs_tol=1e-9)
    expected = (HealthStatus.HEALTHY if h.risk_score < 0.35 else HealthStatus.SUSPICIOUS
                if h.risk_score < 0.70 else HealthStatus.DANGEROUS)
    assert h.status is expected


@settings(max_examples=100, deadline=None)
@given(configs(), candidate_lists)
def test_identical_sets_are_healthy_and_accepted(cfg, cands) -> None:  # type: ignore[no-untyped-def]
    a = build_memory_set("g", None, cands, cfg)
    b = build_memory_set("g", None, list(reversed(cands)), cfg)
    d = diff(a, b)
    assert all(c.change_type is ChangeType.UNCHANGED for c in d.candidate_deltas)
    assert d.health.status is HealthStatus.HEALTHY
    assert d.decision.action is Action.ACCEPT
    assert d.health.risk_score == 0.0
    assert not d.changed_dominant_source
    assert d.bias.should_stop and not d.bias.should_rerun
