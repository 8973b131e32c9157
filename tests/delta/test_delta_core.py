"""Delta memory core (no store): the seed-004 appendix as oracle, composing, health,
decisions and search bias."""

from __future__ import annotations

import math

import pytest

from memdesk.core.delta.bias import build_search_bias
from memdesk.core.delta.compose import build_memory_set, candidate_from_dict
from memdesk.core.delta.contracts import (
    DEFAULT_SOURCES,
    Action,
    Candidate,
    ChangeType,
    DeltaConfig,
    HealthStatus,
    SourceConfig,
    normalize_weights,
)
from memdesk.core.delta.diff import diff
from memdesk.core.delta.health import evaluate_health, formula_text, risk_score
from memdesk.core.errors import ValidationError

# The appendix's SOURCE_WEIGHTS, used as given (they are not normalised there).
APPENDIX = DeltaConfig(DEFAULT_SOURCES, normalize_weights=False)

CTX = Candidate("context", "Generic repository search is probably enough.", 0.90, 0.90)
PRIOR = Candidate("model_prior", "Use broad search first when routing is uncertain.", 0.70, 0.70)
LENS = Candidate("search", "Artifact review should use Lens contribution reports.", 0.96, 0.96)
VOICE = Candidate("search", "Voice preservation and semantic similarity are Lens signals.",
                  0.90, 0.88)


def appendix_diff():
    before = build_memory_set("route artifact review task", None, [CTX, PRIOR], APPENDIX,
                              label="before")
    after = build_memory_set("route artifact review task", None, [CTX, LENS, VOICE, PRIOR],
                             APPENDIX, label="after")
    return before, after, diff(before, after)


def test_appendix_oracle_reproduced_to_three_decimals() -> None:
    """What the appendix code computes (not its printed 'Expected output', which is wrong)."""
    _before, _after, d = appendix_diff()
    assert (d.before_dominant_source, d.after_dominant_source) == ("context", "search")
    assert d.changed_dominant_source is True
    assert round(d.aggregate_score_delta, 3) == 0.428
    assert d.attribution.primary_cause_source == "search"
    assert {k: round(v, 2) for k, v in d.attribution.source_influence.items()} == {
        "context": 0.0, "model_prior": 0.0, "search": 1.0,
    }
    h = d.health
    assert round(h.dominance_score, 3) == 0.557
    assert round(h.volatility_score, 3) == 0.5
    assert round(h.drift_score, 3) == 0.428
    assert h.contradiction_score == 0.0
    assert round(h.risk_score, 3) == 0.431
    assert h.status is HealthStatus.SUSPICIOUS
    assert d.decision.action is Action.INVESTIGATE
    assert d.decision.reason == "dominant memory source changed"
    assert d.decision.source_to_review == "search"
    deltas = {c.text: (c.change_type, round(c.delta, 3), c.source) for c in d.candidate_deltas}
    assert deltas == {
        LENS.text: (ChangeType.ADDED, 0.230, "search"),
        VOICE.text: (ChangeType.ADDED, 0.198, "search"),
        CTX.text: (ChangeType.UNCHANGED, 0.0, "context"),
        PRIOR.text: (ChangeType.UNCHANGED, 0.0, "model_prior"),
    }
    # The seed's printed 0.409 aggregate delta cannot come from these inputs.
    assert math.isclose(d.aggregate_score_delta, 0.25 * 0.96 * 0.96 + 0.25 * 0.90 * 0.88)


def test_body_formula_equals_appendix_formula_when_no_contradiction() -> None:
    _, _, d = appendix_diff()
    h = d.health
    appendix = 0.35 * h.dominance_score + 0.30 * h.volatility_score + 0.20 * h.drift_score
    assert math.isclose(h.risk_score, appendix)
    assert math.isclose(
        risk_score(h.dominance_score, h.volatility_score, h.drift_score, 0.5), appendix + 0.075
    )
    assert "= 0.431 → suspicious" in formula_text(h)


