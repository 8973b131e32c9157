"""Delta memory input rules at their edges: which field a refusal names and what it says,
which key of a search hit wins, and the dominance share of an empty aggregate."""

from __future__ import annotations

import pytest

from memdesk.core.delta.compose import candidate_from_dict, check_candidate, check_config, dominance
from memdesk.core.delta.config import check_source_fields, check_weight
from memdesk.core.delta.contracts import Candidate, DeltaConfig, SourceConfig
from memdesk.core.errors import ValidationError


def test_a_candidate_that_is_not_an_object_is_refused_by_name() -> None:
    with pytest.raises(ValidationError) as e:
        candidate_from_dict(["text"], "search")
    assert e.value.field == "candidate"
    assert str(e.value) == "candidate: must be an object, got list"


def test_raw_score_wins_over_a_search_hit_score() -> None:
    both = candidate_from_dict({"text": "t", "raw_score": 0.4, "score": 0.9}, "search")
    assert both.raw_score == 0.4
    only_raw = candidate_from_dict({"text": "t", "raw_score": 0.3}, "search")
    assert (only_raw.raw_score, only_raw.confidence, only_raw.relevance) == (0.3, 1.0, 1.0)
    hit = candidate_from_dict({"title": "A", "summary": "B", "score": 0.7}, "search")
    assert (hit.text, hit.raw_score) == ("A: B", 0.7)
    with pytest.raises(ValidationError) as e:
        candidate_from_dict({"text": "t", "raw_score": 1.5}, "search")
    assert str(e.value) == "raw_score: must be in [0, 1], got 1.5"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"confidence": 1.5, "relevance": 0.5}, "confidence: must be in [0, 1], got 1.5"),
    ({"confidence": 0.5, "relevance": -0.25}, "relevance: must be in [0, 1], got -0.25"),
    ({"confidence": 0.5, "relevance": 0.5, "raw_score": 2},
     "raw_score: must be in [0, 1], got 2.0"),
])
def test_check_candidate_names_the_bad_score(kwargs: dict, message: str) -> None:
    with pytest.raises(ValidationError) as e:
        check_candidate(Candidate("search", "some text", **kwargs))
    assert str(e.value) == message
    assert e.value.field == message.split(":")[0]


def test_check_candidate_returns_a_good_candidate_unchanged() -> None:
    c = Candidate("search", "some text", 0.5, 0.25, raw_score=0.75)
    assert check_candidate(c) is c


def test_a_negative_top_k_is_refused_as_top_k() -> None:
    cfg = DeltaConfig((SourceConfig("lens", "search_memory", 0.5, top_k=-1),))
    with pytest.raises(ValidationError) as e:
        check_config(cfg)
    assert e.value.field == "top_k"
    assert str(e.value) == "top_k: lens: must be >= 0 (0 means no limit)"


def test_dominance_of_an_all_zero_aggregate_is_a_zero_share() -> None:
    assert dominance({"b": 0.0, "a": 0.0}, 0.0) == ("a", 0.0)
    assert dominance({"b": 3.0, "a": 1.0}, 4.0) == ("b", 0.75)
    assert dominance({}, 0.0) == (None, None)


def test_an_unknown_source_setting_is_refused_by_its_name() -> None:
    with pytest.raises(ValidationError) as e:
        check_source_fields({"colour": "red"})
    assert e.value.field == "colour"
    assert str(e.value) == "colour: is not a source setting"


@pytest.mark.parametrize("bad", [100.5, -1, float("inf")])
def test_a_weight_out_of_range_is_refused_as_weight(bad: float) -> None:
    with pytest.raises(ValidationError) as e:
        check_weight(bad)
    assert e.value.field == "weight"
    assert str(e.value) == f"weight: must be between 0 and 100, got {bad!r}"
    assert check_weight(100) == 100.0 and check_weight(0) == 0.0


def test_bias_without_a_previous_state_keeps_five_expansions_and_suppresses_nothing() -> None:
    from memdesk.core.delta.bias import build_search_bias
    from memdesk.core.delta.compose import build_memory_set

    cfg = DeltaConfig((SourceConfig("lens", "search_memory", 1.0),))
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]
    # "alpha" is in every text, "bravo" in all but one, ...: frequencies 7, 6, 5, ... 1.
    texts = [" ".join(words[:k]) for k in range(7, 0, -1)]
    ms = build_memory_set("g", "golf", [Candidate("lens", t, 1, 1) for t in texts], cfg)
    bias = build_search_bias(ms)
    assert bias.query_expansions == ("alpha", "bravo", "charlie", "delta", "echo")
    assert bias.suppressed_sources == () and bias.query_suppressions == ()
    assert bias.preferred_sources == ("lens",)
    assert (bias.depth_hint, bias.should_rerun, bias.should_stop) == ("normal", False, False)
    assert bias.reason == "no previous memory state to compare with"
