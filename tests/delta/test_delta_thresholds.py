"""Delta-memory rules at their edges: the 0.35 / 0.70 risk thresholds, the 0.5
volatility warning, the unchanged tolerance, ``changed_top_candidate``, dampening never
below 0, a healthy diff refused for review, the search-bias stop thresholds and query
suppressions, and value normalisation in the contradiction score.

Expected figures are worked out by hand from the rules in core/delta/*.py docstrings
(the delta-memory design), not computed by the functions under test."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from memdesk.core.delta.bias import build_search_bias
from memdesk.core.delta.compose import build_memory_set
from memdesk.core.delta.contracts import (
    Action,
    Candidate,
    ChangeType,
    DeltaConfig,
    Health,
    HealthStatus,
    SourceConfig,
    Warning_,
    text_key,
)
from memdesk.core.delta.decision import decide
from memdesk.core.delta.diff import diff
from memdesk.core.delta.health import (
    classify,
    contradiction_score,
    drift_score,
    evaluate_health,
    risk_score,
)
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.errors import ValidationError
from tests.helpers.delta import flagged

# Plain weights (not normalised): weighted score = weight × relevance × confidence.
ONE = DeltaConfig((SourceConfig("a", "t", 1.0), SourceConfig("b", "t", 1.0),
                   SourceConfig("c", "t", 1.0)), normalize_weights=False)


def ms(*cands: Candidate, cfg: DeltaConfig = ONE):  # type: ignore[no-untyped-def]
    return build_memory_set("g", None, list(cands), cfg)


def c(source: str, text: str, score: float = 1.0, **kw) -> Candidate:  # type: ignore[no-untyped-def]
    return Candidate(source, text, 1.0, 1.0, raw_score=score, **kw)


# -- health thresholds -------------------------------------------------------------------

@pytest.mark.parametrize(("risk", "status"), [
    (0.0, HealthStatus.HEALTHY),
    (0.3499999, HealthStatus.HEALTHY),
    (0.35, HealthStatus.SUSPICIOUS),
    (0.6999999, HealthStatus.SUSPICIOUS),
    (0.70, HealthStatus.DANGEROUS),
    (1.0, HealthStatus.DANGEROUS),
])
def test_classify_at_the_thresholds(risk: float, status: HealthStatus) -> None:
    assert classify(risk) is status


def test_risk_weights_one_by_one() -> None:
    assert risk_score(1, 0, 0, 0) == pytest.approx(0.35)
    assert risk_score(0, 1, 0, 0) == pytest.approx(0.30)
    assert risk_score(0, 0, 1, 0) == pytest.approx(0.20)
    assert risk_score(0, 0, 0, 1) == pytest.approx(0.15)
    assert risk_score(1, 1, 1, 1) == pytest.approx(1.0)
    # Exactly at the thresholds through the formula: dominance 1 alone is suspicious.
    assert classify(risk_score(1, 0, 0, 0)) is HealthStatus.SUSPICIOUS
    assert classify(risk_score(1, 1, 0.25, 0)) is HealthStatus.DANGEROUS  # 0.35+0.30+0.05


def test_drift_is_scaled_only_above_one() -> None:
    assert drift_score(0.2, 0.5) == pytest.approx(0.3)  # max(1, …) = 1: the seed's |Δ|
    assert drift_score(0.5, 0.2) == pytest.approx(0.3)
    assert drift_score(1.0, 3.0) == pytest.approx(2 / 3)  # divided by the larger aggregate
    assert drift_score(4.0, 0.0) == pytest.approx(1.0)
    assert drift_score(0.7, 0.7) == 0.0


def test_volatility_warning_at_exactly_half() -> None:
    before = ms(c("a", "x", 0.5), c("a", "y", 0.5))
    half = diff(before, ms(c("a", "x", 0.5), c("a", "y", 0.6)))
    assert half.health.volatility_score == 0.5
    assert "high_memory_volatility" in half.health.warnings
    third = diff(ms(c("a", "x", 0.5), c("a", "y", 0.5), c("a", "z", 0.5)),
                 ms(c("a", "x", 0.5), c("a", "y", 0.5), c("a", "z", 0.6)))
    assert third.health.volatility_score == pytest.approx(1 / 3)
    assert "high_memory_volatility" not in third.health.warnings


def test_dominance_warning_is_strictly_above_the_threshold() -> None:
    # After: a holds 0.6 of 1.0, exactly the threshold: no warning; 0.61 → warning.
    before = ms(c("a", "x", 0.5), c("b", "y", 0.5))
    at = diff(before, ms(c("a", "x", 0.6), c("b", "y", 0.4)), dominance_threshold=0.6)
    assert at.health.dominance_score == pytest.approx(0.6)
    assert "memory_source_dominance_detected" not in at.health.warnings
    above = diff(before, ms(c("a", "x", 0.61), c("b", "y", 0.39)), dominance_threshold=0.6)
    assert "memory_source_dominance_detected" in above.health.warnings


def test_nothing_changed_means_no_dominance_drift_or_warning() -> None:
    one_source = ms(c("a", "x"), c("a", "y"))
    d = diff(one_source, ms(c("a", "y"), c("a", "x")))
    h = d.health
    assert (h.dominance_score, h.volatility_score, h.drift_score, h.risk_score) == (0, 0, 0, 0)
    assert h.warnings == () and h.status is HealthStatus.HEALTHY
    assert h.confidence_score == 1.0  # reported even when nothing moved


def test_confidence_score_is_the_mean_after_confidence() -> None:
    after = build_memory_set("g", None, [Candidate("a", "x", 0.2, 1.0),
                                         Candidate("a", "y", 0.6, 1.0)], ONE)
    h = evaluate_health(ms(), after, diff(ms(), after).candidate_deltas, False, 0.6)
    assert h.confidence_score == pytest.approx(0.4)
    assert evaluate_health(ms(), ms(), [], False, 0.6).confidence_score == 0.0


# -- change classification ----------------------------------------------------------------

def test_unchanged_tolerance() -> None:
    """Float noise under 1e-12 of weighted score is no change; anything above is."""
    base = ms(c("a", "x", 0.5))
    noise = diff(base, ms(c("a", "x", 0.5 + 1e-13)))
    [d] = noise.candidate_deltas
    assert d.change_type is ChangeType.UNCHANGED and d.delta == 0.0
    assert noise.health.status is HealthStatus.HEALTHY and not noise.changed
    real = diff(base, ms(c("a", "x", 0.5 + 1e-9)))
    assert real.candidate_deltas[0].change_type is ChangeType.STRENGTHENED
    assert real.candidate_deltas[0].delta == pytest.approx(1e-9)
    down = diff(base, ms(c("a", "x", 0.5 - 1e-9)))
    assert down.candidate_deltas[0].change_type is ChangeType.WEAKENED


def test_deltas_are_sorted_largest_change_first() -> None:
    d = diff(ms(c("a", "x", 0.5), c("a", "y", 0.5), c("a", "gone", 0.3)),
             ms(c("a", "x", 0.6), c("a", "y", 0.1), c("a", "new", 0.2)))
    assert [(x.text, round(x.delta, 6)) for x in d.candidate_deltas] == [
        ("y", -0.4), ("gone", -0.3), ("new", 0.2), ("x", 0.1)]
    assert [x.change_type for x in d.candidate_deltas] == [
        ChangeType.WEAKENED, ChangeType.REMOVED, ChangeType.ADDED, ChangeType.STRENGTHENED]
    assert d.attribution.primary_cause_candidate == d.candidate_deltas[0].key


def test_changed_top_candidate() -> None:
    before = ms(c("a", "x", 0.9), c("b", "y", 0.5))
    # Scores move but x stays on top: not a top change.
    assert not diff(before, ms(c("a", "x", 0.8), c("b", "y", 0.6))).changed_top_candidate
    # y overtakes x.
    assert diff(before, ms(c("a", "x", 0.5), c("b", "y", 0.6))).changed_top_candidate
    # Same text from another source on top is another candidate.
    assert diff(before, ms(c("b", "x", 0.95), c("a", "x", 0.9))).changed_top_candidate
    # From or to an empty set.
    assert diff(ms(), before).changed_top_candidate
    assert diff(before, ms()).changed_top_candidate
    assert not diff(ms(), ms()).changed_top_candidate


def test_source_deltas_count_each_kind() -> None:
    d = diff(ms(c("a", "x", 0.5), c("a", "y", 0.5), c("b", "z", 0.5)),
             ms(c("a", "x", 0.7), c("a", "w", 0.1), c("a", "v", 0.1), c("b", "z", 0.2)))
    got = {s.source: (s.added, s.removed, s.strengthened, s.weakened,
                      round(s.before_total, 6), round(s.after_total, 6),
                      round(s.weighted_score_delta, 6)) for s in d.source_deltas}
    # c is configured but offered nothing either time: not listed.
    assert got == {"a": (2, 1, 1, 0, 1.0, 0.9, -0.1), "b": (0, 0, 0, 1, 0.5, 0.2, -0.3)}
    shares = {s.source: (round(s.before_share, 4), round(s.after_share, 4))
              for s in d.source_deltas}
    assert shares == {"a": (0.6667, 0.8182), "b": (0.3333, 0.1818)}


def test_source_deltas_across_a_config_change() -> None:
    """A source configured only after the first snapshot: 0 before, its figures after."""
    old = DeltaConfig((SourceConfig("a", "t", 1.0),), normalize_weights=False)
    before = build_memory_set("g", None, [c("a", "x", 0.5)], old)
    after = build_memory_set("g", None, [c("a", "x", 0.5), c("c", "new", 0.5)], ONE)
    got = {s.source: (s.before_total, s.after_total, s.before_share, s.after_share, s.added)
           for s in diff(before, after).source_deltas}
    assert got == {"a": (0.5, 0.5, 1.0, 0.5, 0), "c": (0.0, 0.5, 0.0, 0.5, 1)}
    back = {s.source: (s.before_total, s.after_total, s.before_share, s.after_share, s.removed)
            for s in diff(after, before).source_deltas}
    assert back == {"a": (0.5, 0.5, 0.5, 1.0, 0), "c": (0.5, 0.0, 0.5, 0.0, 1)}


def test_attribution_shares_and_tie_break() -> None:
    d = diff(ms(c("a", "x", 0.5), c("b", "y", 0.5)), ms(c("a", "x", 0.8), c("b", "y", 0.8)))
    assert d.attribution.source_influence == pytest.approx({"a": 0.5, "b": 0.5})
    assert d.attribution.primary_cause_source == "a"  # a tie goes to the first name
    d = diff(ms(c("a", "x", 0.5), c("b", "y", 0.5)), ms(c("a", "x", 0.6), c("b", "y", 0.2)))
    assert d.attribution.source_influence == pytest.approx({"a": 0.25, "b": 0.75})
    assert d.attribution.primary_cause_source == "b"


# -- decisions ------------------------------------------------------------------------------

def _health(status: HealthStatus) -> Health:
    return Health(0, 0, 0, 0, 0, 0, status)


def test_decision_rules_in_order() -> None:
    assert decide("a", _health(HealthStatus.HEALTHY), True).action is Action.ACCEPT
    rej = decide("a", _health(HealthStatus.DANGEROUS), True)
    assert (rej.action, rej.source_to_review) == (Action.REJECT, "a")
    inv = decide("a", _health(HealthStatus.SUSPICIOUS), True)
    assert (inv.action, inv.source_to_review) == (Action.INVESTIGATE, "a")
    damp = decide("a", _health(HealthStatus.SUSPICIOUS), False)
    assert damp.action is Action.DAMPEN and damp.recommended_weight_adjustments == {"a": -0.15}
    assert damp.recommended_followup_checks == ("recompose_memory_after_weight_adjustment",)
    none = decide(None, _health(HealthStatus.SUSPICIOUS), False)
    assert none.action is Action.DAMPEN and none.recommended_weight_adjustments == {}
    assert none.recommended_followup_checks == () and none.source_to_review is None


# -- contradiction score ------------------------------------------------------------------

def tri(source: str, text: str, value: str, score: float = 1.0, *, entity: str = "user",
        attribute: str = "lang") -> Candidate:
    return c(source, text, score, entity=entity, attribute=attribute, value=value)


def test_contradiction_values_are_normalised() -> None:
    before = ms()
    same = diff(before, ms(tri("a", "x", "Go"), tri("b", "y", "  go "),
                           tri("c", "z", "GO", entity="User ", attribute=" LANG")))
    assert same.health.contradiction_score == 0.0
    assert "contradictory_memory_detected" not in same.health.warnings
    other = diff(before, ms(tri("a", "x", "Go", 0.75), tri("b", "y", "Rust", 0.25)))
    # The losing value holds 0.25 of an aggregate of 1.0.
    assert other.health.contradiction_score == pytest.approx(0.25)
    assert "contradictory_memory_detected" in other.health.warnings
    inner = diff(before, ms(tri("a", "x", "New  York", 0.5), tri("b", "y", "new york", 0.5)))
    assert inner.health.contradiction_score == 0.0


def test_contradiction_counts_only_groups_the_change_touched() -> None:
    old = ms(tri("a", "x", "Go", 0.75), tri("b", "y", "Rust", 0.25), c("c", "note", 0.5))
    untouched = diff(old, ms(tri("a", "x", "Go", 0.75), tri("b", "y", "Rust", 0.25),
                             c("c", "note", 0.9)))
    assert untouched.health.contradiction_score == 0.0
    touched = diff(old, ms(tri("a", "x", "Go", 0.75), tri("b", "y", "Rust", 0.5),
                           c("c", "note", 0.5)))
    assert touched.health.contradiction_score == pytest.approx(0.5 / 1.75)


def test_contradiction_score_edges() -> None:
    assert contradiction_score([], set(), 0.0) == 0.0
    d = ms(tri("a", "x", "Go"), tri("b", "y", "Rust"))
    keys = {(x.source, x.key) for x in d.contributions}
    assert contradiction_score(d.contributions, keys, 0.0) == 0.0  # no aggregate: no share
    assert contradiction_score(d.contributions, keys, 2.0) == pytest.approx(0.5)
    assert contradiction_score(d.contributions, keys, 0.5) == 1.0  # capped at 1
    no_value = ms(c("a", "x", entity="user", attribute="lang"), tri("b", "y", "Rust"))
    keys = {(x.source, x.key) for x in no_value.contributions}
    assert contradiction_score(no_value.contributions, keys, 2.0) == 0.0


# -- search bias ----------------------------------------------------------------------------

def _healthy_diff():  # type: ignore[no-untyped-def]
    d = diff(ms(c("a", "x", 0.5)), ms(c("a", "x", 0.5)))
    assert d.decision.action is Action.ACCEPT
    return d


@pytest.mark.parametrize(("volatility", "drift", "stop"), [
    (0.1, 0.05, True), (0.0, 0.0, True), (0.1000001, 0.0, False), (0.0, 0.0500001, False),
])
def test_search_bias_stop_thresholds(volatility: float, drift: float, stop: bool) -> None:
    d = _healthy_diff()
    d = replace(d, health=replace(d.health, volatility_score=volatility, drift_score=drift))
    bias = build_search_bias(ms(c("a", "x", 0.5)), d)
    assert bias.should_stop is stop and not bias.should_rerun
    assert bias.depth_hint == ("shallow" if stop else "normal")


def test_search_bias_never_stops_when_not_healthy() -> None:
    d = _healthy_diff()
    d = replace(d, health=replace(d.health, status=HealthStatus.SUSPICIOUS),
                attribution=replace(d.attribution, primary_cause_source="a"))
    d = replace(d, decision=decide("a", d.health, False))
    bias = build_search_bias(ms(c("a", "x", 0.5)), d)
    assert not bias.should_stop and bias.suppressed_sources == ("a",)
    assert "over-steered" in bias.reason


def test_query_suppressions_are_words_only_the_suppressed_source_brought() -> None:
    cfg = DeltaConfig((SourceConfig("flood", "t", 1.0), SourceConfig("calm", "t", 1.0)),
                      normalize_weights=False)
    base = [Candidate("flood", f"base {i}", 1, 1) for i in range(3)]
    base.append(Candidate("calm", "the task", 1, 1))
    before = build_memory_set("g", "kayak trips", base, cfg)
    after = build_memory_set("g", "kayak trips", [
        *base,
        Candidate("flood", "Lens report about kayak voice", 1, 1),
        Candidate("flood", "Lens report about semantic voice", 1, 1),
        Candidate("calm", "Semantic checklist review", 0.1, 1),
    ], cfg)
    d = diff(before, after)
    assert d.decision.action is Action.DAMPEN and d.bias.suppressed_sources == ("flood",)
    # Words of the flood's new candidates, minus stopwords ("about"), the query's words
    # ("kayak") and words a kept source also brought ("semantic"); most frequent first,
    # ties alphabetical.
    assert d.bias.query_suppressions == ("lens", "report", "voice")
    assert d.bias.query_expansions == ("checklist", "review", "semantic")
    assert "flood" not in d.bias.preferred_sources


def test_search_bias_rerun_on_dangerous_or_investigate() -> None:
    d = _healthy_diff()
    for status, changed in ((HealthStatus.DANGEROUS, False), (HealthStatus.SUSPICIOUS, True)):
        h = replace(d.health, status=status)
        dd = replace(d, health=h, decision=decide("a", h, changed))
        bias = build_search_bias(ms(c("a", "x", 0.5)), dd)
        assert bias.should_rerun and bias.depth_hint == "deep" and not bias.should_stop


# -- the review queue -------------------------------------------------------------------------

T0 = datetime(2026, 10, 1, 9)


def test_reviewing_a_healthy_diff_is_refused(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    cands = [Candidate("context", "the task", 1, 1)]
    dm.snapshot("g", None, cands, created_at=T0, use_database=False)
    calm = dm.snapshot("g", None, cands, created_at=T0 + timedelta(hours=1), use_database=False)
    assert calm.diff.health.status is HealthStatus.HEALTHY
    for action in ("accept", "dampen", "reject"):
        with pytest.raises(ValidationError, match="healthy, not flagged"):
            dm.review(calm.diff_id, action)
    assert dm.stored_diff(calm.diff_id).review == "none"
    assert dm.events() == [] and dm.queue() == []


@pytest.mark.parametrize(("weight", "after"), [(0.1, 0.0), (0.15, 0.0), (0.2, 0.05), (0.0, 0.0)])
def test_dampening_never_takes_a_weight_below_zero(store, weight: float, after: float) -> None:  # type: ignore[no-untyped-def]
    dm, diff_id = flagged(store)
    dm.set_source("search", weight=weight)
    dm.review(diff_id, "dampen")
    got = dm.config().source("search")
    assert got is not None and math.isclose(got.weight, after, abs_tol=1e-12)
    assert got.weight >= 0.0
    assert dm.stored_diff(diff_id).review == "dampened"


def test_formula_text_shows_every_figure() -> None:
    from memdesk.core.delta.health import formula_text

    h = Health(0.5, 0.25, 0.1, 0.0, 0.9, 0.27, HealthStatus.HEALTHY)
    assert formula_text(h) == (
        "risk = 0.35·0.500 + 0.30·0.250 + 0.20·0.100 + 0.15·0.000 = 0.270 → healthy "
        "(healthy < 0.35 ≤ suspicious < 0.7 ≤ dangerous)")


def test_every_field_of_a_candidate_delta() -> None:
    cfg = DeltaConfig((SourceConfig("a", "t", 0.5), SourceConfig("b", "t", 2.0)),
                      normalize_weights=False)
    before = build_memory_set("g", None, [c("a", "kept", 0.4), c("b", "gone", 0.1)], cfg)
    after = build_memory_set("g", None, [c("a", "kept", 0.8), c("a", "new", 0.3)], cfg)
    deltas = diff(before, after).candidate_deltas
    assert {d.text: (d.key, d.source) for d in deltas} == {
        "kept": (text_key("kept"), "a"), "new": (text_key("new"), "a"),
        "gone": (text_key("gone"), "b")}
    got = {d.text: (d.before_score, d.after_score, d.delta, d.change_type, d.before_weight,
                    d.after_weight, d.before_original, d.after_original) for d in deltas}
    assert got == {
        "kept": (pytest.approx(0.2), pytest.approx(0.4), pytest.approx(0.2),
                 ChangeType.STRENGTHENED, 0.5, 0.5, 0.4, 0.8),
        "new": (0.0, pytest.approx(0.15), pytest.approx(0.15), ChangeType.ADDED, None, 0.5,
                None, 0.3),
        "gone": (pytest.approx(0.2), 0.0, pytest.approx(-0.2), ChangeType.REMOVED, 2.0, None,
                 0.1, None),
    }


def test_decision_reasons_and_review_targets() -> None:
    h = _health
    assert decide("a", h(HealthStatus.HEALTHY), False).reason == "memory change appears stable"
    rej = decide("a", h(HealthStatus.DANGEROUS), False)
    assert rej.reason == "memory drift risk is too high"
    assert rej.recommended_weight_adjustments == {}
    inv = decide("a", h(HealthStatus.SUSPICIOUS), True)
    assert inv.reason == "dominant memory source changed" and inv.recommended_followup_checks == ()
    damp = decide("a", h(HealthStatus.SUSPICIOUS), False)
    assert damp.reason == "memory shift is suspicious but not dangerous"
    assert damp.source_to_review == "a"
    assert decide("a", h(HealthStatus.HEALTHY), False).source_to_review is None


def test_drift_divides_by_the_larger_aggregate_either_way() -> None:
    assert drift_score(3.0, 1.0) == pytest.approx(2 / 3)
    assert drift_score(1.0, 3.0) == pytest.approx(2 / 3)


def test_contradiction_groups_by_entity_and_attribute() -> None:
    other_entity = diff(ms(), ms(tri("a", "x", "Go"), tri("b", "y", "Rust", entity="bot")))
    assert other_entity.health.contradiction_score == 0.0
    other_attr = diff(ms(), ms(tri("a", "x", "Go"), tri("b", "y", "Rust", attribute="os")))
    assert other_attr.health.contradiction_score == 0.0


def test_contradiction_sums_members_and_groups() -> None:
    # Go has two members (0.5 + 0.5) and beats Rust (0.75): the loser holds 0.75 of 1.75.
    d = diff(ms(), ms(tri("a", "x", "Go", 0.5), tri("b", "y", "Go", 0.5),
                      tri("c", "z", "Rust", 0.75)))
    assert d.health.contradiction_score == pytest.approx(0.75 / 1.75)
    # Two groups: one agreeing (skipped), then two contradicting; losers add up.
    d = diff(ms(), ms(tri("a", "p", "x", 1.0, attribute="agree"),
                      tri("b", "q", "x", 1.0, attribute="agree"),
                      tri("a", "x", "Go", 1.0), tri("b", "y", "Rust", 0.5),
                      tri("a", "u", "mac", 1.0, attribute="os"),
                      tri("c", "v", "linux", 0.5, attribute="os")))
    assert d.health.contradiction_score == pytest.approx(1.0 / 5.0)


def test_emptied_set_and_single_candidate_health() -> None:
    gone = diff(ms(c("a", "x", 0.5)), ms())
    assert gone.health.dominance_score == 0.0  # no dominant source left
    assert gone.health.volatility_score == 1.0  # one of one changed
    one = diff(ms(c("a", "x", 0.5)), ms(c("a", "x", 0.6)))
    assert one.health.volatility_score == 1.0
    noise = diff(ms(c("a", "x", 0.5)), ms(c("a", "x", 0.5 + 1e-13)))
    assert noise.health.drift_score == 0.0


# -- survivors of the 2026-11-24 mutation run ----------------------------------------------

def test_an_unchanged_source_is_still_listed_with_its_totals() -> None:
    d = diff(ms(c("a", "x", 0.5), c("b", "y", 0.5)), ms(c("a", "x", 0.9), c("b", "y", 0.5)))
    got = {s.source: (s.added, s.removed, s.strengthened, s.weakened,
                      round(s.before_total, 6), round(s.after_total, 6)) for s in d.source_deltas}
    assert got == {"a": (0, 0, 1, 0, 0.5, 0.9), "b": (0, 0, 0, 0, 0.5, 0.5)}


def test_attribution_names_the_first_listed_change_unless_it_is_zero() -> None:
    from memdesk.core.delta.diff import attribute

    def delta(key: str, value: float):  # type: ignore[no-untyped-def]
        return replace(diff(ms(), ms(c("a", key))).candidate_deltas[0], key=key, delta=value)

    # Listed largest first by candidate_deltas(); given in another order, the first
    # non-zero change is still the top, and a zero first change gives way to the largest.
    assert attribute([delta("k1", 0.2), delta("k2", -0.7)]).primary_cause_candidate == "k1"
    assert attribute([delta("k0", 0.0), delta("k1", 0.2), delta("k2", -0.7)]
                     ).primary_cause_candidate == "k2"


def test_a_new_dominant_source_is_warned_about() -> None:
    before = ms(c("a", "x", 0.9), c("b", "y", 0.1))
    after = ms(c("a", "x", 0.1), c("b", "y", 0.9))
    assert Warning_.DOMINANCE_CHANGED.value in diff(before, after).health.warnings
    same = ms(c("a", "x", 0.8), c("b", "y", 0.1))
    assert Warning_.DOMINANCE_CHANGED.value not in diff(before, same).health.warnings


def test_an_emptied_set_is_not_called_dominated() -> None:
    d = diff(ms(c("a", "x", 0.9)), ms())  # a change, and no dominance ratio after it
    assert d.health.dominance_score == 0.0
    assert Warning_.SOURCE_DOMINANCE.value not in d.health.warnings


def test_an_untouched_old_disagreement_does_not_hide_a_touched_one() -> None:
    from memdesk.core.delta.health import contradiction_score

    after = ms(c("a", "Lives in Oslo.", 0.5, entity="user", attribute="city", value="Oslo"),
               c("a", "Lives in Rome.", 0.5, entity="user", attribute="city", value="Rome"),
               c("b", "Works at X.", 0.5, entity="user", attribute="job", value="X"),
               c("b", "Works at Y.", 0.5, entity="user", attribute="job", value="Y"))
    touched = {(x.source, x.key) for x in after.contributions if x.text == "Works at Y."}
    # Four equal contributions; only the job group was touched: one of four is losing.
    assert contradiction_score(after.contributions, touched, after.aggregate_score) == \
        pytest.approx(0.25)
