"""Composing a memory set (core/delta/compose.py) field by field: which key of a JSON
candidate wins, each refusal's field and message, the confidence threshold and top-k at
their bounds, one contribution per identity, every figure of a source report, shares and
the dominant source.

Rules from compose.py's docstring: original = raw_score or relevance × confidence,
weighted = weight × original; a source keeps candidates with confidence >= its threshold,
its top-k by weighted score (0: no limit); disabled sources contribute nothing; the
dominant source has the largest weighted total and the ratio is its share.  Figures are
chosen to be exact in binary floating point and worked out by hand."""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.core.delta.compose import (
    build_memory_set,
    candidate_from_dict,
    check_candidate,
    check_config,
)
from memdesk.core.delta.contracts import Candidate, DeltaConfig, SourceConfig, SourceReport
from memdesk.core.errors import ValidationError

PLAIN = DeltaConfig((SourceConfig("a", "ta", 1.0), SourceConfig("b", "tb", 0.5)),
                    normalize_weights=False)


def refused(call, *args, **kw) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError) as e:
        call(*args, **kw)
    assert str(e.value).startswith(e.value.field + ": ")
    return str(e.value)


# -- candidate_from_dict --------------------------------------------------------------------

def test_a_full_candidate_keeps_every_field() -> None:
    c = candidate_from_dict({
        "source": " search ", "text": "Lens works", "confidence": 0.5, "relevance": 0.25,
        "id": 42, "provenance": {"k": "v"}, "entity": "user", "attribute": 7, "value": "Go",
    }, "ignored")
    assert c == Candidate("search", "Lens works", 0.5, 0.25, None, "42", {}, "user", "7", "Go")
    assert c.provenance == {"k": "v"}
    assert c.key == "id:42"


def test_the_source_argument_is_used_when_the_dict_names_none() -> None:
    c = candidate_from_dict({"text": "t", "confidence": 1, "relevance": 1}, "search")
    assert (c.source, c.candidate_id, c.entity, c.attribute, c.value, c.raw_score) == (
        "search", None, None, None, None, None)
    assert c.provenance == {}


@pytest.mark.parametrize("data", [
    {"text": "t", "confidence": 1, "relevance": 1},
    {"source": "   ", "text": "t", "confidence": 1, "relevance": 1},
    {"source": 3, "text": "t", "confidence": 1, "relevance": 1},
    {"source": None, "text": "t", "confidence": 1, "relevance": 1},
])
def test_a_candidate_without_a_source_name_is_refused(data: dict) -> None:
    assert refused(candidate_from_dict, data) == "source: every candidate needs a source name"


@pytest.mark.parametrize(("data", "text"), [
    ({"title": "A", "summary": "B"}, "A: B"),
    ({"title": "A"}, "A"),
    ({"summary": "B"}, "B"),
    ({"title": "", "summary": "B"}, "B"),
    ({"title": 5, "summary": None}, "5"),
    ({"text": "own", "title": "A", "summary": "B"}, "own"),
])
def test_a_search_hit_text_is_title_and_summary(data: dict, text: str) -> None:
    c = candidate_from_dict({**data, "score": 0.5}, "s")
    assert c.text == text
    assert (c.raw_score, c.confidence, c.relevance) == (0.5, 1.0, 1.0)


def test_a_candidate_without_any_text_is_refused() -> None:
    assert refused(candidate_from_dict, {"confidence": 1, "relevance": 1}, "s") == (
        "text: must be text, got NoneType")
    assert refused(candidate_from_dict, {"title": "", "summary": "", "score": 1}, "s") == (
        "text: must not be empty")


def test_without_a_raw_score_confidence_and_relevance_are_required() -> None:
    assert refused(candidate_from_dict, {"text": "t", "relevance": 1}, "s") == (
        "confidence: must be a number in [0, 1], got None")
    assert refused(candidate_from_dict, {"text": "t", "confidence": 1}, "s") == (
        "relevance: must be a number in [0, 1], got None")
    assert refused(candidate_from_dict, {"text": "t", "score": 2}, "s") == (
        "raw_score: must be in [0, 1], got 2.0")


