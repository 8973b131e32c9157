"""The delta demo's three goals step by step (core/delta/demo.py): which candidates each
snapshot offers, how search takes over the routing goal, the one-snapshot flood of the
preference goal, the plan goal's sliding window of database memories, the series' times
and labels, and the operator's review of the older part of the queue."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from memdesk.core.delta import demo as dd
from memdesk.core.delta.contracts import Candidate

END = datetime(2026, 11, 1)
TIMES = [END - timedelta(days=42) + timedelta(days=d, hours=h)
         for d in range(42) for h in (9, 17)]  # 84 snapshots


class Fixed(random.Random):
    """``random()`` always returns ``r`` (so ``uniform(a, b)`` is ``a + (b - a) * r``);
    choices and samples still come from the seeded bit stream."""

    def __init__(self, r: float) -> None:
        super().__init__(4)
        self.r = r

    def random(self) -> float:
        return self.r

    def getrandbits(self, k: int) -> int:
        return super().getrandbits(k)


def db(n: int) -> list[Candidate]:
    return [Candidate("database", f"memory {i}", 0.8, 0.5, candidate_id=f"m{i}",
                      provenance={"memory_id": f"m{i}"}) for i in range(n)]


# -- _jitter and nudge ----------------------------------------------------------------
@pytest.mark.parametrize(("r", "x", "step", "want"), [
    (0.5, 0.4321, 0.03, 0.432),  # no change: rounded to 3 places
    (1.0, 0.5, 0.03, 0.53), (0.0, 0.5, 0.03, 0.47),
    (1.0, 0.5, 0.1, 0.6), (0.0, 0.5, 0.1, 0.4),
    (1.0, 0.99, 0.03, 1.0), (1.0, 0.97, 0.03, 1.0),  # capped at 1
    (0.0, 0.07, 0.03, 0.05), (0.0, 0.08, 0.03, 0.05), (0.0, 0.09, 0.03, 0.06),  # floor 0.05
])
def test_jitter(r: float, x: float, step: float, want: float) -> None:
    assert dd._jitter(Fixed(r), x, step) == want


def test_jitter_default_step_is_three_hundredths() -> None:
    assert dd._jitter(Fixed(1.0), 0.2) == 0.23
    assert dd._jitter(Fixed(0.0), 0.2) == 0.17


def test_nudge_changes_only_relevance_of_n_items_of_the_sources_given() -> None:
    items = [Candidate("context", "a", 0.9, 0.5),
             Candidate("search", "b", 0.7, 0.4, 0.8, "s1", {"url": "x"}, "user", "lang", "Go"),
             Candidate("search", "c", 0.6, 0.3, 0.5, "s2", {"url": "y"}),
             Candidate("database", "d", 0.5, 0.2, candidate_id="m1")]
    s = dd._Series(Fixed(1.0), items)
    assert s.items is not items  # a copy: the caller's list is not changed
    s.nudge(5, sources=("search",))  # more than the pool: every search item once
    assert [c.relevance for c in s.items] == [0.5, 0.43, 0.33, 0.2]
    for new, old in zip(s.items, items, strict=True):
        assert (new.source, new.text, new.confidence, new.raw_score, new.candidate_id,
                new.provenance, new.entity, new.attribute, new.value) == (
            old.source, old.text, old.confidence, old.raw_score, old.candidate_id,
            old.provenance, old.entity, old.attribute, old.value)
    prev = [c.relevance for c in s.items]
    s.nudge()  # one item, any source
    assert sum(c.relevance != r for c, r in zip(s.items, prev, strict=True)) == 1
    s.nudge(2)  # two different items
    assert sum(c.relevance for c in s.items) == pytest.approx(1.46 + 0.03 + 0.06)
    s.nudge(0)
    s.nudge(3, sources=("model_prior",))  # no such source: nothing to nudge
    assert sum(c.relevance for c in s.items) == pytest.approx(1.55)


# -- the routing goal -----------------------------------------------------------------
def _route(r: float = 0.5, n: int = 5):  # type: ignore[no-untyped-def]
    return list(dd._route_goal(Fixed(r), db(n), TIMES))


def _hits(cands: list[Candidate]) -> list[Candidate]:
    return [c for c in cands if c.source == "search"]


def test_route_base_candidates() -> None:
    out = _route()
    assert [w for w, _ in out] == TIMES
    for _when, cands in out:
        base = cands[:8]
        assert [(c.source, c.text, c.confidence, c.relevance) for c in base[:5]] == [
            ("context", t, 0.9, 0.85) for t in dd.CONTEXT_ROUTE] + [
            ("model_prior", t, 0.7, 0.7) for t in dd.PRIOR_ROUTE]
        assert [c.candidate_id for c in base[5:]] == ["m0", "m1", "m2"]  # db[:3]
        assert len(cands) == 8 + len(_hits(cands))


def test_route_search_hits_grow_from_one_to_ten() -> None:
    out = _route()
    counts = [len(_hits(c)) for _, c in out]
    assert counts == [1 + int(step / 83 * 9) for step in range(84)]
    assert (counts[0], counts[-1]) == (1, 10)


def test_route_hit_fields_and_weekly_strength() -> None:
    out = _route()
    n = len(dd.SEARCH_ROUTE)
    for step, (_when, cands) in enumerate(out):
        strength = 0.45 + 0.5 * min(1.0, (step // 14) / 5)
        for c in _hits(cands):
            i = int(c.candidate_id.rsplit(":", 1)[1])
            assert c.candidate_id == f"search:route:{i}"
            assert c.text == dd.SEARCH_ROUTE[i % n] + ("" if i < n else f" (copy {i // n})")
            assert (c.confidence, c.relevance) == (1.0, 1.0)
            assert c.raw_score == round(min(0.99, strength + 0.04 * ((i * 7) % 3)), 3)
    # Hand-checked points: week 0 hit 0 scores 0.45; from step 70 on, strength 0.95
    # and hits with (7i mod 3) = 1 or 2 are capped at 0.99.
    assert _hits(out[0][1])[0].raw_score == 0.45
    assert {c.raw_score for c in _hits(out[13][1])} <= {0.45, 0.49, 0.53}
    assert {c.raw_score for c in _hits(out[14][1])} <= {0.55, 0.59, 0.63}
    assert {c.raw_score for c in _hits(out[83][1])} == {0.95, 0.99}


def test_route_churn_only_once_search_dominates() -> None:
    """With every uniform draw at 0.5, churn (probability 0.25 + 0.5 * progress) happens
    exactly when progress passes one half: from step 42 of 84 on."""
    out = _route(0.5)
    ids = [[int(c.candidate_id.rsplit(":", 1)[1]) for c in _hits(cands)] for _, cands in out]
    for step in range(42):  # no churn: the first hits stay, new ones are appended
        assert ids[step] == list(range(len(ids[step])))
    assert ids[41] == [0, 1, 2, 3, 4]
    for step in range(42, 84):
        progress = step / 83
        dropped = set(ids[step - 1]) - set(ids[step])
        assert len(dropped) == 1 + int(progress * 4)  # then refilled with new hits
        assert min(set(ids[step]) - set(ids[step - 1])) > max(ids[step - 1])
    # Never churned when every draw is 0.75 or more before progress reaches 1.
    calm = [[c.candidate_id for c in _hits(c)] for _, c in _route(0.7499)]
    assert all(calm[s][: len(calm[s - 1])] == calm[s - 1] for s in range(1, 83))


def test_route_no_churn_when_the_draw_equals_the_chance() -> None:
    out = _route(0.25)  # at step 0 the chance is 0.25: a draw of 0.25 is not below it
    assert [c.candidate_id for c in _hits(out[0][1])] == ["search:route:0"]


def test_route_churn_from_the_start_when_draws_are_low() -> None:
    out = _route(0.0)  # 0 < 0.25: churn at every step, even the first (one hit dropped)
    first = [c.candidate_id for c in _hits(out[0][1])]
    assert first == ["search:route:1"]


def test_route_base_relevance_jitters_one_item_per_step() -> None:
    out = _route(1.0)  # every jitter is +0.03 (capped at 1)
    before = sum(c.relevance for c in out[0][1][:8])
    after = sum(c.relevance for c in out[1][1][:8])
    assert after - before == pytest.approx(0.03)


# -- the preference goal --------------------------------------------------------------
def _pref(r: float = 0.5, n: int = 6):  # type: ignore[no-untyped-def]
    # Copied as they come: calm steps yield the series' own (changing) list.
    return [(when, list(cands)) for when, cands in dd._pref_goal(Fixed(r), db(n), TIMES)]


def test_pref_calm_snapshots() -> None:
    out = _pref()
    assert [w for w, _ in out] == TIMES
    flood_at = int(84 * 0.86)  # 72
    assert flood_at == 72
    for step, (_when, cands) in enumerate(out):
        if step == flood_at:
            continue
        assert [(c.source, c.text, c.confidence, c.relevance, c.entity, c.attribute, c.value)
                for c in cands[:5]] == [
            ("context", t, 0.9, 0.85, "user" if v else None,
             "preferred_language" if v else None, v) for t, v in dd.CONTEXT_PREF] + [
            ("model_prior", t, 0.6, 0.7, None, None, None) for t in dd.PRIOR_PREF]
        assert [c.candidate_id for c in cands[5:9]] == ["m0", "m1", "m2", "m3"]  # db[:4]
        wiki = cands[9]
        assert (wiki.source, wiki.text, wiki.confidence, wiki.relevance, wiki.candidate_id) == (
            "search", "Team wiki: services are written in Python.", 0.8, 0.6, "search:wiki")
        assert len(cands) == 10


def test_pref_flood_snapshot() -> None:
    _when, cands = _pref()[72]
    assert (cands[0].text, cands[0].value) == ("User prefers Python for backend work.", "Python")
    assert [(c.source, c.text, c.confidence, c.relevance) for c in cands[1:3]] == [
        ("model_prior", t, 0.6, pytest.approx(0.7 * 0.7)) for t in dd.PRIOR_PREF]
    flood = cands[3:]
    assert len(cands) == 13
    want = []
    for i in range(10):
        lang = "Go" if i % 5 < 3 else "Rust"
        text = (f"Go is the best backend language, per benchmark site {i}." if lang == "Go"
                else f"Rust beats every backend language, says listicle {i}.")
        want.append(("search", text, 1.0, 1.0, round(0.97 - 0.01 * (i % 3), 2),
                     f"search:flood:{i}", "user", "preferred_language", lang))
    assert [(c.source, c.text, c.confidence, c.relevance, round(c.raw_score, 2),
             c.candidate_id, c.entity, c.attribute, c.value) for c in flood] == want
    assert [c.value for c in flood].count("Go") == 6


def test_pref_nudges_every_step_including_the_flood() -> None:
    out = _pref(1.0)
    sums = [sum(c.relevance for c in cands) for _, cands in out[:3]]
    assert [sums[1] - sums[0], sums[2] - sums[1]] == [pytest.approx(0.03)] * 2
    base = sum(c.relevance for c in out[0][1])
    # 84 nudges of +0.03 before capping; after the flood step the series continues.
    assert sum(c.relevance for c in out[73][1]) > base
    assert len(out[73][1]) == 10 and len(out) == 84


# -- the plan goal --------------------------------------------------------------------
def test_plan_window_slides_over_the_database_memories() -> None:
    out = list(dd._plan_goal(Fixed(0.5), db(12), TIMES))
    assert [w for w, _ in out] == TIMES
    for step, (_when, cands) in enumerate(out):
        assert [(c.source, c.text, c.confidence, c.relevance) for c in cands[:4]] == [
            ("context", t, 0.85, 0.8) for t in dd.CONTEXT_PLAN] + [
            ("model_prior", t, 0.65, 0.6) for t in dd.PRIOR_PLAN]
        start = (step // 8) % 8  # 12 memories, a window of 5: 8 starting places
        assert [c.candidate_id for c in cands[4:]] == [f"m{j}" for j in range(start, start + 5)]
    assert [c.candidate_id for c in out[64][1][4:]] == ["m0", "m1", "m2", "m3", "m4"]


@pytest.mark.parametrize(("n", "want"), [(0, []), (3, ["m0", "m1", "m2"]),
                                         (5, ["m0", "m1", "m2", "m3", "m4"])])
def test_plan_with_few_database_memories(n: int, want: list[str]) -> None:
    out = list(dd._plan_goal(Fixed(0.5), db(n), TIMES))
    assert all([c.candidate_id for c in cands[4:]] == want for _, cands in out)


def test_plan_with_six_memories_has_two_windows() -> None:
    out = list(dd._plan_goal(Fixed(0.5), db(6), TIMES))
    assert [c.candidate_id for c in out[8][1][4:]] == ["m1", "m2", "m3", "m4", "m5"]
    assert [c.candidate_id for c in out[16][1][4:]] == ["m0", "m1", "m2", "m3", "m4"]


def test_plan_nudges_on_odd_steps_only() -> None:
    out = list(dd._plan_goal(Fixed(1.0), db(0), TIMES))
    sums = [round(sum(c.relevance for c in cands), 3) for _, cands in out[:6]]
    assert sums == [2.8, 2.83, 2.83, 2.86, 2.86, 2.89]
