"""Search bias rules (core/delta/bias.py), one at a time on hand-made diffs: rerun, stop,
depth and reason; which sources are preferred or suppressed; which words expand or
suppress the next query, how many and in which order.

The rules are those listed in bias.py's docstring (the delta-memory design); words are 4+ letters,
not stopwords, not already in the query, counted once per text, most frequent first
with ties alphabetical, at most 5."""

from __future__ import annotations

import pytest

from memdesk.core.delta.bias import MAX_GROWN, build_search_bias
from memdesk.core.delta.compose import build_memory_set
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
)

CFG = DeltaConfig(tuple(SourceConfig(n, "t", 1.0, top_k=0) for n in "abcd"),
                  normalize_weights=False)


def mset(*cands: Candidate, query: str | None = None):  # type: ignore[no-untyped-def]
    return build_memory_set("g", query, list(cands), CFG)


EMPTY = mset()


def sd(source: str, delta: float) -> SourceDelta:
    return SourceDelta(source, 0.0, delta, delta, 0.0, 0.0, 0, 0, 0, 0)


def cd(source: str, text: str, kind: ChangeType = ChangeType.ADDED) -> CandidateDelta:
    return CandidateDelta(text, source, text, 0.0, 1.0, 1.0, kind)


def make(status: HealthStatus = HealthStatus.SUSPICIOUS, action: Action = Action.DAMPEN,
         cause: str | None = "a", volatility: float = 0.5, drift: float = 0.5,
         sources: tuple[SourceDelta, ...] = (),
         cands: tuple[CandidateDelta, ...] = ()) -> DeltaDiff:
    return DeltaDiff(
        before_id="A", after_id="B", before_dominant_source=None, after_dominant_source=None,
        changed_top_candidate=False, changed_dominant_source=False, aggregate_score_delta=0.0,
        candidate_deltas=list(cands), source_deltas=list(sources),
        attribution=Attribution({}, cause, None),
        health=Health(0.0, volatility, drift, 0.0, 1.0, 0.5, status),
        decision=Decision(action, "r"),
        bias=SearchBias((), (), (), (), "normal", False, False, ""),
    )


# -- rerun, stop, depth and reason ------------------------------------------------------------

@pytest.mark.parametrize(("status", "action", "cause", "flags", "reason"), [
    (HealthStatus.DANGEROUS, Action.REJECT, "a", (True, False, "deep"),
     "dangerous change (reject): search again, deeper"),
    (HealthStatus.SUSPICIOUS, Action.INVESTIGATE, "a", (True, False, "deep"),
     "suspicious change (investigate): search again, deeper"),
    (HealthStatus.DANGEROUS, Action.ACCEPT, None, (True, False, "deep"),
     "dangerous change (accept): search again, deeper"),
    (HealthStatus.SUSPICIOUS, Action.DAMPEN, "a", (False, False, "normal"),
     "a over-steered memory: search elsewhere"),
    (HealthStatus.SUSPICIOUS, Action.DAMPEN, None, (False, False, "normal"),
     "memory is still moving: keep searching normally"),
    (HealthStatus.HEALTHY, Action.ACCEPT, "a", (False, False, "normal"),
     "memory is still moving: keep searching normally"),
])
def test_rerun_depth_and_reason(status: HealthStatus, action: Action, cause: str | None,
                                flags: tuple, reason: str) -> None:
    bias = build_search_bias(EMPTY, make(status, action, cause))
    assert (bias.should_rerun, bias.should_stop, bias.depth_hint) == flags
    assert bias.reason == reason


def test_a_calm_healthy_change_stops_the_search() -> None:
    bias = build_search_bias(EMPTY, make(HealthStatus.HEALTHY, Action.ACCEPT, "a", 0.1, 0.05))
    assert (bias.should_rerun, bias.should_stop, bias.depth_hint) == (False, True, "shallow")
    assert bias.reason == "memory has stabilised: stop searching"
    investigate = make(HealthStatus.HEALTHY, Action.INVESTIGATE, "a", 0.0, 0.0)
    assert build_search_bias(EMPTY, investigate).should_stop is False