def test_dampen_when_suspicious_without_dominance_change() -> None:
    """Same dominant source, suspicious shift: dampen the cause by 0.15 (seed rule 4)."""
    cfg = DeltaConfig(DEFAULT_SOURCES, normalize_weights=False)
    base = [Candidate("search", f"hit {i}", 1, 1) for i in range(3)]
    base.append(Candidate("context", "the task", 1, 1))
    before = build_memory_set("g", None, base, cfg)
    after = build_memory_set("g", None, base + [Candidate("search", f"new {i}", 1, 1)
                                                for i in range(2)], cfg)
    d = diff(before, after)
    assert (d.before_dominant_source, d.after_dominant_source) == ("search", "search")
    assert d.health.status is HealthStatus.SUSPICIOUS
    assert d.decision.action is Action.DAMPEN
    assert d.decision.recommended_weight_adjustments == {"search": -0.15}
    assert d.decision.recommended_followup_checks == ("recompose_memory_after_weight_adjustment",)
    assert d.bias.suppressed_sources == ("search",)
    assert "memory_source_dominance_detected" in d.health.warnings


def test_dangerous_is_rejected_and_rerun_deep() -> None:
    cfg = DeltaConfig(DEFAULT_SOURCES)
    before = build_memory_set("g", None, [Candidate("context", f"c{i}", 0.9, 0.9)
                                          for i in range(4)], cfg)
    flood = [Candidate("search", f"flood {i}", 1, 1, entity="user", attribute="lang",
                       value="Go" if i % 2 else "Rust") for i in range(10)]
    after = build_memory_set("g", None, flood, cfg)
    d = diff(before, after)
    assert d.health.status is HealthStatus.DANGEROUS
    assert d.decision.action is Action.REJECT
    assert d.bias.should_rerun and d.bias.depth_hint == "deep"
    assert d.health.contradiction_score > 0
    assert "contradictory_memory_detected" in d.health.warnings


def test_compose_weights_filters_and_top_k() -> None:
    cfg = DeltaConfig((
        SourceConfig("context", "context_memory", 3.0, top_k=2),
        SourceConfig("search", "search_memory", 1.0, confidence_threshold=0.5),
        SourceConfig("off", "model_memory", 5.0, enabled=False),
    ))
    cands = [Candidate("context", f"c{i}", 1.0, 0.1 * (i + 1)) for i in range(4)]
    cands += [Candidate("search", "weak", 0.4, 1.0), Candidate("search", "strong", 0.8, 1.0,
                                                                raw_score=0.5)]
    cands += [Candidate("off", "ignored", 1, 1)]
    ms = build_memory_set("g", "q", cands, cfg)
    assert ms.weights == {"context": 0.75, "search": 0.25}
    texts = [c.text for c in ms.contributions]
    assert texts == ["c3", "c2", "strong"]  # top-2 of context; weak filtered; off disabled
    strong = ms.contributions[2]
    assert strong.original_score == 0.5  # raw score wins over relevance × confidence
    assert math.isclose(strong.weighted_score, 0.25 * 0.5)
    reports = {r.source: r for r in ms.source_reports}
    assert (reports["context"].kept, reports["context"].over_top_k) == (2, 2)
    assert reports["search"].below_threshold == 1
    assert reports["off"].enabled is False and reports["off"].offered == 1
    assert math.isclose(sum(r.share for r in ms.source_reports), 1.0)
    assert ms.dominant_source == "context"


def test_normalize_weights() -> None:
    assert normalize_weights({"a": 2.0, "b": 6.0}) == {"a": 0.25, "b": 0.75}
    assert normalize_weights({"a": 0.0}) == {"a": 0.0}
    cfg = DeltaConfig(DEFAULT_SOURCES, normalize_weights=True)
    assert math.isclose(sum(cfg.effective_weights().values()), 1.0)