def test_a_raw_score_with_its_own_confidence_keeps_both() -> None:
    c = candidate_from_dict({"text": "t", "score": 0.5, "confidence": 0.25, "relevance": 0.75},
                            "s")
    assert (c.raw_score, c.confidence, c.relevance) == (0.5, 0.25, 0.75)
    zero = candidate_from_dict({"text": "t", "raw_score": 0}, "s")
    assert (zero.raw_score, zero.confidence, zero.relevance) == (0.0, 1.0, 1.0)


@pytest.mark.parametrize(("ids", "expected"), [
    ({"id": "i", "hit_id": "h", "memory_id": "m"}, "i"),
    ({"hit_id": "h", "memory_id": "m"}, "h"),
    ({"memory_id": "m"}, "m"),
    ({"memory_id": 9}, "9"),
])
def test_the_candidate_id_is_id_then_hit_id_then_memory_id(ids: dict, expected: str) -> None:
    c = candidate_from_dict({"text": "t", "score": 1, **ids}, "s")
    assert c.candidate_id == expected


def test_provenance_must_be_an_object_and_is_copied() -> None:
    assert refused(candidate_from_dict, {"text": "t", "score": 1, "provenance": [1]}, "s") == (
        "provenance: must be an object")
    prov = {"url": "u"}
    c = candidate_from_dict({"text": "t", "score": 1, "provenance": prov}, "s")
    assert c.provenance == {"url": "u"} and c.provenance is not prov


def test_a_mapping_subclass_is_accepted_and_other_types_are_named() -> None:
    from collections import OrderedDict

    c = candidate_from_dict(OrderedDict(text="t", score=1), "s")
    assert c.text == "t"
    assert refused(candidate_from_dict, "text", "s") == "candidate: must be an object, got str"


def test_check_candidate_refuses_empty_text() -> None:
    assert refused(check_candidate, Candidate("s", "  ", 1, 1)) == "text: must not be empty"


# -- check_config ---------------------------------------------------------------------------

@pytest.mark.parametrize(("sources", "dominance", "message"), [
    ((SourceConfig("", "t", 1.0),), 0.6, "source: source names must not be empty"),
    ((SourceConfig("  ", "t", 1.0),), 0.6, "source: source names must not be empty"),
    ((SourceConfig("a", "t", 1.0), SourceConfig("b", "t", 1.0), SourceConfig("a", "t", 2.0)),
     0.6, "source: source 'a' is configured twice"),
    ((SourceConfig("a", "t", True),), 0.6, "weight: a: must be a finite number >= 0"),
    ((SourceConfig("a", "t", float("nan")),), 0.6, "weight: a: must be a finite number >= 0"),
    ((SourceConfig("a", "t", float("inf")),), 0.6, "weight: a: must be a finite number >= 0"),
    ((SourceConfig("a", "t", -0.5),), 0.6, "weight: a: must be a finite number >= 0"),
    ((SourceConfig("a", "t", 1.0, confidence_threshold=1.5),), 0.6,
     "confidence_threshold: must be in [0, 1], got 1.5"),
    ((SourceConfig("a", "t", 1.0),), 2, "dominance_threshold: must be in [0, 1], got 2.0"),
])
def test_check_config_refusals(sources: tuple, dominance: float, message: str) -> None:
    cfg = DeltaConfig(sources, dominance_threshold=dominance)
    assert refused(check_config, cfg) == message
    assert refused(build_memory_set, "g", None, [], cfg) == message


def test_check_config_accepts_the_bounds() -> None:
    cfg = DeltaConfig((SourceConfig("a", "t", 0.0, top_k=0, confidence_threshold=1.0),),
                      dominance_threshold=0.0)
    assert check_config(cfg) is cfg
    ok = DeltaConfig((SourceConfig("a", "t", 1.0, confidence_threshold=0.0),),
                     dominance_threshold=1.0)
    assert check_config(ok) is ok


# -- build_memory_set -----------------------------------------------------------------------

def test_the_goal_must_be_text() -> None:
    assert refused(build_memory_set, "  ", None, [], PLAIN) == "goal: must not be empty"


def test_an_unknown_source_is_refused_listing_the_configured_ones() -> None:
    assert refused(build_memory_set, "g", None, [Candidate("x", "t", 1, 1)], PLAIN) == (
        "source: unknown source 'x'; configured: a, b")
    ms = build_memory_set("g", None, [Candidate("x", "t", 1, 1), Candidate("a", "t", 1, 1)],
                          PLAIN, strict=False)
    assert [(c.source, c.text) for c in ms.contributions] == [("a", "t")]
    assert [r.offered for r in ms.source_reports] == [1, 0]


