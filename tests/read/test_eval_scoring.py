"""The dispositional evaluation's arithmetic and its printed/JSON report.

Expected figures are worked out by hand from the module docstring's rules: precision
tp/(tp+fp), recall tp/(tp+fn), F1 their harmonic mean, micro-averaged (counts summed
before dividing); an empty denominator scores 1, and F1 of P = R = 0 is 0.
"""

from __future__ import annotations

import pytest

from memdesk.core.read import evaluation as ev


def fixture(id_: str, category: str, expect: tuple[str, ...] = ()) -> ev.Fixture:
    mems = tuple({"key": k, "type": "note", "text": k} for k in ("a", "b", "x"))
    return ev.Fixture(id_, category, "q", mems, frozenset(expect))


def case(fx: ev.Fixture, *trials: tuple[tuple[int, int, int], set[str]]) -> ev.CaseResult:
    return ev.CaseResult(fx, [(ev.Counts(*c), frozenset(seen)) for c, seen in trials])


# ---- Counts ---------------------------------------------------------------------------

def test_precision_recall_f1_by_hand() -> None:
    c = ev.Counts(tp=3, fp=1, fn=2)
    assert c.precision == 0.75  # 3 / 4
    assert c.recall == 0.6  # 3 / 5
    assert c.f1 == pytest.approx(2 / 3)  # 2 * .75 * .6 / 1.35 = .9 / 1.35


def test_f1_is_the_harmonic_mean_not_the_average() -> None:
    c = ev.Counts(tp=1, fp=3, fn=0)  # P = .25, R = 1
    assert c.precision == 0.25
    assert c.recall == 1.0
    assert c.f1 == pytest.approx(0.4)  # 2 * .25 / 1.25


def test_nothing_expected_and_nothing_returned_scores_one() -> None:
    c = ev.Counts()
    assert (c.tp, c.fp, c.fn) == (0, 0, 0)
    assert (c.precision, c.recall, c.f1) == (1.0, 1.0, 1.0)


def test_only_false_positives_give_precision_zero_recall_one() -> None:
    c = ev.Counts(tp=0, fp=2, fn=0)
    assert c.precision == 0.0
    assert c.recall == 1.0
    assert c.f1 == 0.0


def test_only_misses_give_precision_one_recall_zero() -> None:
    c = ev.Counts(tp=0, fp=0, fn=4)
    assert c.precision == 1.0
    assert c.recall == 0.0
    assert c.f1 == 0.0


def test_precision_and_recall_both_zero_give_f1_zero() -> None:
    c = ev.Counts(tp=0, fp=1, fn=1)
    assert (c.precision, c.recall) == (0.0, 0.0)
    assert c.f1 == 0.0


def test_add_sums_each_count_into_its_own_field() -> None:
    c = ev.Counts(1, 2, 3)
    c.add(ev.Counts(10, 20, 30))
    assert (c.tp, c.fp, c.fn) == (11, 22, 33)
    c.add(ev.Counts())
    assert (c.tp, c.fp, c.fn) == (11, 22, 33)


# ---- CaseResult and EvalRun -----------------------------------------------------------

def test_a_case_passes_only_when_no_trial_has_a_false_positive_or_a_miss() -> None:
    fx = fixture("A1", "semantic_match", ("a",))
    assert case(fx, ((1, 0, 0), {"a"}), ((1, 0, 0), {"a"})).passed
    assert not case(fx, ((1, 0, 0), {"a"}), ((1, 1, 0), {"a", "x"})).passed
    assert not case(fx, ((1, 0, 0), {"a"}), ((0, 0, 1), set())).passed
    assert case(fx).passed  # no trial failed


def test_a_case_is_unanimous_when_every_trial_saw_the_same_keys() -> None:
    fx = fixture("A1", "semantic_match", ("a",))
    assert case(fx).unanimous
    assert case(fx, ((1, 0, 0), {"a"})).unanimous
    assert case(fx, ((1, 0, 0), {"a"}), ((1, 0, 0), {"a"})).unanimous
    # Same counts, different keys: not unanimous.
    assert not case(fx, ((1, 1, 0), {"a", "x"}), ((1, 1, 0), {"a", "b"})).unanimous