def test_same_text_from_two_sources_counts_per_source() -> None:
    cfg = DeltaConfig(DEFAULT_SOURCES)
    a = build_memory_set("g", None, [Candidate("context", "X  is true", 1, 1)], cfg)
    b = build_memory_set("g", None, [Candidate("context", "x is TRUE", 1, 1),
                                     Candidate("search", "x is true", 1, 1)], cfg)
    d = diff(a, b)
    kinds = sorted((c.source, c.change_type.value) for c in d.candidate_deltas)
    # Normalised text matches across whitespace/case; the search copy is a new candidate.
    assert kinds == [("context", "unchanged"), ("search", "added")]


@pytest.mark.parametrize("bad", [
    {"source": "context", "text": "x", "confidence": float("nan"), "relevance": 0.5},
    {"source": "context", "text": "x", "confidence": 1.5, "relevance": 0.5},
    {"source": "context", "text": "   ", "confidence": 0.5, "relevance": 0.5},
    {"source": "", "text": "x", "confidence": 0.5, "relevance": 0.5},
    {"source": "context", "text": "x", "confidence": "high", "relevance": 0.5},
    ["not", "an", "object"],
])
def test_bad_candidates_are_rejected_with_a_message(bad) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError):
        candidate_from_dict(bad)


def test_search_hit_shape_and_unknown_source() -> None:
    c = candidate_from_dict({"source": "search", "hit_id": "search:1", "title": "Lens report",
                             "summary": "Voice preservation.", "score": 0.92})
    assert (c.text, c.raw_score, c.key) == ("Lens report: Voice preservation.", 0.92,
                                            "id:search:1")
    with pytest.raises(ValidationError, match="unknown source"):
        build_memory_set("g", None, [Candidate("rumours", "x", 1, 1)], APPENDIX)


def test_bad_config_rejected() -> None:
    with pytest.raises(ValidationError):
        build_memory_set("g", None, [], DeltaConfig((SourceConfig("a", "t", float("nan")),)))
    with pytest.raises(ValidationError):
        build_memory_set("g", None, [], DeltaConfig((SourceConfig("a", "t", 1.0),
                                                     SourceConfig("a", "t", 1.0))))


def test_bias_without_diff_prefers_big_sources_and_expands_query() -> None:
    _before, after, d = appendix_diff()
    bias = build_search_bias(after, None, query="artifact routing")
    assert bias.preferred_sources[0] == "search"
    assert "artifact" not in bias.query_expansions  # already in the query
    assert "lens" in bias.query_expansions
    assert not bias.should_rerun and not bias.should_stop
    # With the diff: investigate → rerun deep, the cause is not preferred yet.
    assert d.bias.should_rerun and d.bias.depth_hint == "deep"
    assert "search" not in d.bias.preferred_sources


def test_removed_and_weakened_classification() -> None:
    cfg = DeltaConfig(DEFAULT_SOURCES, normalize_weights=False)
    a = build_memory_set("g", None, [Candidate("context", "a", 1, 0.9),
                                     Candidate("context", "b", 1, 0.9)], cfg)
    b = build_memory_set("g", None, [Candidate("context", "a", 1, 0.5)], cfg)
    d = diff(a, b)
    kinds = {c.text: c.change_type for c in d.candidate_deltas}
    assert kinds == {"a": ChangeType.WEAKENED, "b": ChangeType.REMOVED}
    assert d.aggregate_score_delta < 0
    assert d.source_deltas[0].removed == 1 and d.source_deltas[0].weakened == 1
    # By hand (context weight 0.30, not normalised): before 0.27 + 0.27 = 0.54, after
    # 0.15; both candidates changed; only context in the after set.
    h = d.health
    assert h.volatility_score == 1.0 and h.dominance_score == 1.0
    assert h.drift_score == pytest.approx(0.39)
    assert h.risk_score == pytest.approx(0.35 + 0.30 + 0.20 * 0.39)
    assert h.status is HealthStatus.DANGEROUS and d.decision.action is Action.REJECT
    # evaluate_health on its own agrees with diff() (the same inputs, the same health).
    assert evaluate_health(a, b, d.candidate_deltas, False, 0.6) == h