def test_a_bad_candidate_is_refused_while_composing() -> None:
    assert refused(build_memory_set, "g", None, [Candidate("a", "t", 1.5, 1)], PLAIN) == (
        "confidence: must be in [0, 1], got 1.5")


def test_every_field_of_the_set_and_its_contributions() -> None:
    at = datetime(2026, 1, 2, 3)
    cands = {"a": [Candidate("a", "alpha", 0.5, 0.5, provenance={"p": 1}, entity="e",
                             attribute="at", value="v", candidate_id="c1")],
             "b": [Candidate("b", "beta", 1.0, 0.25, raw_score=0.5)]}
    ms = build_memory_set("goal", "query", cands, PLAIN, label="L", created_at=at,
                          set_id="S1")
    assert (ms.id, ms.goal, ms.query, ms.label, ms.created_at) == ("S1", "goal", "query", "L",
                                                                    at)
    assert ms.weights == {"a": 1.0, "b": 0.5}
    alpha, beta = ms.contributions
    assert (alpha.key, alpha.source, alpha.text, alpha.confidence, alpha.relevance,
            alpha.raw_score, alpha.original_score, alpha.source_weight, alpha.weighted_score,
            alpha.provenance, alpha.entity, alpha.attribute, alpha.value) == (
        "id:c1", "a", "alpha", 0.5, 0.5, None, 0.25, 1.0, 0.25, {"p": 1}, "e", "at", "v")
    # raw score 0.5 wins over 1.0 × 0.25; weighted 0.5 × 0.5.
    assert (beta.original_score, beta.source_weight, beta.weighted_score, beta.raw_score) == (
        0.5, 0.5, 0.25, 0.5)
    assert ms.aggregate_score == 0.5
    assert ms.source_reports == [
        SourceReport("a", "ta", 1.0, True, 1, 1, 0, 0, 0.25, 0.5, 0.5),
        SourceReport("b", "tb", 0.5, True, 1, 1, 0, 0, 0.25, 0.5, 1.0),
    ]
    assert (ms.dominant_source, ms.dominance_ratio) == ("a", 0.5)  # tie: first name


def test_a_set_gets_a_fresh_id_and_time_when_none_is_given() -> None:
    one = build_memory_set("g", None, [], PLAIN)
    two = build_memory_set("g", None, [], PLAIN)
    assert one.id and one.id != two.id
    assert isinstance(one.created_at, datetime)
    assert (one.label, one.query) == ("", None)


def test_normalised_weights_are_used_and_recorded() -> None:
    cfg = DeltaConfig((SourceConfig("a", "t", 3.0), SourceConfig("b", "t", 1.0)))
    ms = build_memory_set("g", None, [Candidate("a", "x", 1, 1), Candidate("b", "y", 1, 1)],
                          cfg)
    assert ms.weights == {"a": 0.75, "b": 0.25}
    assert [(c.text, c.source_weight, c.weighted_score) for c in ms.contributions] == [
        ("x", 0.75, 0.75), ("y", 0.25, 0.25)]
    assert [r.weight for r in ms.source_reports] == [0.75, 0.25]
    assert [r.share for r in ms.source_reports] == [0.75, 0.25]
    assert (ms.dominant_source, ms.dominance_ratio) == ("a", 0.75)


def test_a_disabled_source_is_reported_with_its_offer_and_nothing_else() -> None:
    cfg = DeltaConfig((SourceConfig("a", "ta", 1.0),
                       SourceConfig("off", "toff", 5.0, enabled=False)), normalize_weights=False)
    ms = build_memory_set("g", None, [Candidate("off", "x", 1, 1), Candidate("off", "y", 1, 1),
                                      Candidate("a", "z", 0.5, 1)], cfg)
    assert [c.text for c in ms.contributions] == ["z"]
    assert ms.source_reports[1] == SourceReport("off", "toff", 0.0, False, 2, 0, 0, 0, 0.0, 0.0,
                                                0.0)
    assert (ms.dominant_source, ms.dominance_ratio) == ("a", 1.0)