def test_run_counts_sum_every_trial_overall_and_per_category() -> None:
    run = ev.EvalRun(True, [
        case(fixture("A1", "semantic_match"), ((1, 0, 2), set()), ((3, 0, 0), set())),
        case(fixture("A2", "semantic_match"), ((0, 5, 0), set())),
        case(fixture("D1", "negatives"), ((0, 7, 1), set())),
    ])
    a = run.counts("semantic_match")
    assert (a.tp, a.fp, a.fn) == (4, 5, 2)
    d = run.counts("negatives")
    assert (d.tp, d.fp, d.fn) == (0, 7, 1)
    total = run.counts()
    assert (total.tp, total.fp, total.fn) == (4, 12, 3)
    empty = run.counts("discriminators")
    assert (empty.tp, empty.fp, empty.fn) == (0, 0, 0)


# ---- report_lines ---------------------------------------------------------------------

def full_and_ablation() -> tuple[ev.EvalRun, ev.EvalRun]:
    """A1 (semantic match) finds its key; D1 (negatives) lets one memory through in its
    first trial and nothing in its second.  Without injection A1 misses its key."""
    a1 = fixture("A1", "semantic_match", ("a",))
    d1 = fixture("D1", "negatives")
    full = ev.EvalRun(True, [case(a1, ((1, 0, 0), {"a"})),
                             case(d1, ((0, 1, 0), {"x"}), ((0, 0, 0), set()))])
    off = ev.EvalRun(False, [case(a1, ((0, 0, 1), set())), case(d1, ((0, 0, 0), set()))])
    return full, off


HEAD = "category                 cases       P       R      F1"
ABL_HEAD = HEAD + "  F1 no-inj    drop"


def test_report_with_ablation_by_hand() -> None:
    full, off = full_and_ablation()
    # A: full P=R=F1=1; off tp0 fp0 fn1 -> F1 0, drop 1.
    # D: full tp0 fp1 -> P 0, R 1 (nothing expected), F1 0; off all zero -> F1 1, drop -1.
    # overall: full tp1 fp1 fn0 -> P .5, R 1, F1 2*.5/1.5 = .667; off F1 0.
    assert ev.report_lines(full, off) == [
        ABL_HEAD,
        "-" * 73,
        "A. semantic match            1   1.000   1.000   1.000      0.000   1.000",
        "D. negatives                 1   0.000   1.000   0.000      1.000  -1.000",
        "-" * 73,
        "overall                      2   0.500   1.000   0.667      0.000   0.667",
        "with injection: 1/2 fixtures pass in every trial; trials disagree on D1",
        "  D1 failed: saw ['x'], expected []",
        "injection off: 1/2 fixtures pass in every trial; all trials unanimous",
        "  A1 failed: saw [], expected ['a']",
    ]


def test_the_drop_is_full_f1_minus_ablation_f1() -> None:
    c1 = fixture("C1", "pure_dispositional", ("a",))
    full = ev.EvalRun(True, [case(c1, ((1, 0, 0), {"a"}))])
    off = ev.EvalRun(False, [case(c1, ((1, 1, 0), {"a", "x"}))])
    # Ablation: P .5, R 1, F1 2*.5/1.5 = .667; drop 1 - .667 = .333.
    assert ev.report_lines(full, off)[2:5] == [
        "C. pure dispositional        1   1.000   1.000   1.000      0.667   0.333",
        "-" * 73,
        "overall                      1   1.000   1.000   1.000      0.667   0.333",
    ]


def test_report_without_ablation_has_no_ablation_columns_or_lines() -> None:
    full, _ = full_and_ablation()
    assert ev.report_lines(full, None) == [
        HEAD,
        "-" * 54,
        "A. semantic match            1   1.000   1.000   1.000",
        "D. negatives                 1   0.000   1.000   0.000",
        "-" * 54,
        "overall                      2   0.500   1.000   0.667",
        "with injection: 1/2 fixtures pass in every trial; trials disagree on D1",
        "  D1 failed: saw ['x'], expected []",
    ]


