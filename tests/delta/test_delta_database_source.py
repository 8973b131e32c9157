"""The ``database`` memory source (core/delta/sources.py): term overlap as relevance,
which memories become candidates, their order, limit and fields.

Rules from sources.py's docstring: relevance is the share of the query's words a memory
contains (the last word may be a prefix); confidence is the memory's own; FTS matches
all words, and when that finds fewer than asked single words widen the net."""

from __future__ import annotations

import pytest

from memdesk.core.delta.sources import MAX_WIDEN_TERMS, database_candidates, term_overlap


@pytest.mark.parametrize(("terms", "text", "overlap"), [
    ([], "anything at all", 0.0),
    (["lens"], "Lens reports", 1.0),
    (["lens", "voice"], "Lens reports", 0.5),
    (["lens", "rep"], "Lens reports", 1.0),  # the last word as a prefix
    (["rep", "lens"], "Lens reports", 0.5),  # only the last one
    (["LENS", "Reports"], "lens reports", 1.0),
    (["a", "b", "c", "d"], "a b c", 0.75),
    (["x"], "", 0.0),
])
def test_term_overlap(terms: list[str], text: str, overlap: float) -> None:
    assert term_overlap(terms, text) == overlap


def add(store, text: str, confidence: float, user: str = "u", **kw):  # type: ignore[no-untyped-def]
    return store.add(user_id=user, text=text, type="fact", confidence=confidence, **kw).id


def test_candidates_carry_the_memory_fields(store) -> None:  # type: ignore[no-untyped-def]
    mid = add(store, "Lens reports measure drift.", 0.5, entity="lens", attribute="measures",
              value="drift")
    [c] = database_candidates(store, "lens drift", source="archive")
    assert (c.source, c.text, c.confidence, c.relevance, c.raw_score, c.candidate_id) == (
        "archive", "Lens reports measure drift.", 0.5, 1.0, None, mid)
    assert c.provenance == {"memory_id": mid, "user_id": "u", "type": "fact"}
    assert (c.entity, c.attribute, c.value) == ("lens", "measures", "drift")


def test_candidates_are_ordered_by_relevance_times_confidence_then_id(store) -> None:  # type: ignore[no-untyped-def]
    low = add(store, "Lens reports drift.", 0.25)
    high = add(store, "Lens reports voice drift.", 1.0)
    mid = add(store, "Lens drift notes.", 0.5)
    got = database_candidates(store, "lens drift")
    assert [c.candidate_id for c in got] == [high, mid, low]
    twin_a = add(store, "Twin memory one.", 0.5)
    twin_b = add(store, "Twin memory two.", 0.5)
    got = database_candidates(store, "twin memory")
    assert [c.candidate_id for c in got] == sorted([twin_a, twin_b])


def test_the_limit_caps_the_candidates(store) -> None:  # type: ignore[no-untyped-def]
    ids = [add(store, f"Lens note {i}.", 0.125 * (i + 1)) for i in range(4)]
    assert [c.candidate_id for c in database_candidates(store, "lens", limit=2)] == [
        ids[3], ids[2]]
    assert [c.candidate_id for c in database_candidates(store, "lens", limit=1)] == [ids[3]]
    assert database_candidates(store, "lens", limit=0) == []
    assert database_candidates(store, "lens", limit=-1) == []
    assert len(database_candidates(store, "lens")) == 4


def test_single_words_widen_the_net_with_lower_relevance(store) -> None:  # type: ignore[no-untyped-def]
    both = add(store, "Lens measures drift.", 0.5)
    one = add(store, "Drift alone here.", 1.0)
    got = database_candidates(store, "lens drift", limit=5)
    # both: relevance 1 × 0.5 = 0.5; one: relevance 0.5 × 1.0 = 0.5; tie → id order.
    assert {c.candidate_id: c.relevance for c in got} == {both: 1.0, one: 0.5}
    assert [c.candidate_id for c in got] == sorted([both, one])
    # Enough full matches: no widening.
    assert [c.candidate_id for c in database_candidates(store, "lens drift", limit=1)] == [both]


def test_only_the_six_longest_words_widen_the_net(store) -> None:  # type: ignore[no-untyped-def]
    assert MAX_WIDEN_TERMS == 6  # the rule this test is written for
    cat = add(store, "A cat sleeps.", 1.0)
    zebra = add(store, "A zebra sleeps.", 1.0)
    # Seven words of seven different lengths: "cat", the shortest, is not tried alone.
    query = "cat zebra donkey giraffe elephant crocodile rhinoceros"
    got = database_candidates(store, query, limit=5)
    assert [c.candidate_id for c in got] == [zebra]
    assert got[0].relevance == 1 / 7
    assert cat not in {c.candidate_id for c in got}


def test_a_single_word_query_does_not_widen(store) -> None:  # type: ignore[no-untyped-def]
    add(store, "Lens measures drift.", 0.5)
    assert database_candidates(store, "unicorns") == []


def test_only_active_memories_of_the_user_are_candidates(store) -> None:  # type: ignore[no-untyped-def]
    mine = add(store, "Lens for me.", 0.5, user="me")
    theirs = add(store, "Lens for them.", 0.5, user="them")
    gone = add(store, "Lens deleted.", 0.5, user="me")
    store.soft_delete(gone)
    assert [c.candidate_id for c in database_candidates(store, "lens", user_id="me")] == [mine]
    assert sorted(c.candidate_id for c in database_candidates(store, "lens")) == sorted(
        [mine, theirs])
