"""Delta contracts (core/delta/contracts.py): a diff's JSON summary key by key, the text
identity of a candidate, weight normalisation and the effective weights of a config."""

from __future__ import annotations

import hashlib

from memdesk.core.delta.contracts import (
    Action,
    Attribution,
    Candidate,
    CandidateDelta,
    ChangeType,
    Decision,
    DeltaConfig,
    DeltaDiff,
    Health,
    HealthStatus,
    SearchBias,
    SourceConfig,
    SourceDelta,
    normalize_weights,
    text_key,
)


def test_text_key_is_a_hash_of_the_normalised_text() -> None:
    expected = "h:" + hashlib.sha1(b"hello world").hexdigest()[:16]
    assert text_key("  Hello \n  WORLD ") == expected
    assert text_key("hello world") == expected
    assert len(expected) == 18
    assert text_key("héllo") == "h:" + hashlib.sha1("héllo".encode()).hexdigest()[:16]
    assert text_key("hello  world!") != expected
    assert Candidate("s", "Hello world", 1, 1).key == expected
    assert Candidate("s", "Hello world", 1, 1, candidate_id="7").key == "id:7"


def test_normalize_weights_sums_to_one_unless_nothing_is_positive() -> None:
    assert normalize_weights({"a": 1.0, "b": 3.0}) == {"a": 0.25, "b": 0.75}
    zero = {"a": 0.0, "b": 0.0}
    got = normalize_weights(zero)
    assert got == zero and got is not zero
    assert normalize_weights({"a": -1.0, "b": 0.5}) == {"a": -1.0, "b": 0.5}
    assert normalize_weights({}) == {}


def test_effective_weights_use_enabled_sources_normalised_if_asked() -> None:
    sources = (SourceConfig("a", "t", 1.0), SourceConfig("b", "t", 3.0),
               SourceConfig("off", "t", 4.0, enabled=False))
    assert DeltaConfig(sources).effective_weights() == {"a": 0.25, "b": 0.75}
    assert DeltaConfig(sources, normalize_weights=False).effective_weights() == {
        "a": 1.0, "b": 3.0}
    cfg = DeltaConfig(sources)
    assert cfg.source("b") == SourceConfig("b", "t", 3.0)
    assert cfg.source("off").enabled is False
    assert cfg.source("nope") is None


def test_a_diff_to_json_names_every_figure() -> None:
    d = DeltaDiff(
        before_id="A", after_id="B", before_dominant_source="ctx", after_dominant_source="web",
        changed_top_candidate=True, changed_dominant_source=True, aggregate_score_delta=0.5,
        candidate_deltas=[
            CandidateDelta("k1", "web", "new text", 0.0, 0.75, 0.75, ChangeType.ADDED, 0.0, 1.0),
            CandidateDelta("k2", "ctx", "old text", 0.25, 0.25, 0.0, ChangeType.UNCHANGED),
        ],
        source_deltas=[SourceDelta("web", 0.0, 0.75, 0.75, 0.0, 0.6, 1, 0, 0, 0)],
        attribution=Attribution({"web": 1.0}, "web", "k1"),
        health=Health(0.6, 0.5, 0.4, 0.0, 0.9, 0.45, HealthStatus.SUSPICIOUS,
                      ("high_memory_volatility",)),
        decision=Decision(Action.DAMPEN, "why", "web", {"web": -0.15}, ("recompose",)),
        bias=SearchBias(("ctx",), ("web",), ("word",), ("flood",), "normal", False, False,
                        "because"),
    )
    assert d.to_json() == {
        "before_id": "A", "after_id": "B",
        "before_dominant_source": "ctx", "after_dominant_source": "web",
        "changed_top_candidate": True, "changed_dominant_source": True,
        "aggregate_score_delta": 0.5,
        "candidate_deltas": [
            {"key": "k1", "source": "web", "text": "new text", "change_type": "added",
             "before_score": 0.0, "after_score": 0.75, "delta": 0.75},
            {"key": "k2", "source": "ctx", "text": "old text", "change_type": "unchanged",
             "before_score": 0.25, "after_score": 0.25, "delta": 0.0},
        ],
        "source_deltas": [{"source": "web", "before_total": 0.0, "after_total": 0.75,
                           "weighted_score_delta": 0.75, "before_share": 0.0,
                           "after_share": 0.6, "added": 1, "removed": 0, "strengthened": 0,
                           "weakened": 0}],
        "attribution": {"source_influence": {"web": 1.0}, "primary_cause_source": "web",
                        "primary_cause_candidate": "k1"},
        "health": {"dominance_score": 0.6, "volatility_score": 0.5, "drift_score": 0.4,
                   "contradiction_score": 0.0, "confidence_score": 0.9, "risk_score": 0.45,
                   "status": "suspicious", "warnings": ["high_memory_volatility"]},
        "decision": {"action": "dampen", "reason": "why", "source_to_review": "web",
                     "recommended_weight_adjustments": {"web": -0.15},
                     "recommended_followup_checks": ["recompose"]},
        "search_bias": {"preferred_sources": ("ctx",), "suppressed_sources": ("web",),
                        "query_expansions": ("word",), "query_suppressions": ("flood",),
                        "depth_hint": "normal", "should_rerun": False, "should_stop": False,
                        "reason": "because"},
    }
    assert type(d.to_json()["health"]["warnings"]) is list
    assert type(d.to_json()["decision"]["recommended_followup_checks"]) is list
    assert d.changed is True
    assert [c.key for c in d.contribution_deltas] == ["k1"]