# -- sources ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("action", "suppressed"), [
    (Action.DAMPEN, ("a",)), (Action.REJECT, ("a",)), (Action.ACCEPT, ()),
    (Action.INVESTIGATE, ()),
])
def test_the_cause_is_suppressed_on_dampen_or_reject(action: Action, suppressed: tuple) -> None:
    bias = build_search_bias(EMPTY, make(action=action))
    assert bias.suppressed_sources == suppressed


def test_preferred_sources_grew_largest_first_without_cause_or_suppressed() -> None:
    deltas = (sd("d", 0.25), sd("a", 0.5), sd("b", 0.75), sd("c", 0.0), sd("e", -0.5))
    dampen = build_search_bias(EMPTY, make(action=Action.DAMPEN, sources=deltas))
    assert dampen.preferred_sources == ("b", "d")
    investigate = build_search_bias(EMPTY, make(action=Action.INVESTIGATE, sources=deltas))
    assert investigate.preferred_sources == ("b", "d")  # the cause only once accepted
    accept = build_search_bias(EMPTY, make(HealthStatus.HEALTHY, Action.ACCEPT, sources=deltas))
    assert accept.preferred_sources == ("b", "a", "d")


# -- words --------------------------------------------------------------------------------------

def test_expansions_come_from_added_and_strengthened_candidates_only() -> None:
    cands = (cd("b", "added words", ChangeType.ADDED),
             cd("b", "stronger words", ChangeType.STRENGTHENED),
             cd("b", "weaker", ChangeType.WEAKENED), cd("b", "removed", ChangeType.REMOVED),
             cd("b", "unchanged", ChangeType.UNCHANGED))
    bias = build_search_bias(EMPTY, make(action=Action.ACCEPT, cands=cands))
    assert bias.query_expansions == ("words", "added", "stronger")


def test_expansions_skip_short_words_stopwords_numbers_and_the_query() -> None:
    cands = (cd("b", "Kayak trips with Otter 2024 abc x9yz tours kayak's"),)
    bias = build_search_bias(mset(query="Otter"), make(action=Action.ACCEPT, cands=cands))
    # "with" is a stopword, "abc" too short, "2024" starts with a digit; "x9yz" starts
    # with a letter and has 4 characters, so it counts; "otter" is in the set's query.
    assert bias.query_expansions == ("kayak", "kayak's", "tours", "trips", "x9yz")
    over = build_search_bias(mset(query="Otter"), make(action=Action.ACCEPT, cands=cands),
                             query="tours")
    assert "otter" in over.query_expansions and "tours" not in over.query_expansions


def test_at_most_five_expansions_most_frequent_first_ties_alphabetical() -> None:
    words = ["golf", "echo", "alpha", "delta", "bravo", "foxtrot", "charlie"]
    cands = tuple(cd("b", " ".join(words[:k]) + " " + " ".join(words[:k]))
                  for k in range(1, 8))
    # golf is in 7 texts, echo in 6, ... charlie in 1; each text counts a word once.
    bias = build_search_bias(EMPTY, make(action=Action.ACCEPT, cands=cands))
    assert bias.query_expansions == ("golf", "echo", "alpha", "delta", "bravo")
    tie = tuple(cd("b", w) for w in ("zulu", "yankee", "xray", "whiskey", "victor", "uniform"))
    assert build_search_bias(EMPTY, make(action=Action.ACCEPT, cands=tie)).query_expansions == (
        "uniform", "victor", "whiskey", "xray", "yankee")


def test_only_the_first_200_grown_candidates_count() -> None:
    assert MAX_GROWN == 200
    cands = (*tuple(cd("b", f"common {i}") for i in range(MAX_GROWN)), cd("b", "latecomer"))
    bias = build_search_bias(EMPTY, make(action=Action.ACCEPT, cands=cands))
    assert bias.query_expansions == ("common",)
    weakened_first = (cd("b", "weak", ChangeType.WEAKENED),) * 5 + tuple(
        cd("b", f"common {i}") for i in range(MAX_GROWN - 1)) + (cd("b", "lastone"),)
    assert build_search_bias(EMPTY, make(action=Action.ACCEPT, cands=weakened_first)
                             ).query_expansions == ("common", "lastone")