def test_the_confidence_threshold_keeps_candidates_at_it() -> None:
    cfg = DeltaConfig((SourceConfig("a", "t", 1.0, confidence_threshold=0.5),),
                      normalize_weights=False)
    ms = build_memory_set("g", None, [Candidate("a", "at", 0.5, 1),
                                      Candidate("a", "below", 0.4375, 1),
                                      Candidate("a", "above", 0.75, 1)], cfg)
    assert [c.text for c in ms.contributions] == ["above", "at"]
    r = ms.source_reports[0]
    assert (r.offered, r.kept, r.below_threshold, r.over_top_k) == (3, 2, 1, 0)
    assert r.weighted_total == 1.25 and r.mean_confidence == 0.625


@pytest.mark.parametrize(("top_k", "kept", "over"), [(0, 3, 0), (2, 2, 1), (3, 3, 0),
                                                     (4, 3, 0), (1, 1, 2)])
def test_top_k_cuts_the_weakest_and_counts_them(top_k: int, kept: int, over: int) -> None:
    cfg = DeltaConfig((SourceConfig("a", "t", 1.0, top_k=top_k),), normalize_weights=False)
    ms = build_memory_set("g", None, [Candidate("a", "low", 1, 0.25),
                                      Candidate("a", "high", 1, 1.0),
                                      Candidate("a", "mid", 1, 0.5)], cfg)
    assert [c.text for c in ms.contributions] == ["high", "mid", "low"][:kept]
    r = ms.source_reports[0]
    assert (r.kept, r.over_top_k, r.offered) == (kept, over, 3)
    assert r.weighted_total == [1.0, 1.5, 1.75][kept - 1]


def test_equal_scores_are_ordered_by_key() -> None:
    ms = build_memory_set("g", None, [Candidate("a", "t", 1, 1, candidate_id="z"),
                                      Candidate("a", "t", 1, 1, candidate_id="m")], PLAIN)
    assert [c.key for c in ms.contributions] == ["id:m", "id:z"]


def test_one_contribution_per_identity_the_strongest_and_the_first_on_a_tie() -> None:
    ms = build_memory_set("g", None, [
        Candidate("a", "weak", 1, 0.25, candidate_id="k"),
        Candidate("a", "strong", 1, 0.5, candidate_id="k"),
        Candidate("a", "equal", 1, 0.5, candidate_id="k"),
        Candidate("b", "other source", 1, 1, candidate_id="k"),
    ], PLAIN)
    assert [(c.source, c.text) for c in ms.contributions] == [("a", "strong"),
                                                              ("b", "other source")]
    r = ms.source_reports[0]
    assert (r.offered, r.kept) == (3, 1)


def test_shares_and_dominance_ignore_sources_that_kept_nothing() -> None:
    ms = build_memory_set("g", None, [Candidate("b", "only b", 1, 1)], PLAIN)
    assert [r.share for r in ms.source_reports] == [0.0, 1.0]
    assert (ms.dominant_source, ms.dominance_ratio) == ("b", 1.0)
    assert ms.source_reports[0] == SourceReport("a", "ta", 1.0, True, 0, 0, 0, 0, 0.0, 0.0, 0.0)


def test_an_empty_set_has_no_dominant_source() -> None:
    ms = build_memory_set("g", None, [], PLAIN)
    assert (ms.aggregate_score, ms.dominant_source, ms.dominance_ratio) == (0.0, None, None)
    assert ms.contributions == []


def test_zero_scores_give_zero_shares_and_a_zero_ratio() -> None:
    ms = build_memory_set("g", None, [Candidate("b", "z", 0, 1)], PLAIN)
    assert ms.aggregate_score == 0.0
    assert [r.share for r in ms.source_reports] == [0.0, 0.0]
    assert (ms.dominant_source, ms.dominance_ratio) == ("b", 0.0)


def test_the_largest_total_dominates_whatever_its_name() -> None:
    ms = build_memory_set("g", None, [Candidate("a", "x", 1, 0.25),
                                      Candidate("b", "y", 1, 1.0)], PLAIN)
    # a: 1.0 × 0.25 = 0.25; b: 0.5 × 1.0 = 0.5; aggregate 0.75.
    assert ms.dominant_source == "b"
    assert ms.dominance_ratio == pytest.approx(2 / 3)
    assert [r.share for r in ms.source_reports] == [pytest.approx(1 / 3), pytest.approx(2 / 3)]