def test_report_lists_every_disagreeing_fixture_and_sorts_what_was_seen() -> None:
    g1 = fixture("G1", "discriminators", ("b", "a"))
    g2 = fixture("G2", "discriminators", ("a",))
    run = ev.EvalRun(True, [
        case(g1, ((1, 1, 1), {"x", "a"}), ((2, 0, 0), {"a", "b"})),
        case(g2, ((1, 0, 0), {"a"}), ((0, 0, 1), set())),
    ])
    lines = ev.report_lines(run, None)
    # tp 4, fp 1, fn 2: P .8, R 4/6, F1 2*.8*.6667/1.4667 = .727
    assert lines[2] == "G. discriminators            2   0.800   0.667   0.727"
    assert lines[-3:] == [
        "with injection: 0/2 fixtures pass in every trial; trials disagree on G1, G2",
        "  G1 failed: saw ['a', 'x'], expected ['a', 'b']",
        "  G2 failed: saw ['a'], expected ['a']",
    ]


def test_report_of_passing_unanimous_run() -> None:
    run = ev.EvalRun(False, [case(fixture("C1", "pure_dispositional", ("a",)),
                                  ((1, 0, 0), {"a"}), ((1, 0, 0), {"a"}))])
    lines = ev.report_lines(run, None)
    assert lines[2] == "C. pure dispositional        1   1.000   1.000   1.000"
    assert lines[-1] == "injection off: 1/1 fixtures pass in every trial; all trials unanimous"
    assert len(lines) == 6


# ---- to_json --------------------------------------------------------------------------

def test_json_has_every_category_with_counts_and_scores() -> None:
    full, off = full_and_ablation()
    out = ev.to_json(full, off)
    assert list(out) == ["with_injection", "injection_off"]
    cats = out["with_injection"]["categories"]
    assert list(cats) == [c for c, _, _ in ev.CATEGORIES]
    assert cats["semantic_match"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0,
                                      "tp": 1, "fp": 0, "fn": 0}
    assert cats["negatives"] == {"precision": 0.0, "recall": 1.0, "f1": 0.0,
                                 "tp": 0, "fp": 1, "fn": 0}
    # A category without fixtures: nothing expected, nothing returned.
    assert cats["discriminators"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0,
                                      "tp": 0, "fp": 0, "fn": 0}
    overall = out["with_injection"]["overall"]
    assert overall == {"precision": 0.5, "recall": 1.0, "f1": pytest.approx(2 / 3),
                       "tp": 1, "fp": 1, "fn": 0}
    off_overall = out["injection_off"]["overall"]
    assert off_overall == {"precision": 1.0, "recall": 0.0, "f1": 0.0,
                           "tp": 0, "fp": 0, "fn": 1}
    assert out["injection_off"]["categories"]["semantic_match"]["fn"] == 1


def test_json_cases_report_pass_unanimity_and_first_trial_seen_sorted() -> None:
    full, off = full_and_ablation()
    g = fixture("G9", "discriminators", ("a",))
    full.cases.append(case(g, ((1, 1, 0), {"x", "a"}), ((1, 1, 0), {"a", "x"})))
    full.cases.append(ev.CaseResult(fixture("F1", "multiple_preferences")))
    out = ev.to_json(full, None)
    assert list(out) == ["with_injection"]
    assert out["with_injection"]["cases"] == {
        "A1": {"passed": True, "unanimous": True, "seen": ["a"]},
        "D1": {"passed": False, "unanimous": False, "seen": ["x"]},
        "G9": {"passed": False, "unanimous": True, "seen": ["a", "x"]},
        "F1": {"passed": True, "unanimous": True, "seen": []},
    }
    assert ev.to_json(off, None)["with_injection"]["cases"]["A1"] == {
        "passed": False, "unanimous": True, "seen": []}