def test_suppressions_are_the_suppressed_sources_own_words_at_most_five() -> None:
    flood = tuple(cd("a", t) for t in (
        "alpha bravo charlie delta", "alpha bravo charlie echo", "alpha bravo foxtrot",
        "alpha golf hotel", "india juliet kilo", "lima mike november"))
    kept = (cd("b", "alpha shared words"),)
    bias = build_search_bias(EMPTY, make(action=Action.DAMPEN, cands=flood + kept))
    # alpha 4 (but a kept source brought it too), bravo 3, charlie 2, then ties of 1.
    assert bias.query_suppressions == ("bravo", "charlie", "delta", "echo", "foxtrot")
    assert bias.query_expansions == ("alpha", "shared", "words")
    none = build_search_bias(EMPTY, make(action=Action.ACCEPT, cands=flood))
    assert none.query_suppressions == ()
    assert none.query_expansions == ("alpha", "bravo", "charlie", "delta", "echo")


def test_suppressions_look_past_the_words_kept_sources_share() -> None:
    names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
             "india", "juliet", "kilo", "lima"]
    # alpha is in 12 flood texts, bravo in 11, ... lima in 1.
    flood = tuple(cd("a", " ".join(names[:k]) + f" {k}") for k in range(1, 13))
    kept = (cd("b", " ".join(names[:7])),)
    # The flood's ten most frequent words are checked: alpha..juliet; the kept source
    # brought alpha..golf, so hotel, india and juliet remain (kilo and lima are 11th, 12th).
    bias = build_search_bias(EMPTY, make(action=Action.DAMPEN, cands=flood + kept))
    assert bias.query_suppressions == ("hotel", "india", "juliet")
    assert bias.query_expansions == ("alpha", "bravo", "charlie", "delta", "echo")


# -- without a diff -----------------------------------------------------------------------------

def test_without_a_diff_sources_with_a_fair_share_are_preferred_largest_first() -> None:
    ms = mset(Candidate("a", "x", 1, 0.25), Candidate("b", "y", 1, 0.5),
              Candidate("c", "z", 1, 0.25))
    # Shares 0.25, 0.5, 0.25 of three sources: fair share 1/3.
    assert build_search_bias(ms).preferred_sources == ("b",)
    even = mset(Candidate("c", "x", 1, 0.5), Candidate("a", "y", 1, 0.5))
    assert build_search_bias(even).preferred_sources == ("a", "c")  # exactly fair: kept
    assert build_search_bias(EMPTY).preferred_sources == ()
    zero = mset(Candidate("a", "x", 0, 1))
    assert build_search_bias(zero).preferred_sources == ()


def test_without_a_diff_the_top_20_contributions_give_the_words() -> None:
    cands = [Candidate("a", f"common {i}", 1, 1.0 - i / 64) for i in range(20)]
    cands.append(Candidate("a", "latecomer", 1, 0.5))
    ms = mset(*cands, query="nothing")
    bias = build_search_bias(ms)
    assert bias.query_expansions == ("common",)
    first = mset(Candidate("a", "latecomer", 1, 1.0), *cands[:20], query="common")
    assert build_search_bias(first).query_expansions == ("latecomer",)
    assert build_search_bias(first, query="latecomer").query_expansions == ("common",)


def test_a_diff_bias_is_json() -> None:
    bias = build_search_bias(EMPTY, make(HealthStatus.HEALTHY, Action.ACCEPT, "a", 0.0, 0.0,
                                         sources=(sd("b", 0.5),), cands=(cd("b", "words"),)))
    assert bias.to_json() == {
        "preferred_sources": ("b",), "suppressed_sources": (), "query_expansions": ("words",),
        "query_suppressions": (), "depth_hint": "shallow", "should_rerun": False,
        "should_stop": True, "reason": "memory has stabilised: stop searching",
    }

