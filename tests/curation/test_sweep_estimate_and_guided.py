"""The band estimate and guided sweeps through the ``Sweeps`` façade, on a demo store
with planted ground truth: cold start, a band with no decisions, intervals, guided
picks that say why, and bad input refused with a clear message."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

from memdesk.core.curation.guided import ColdStart
from memdesk.core.curation.service import Sweeps
from memdesk.core.errors import ValidationError
from tests.helpers.learning import BAND, copy_store, planted_template, review, sweep_and_review


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory):
    return planted_template(tmp_path_factory.mktemp("planted"))


@pytest.fixture
def planted(template, tmp_path: Path):
    path, truth = template
    s = copy_store(path, tmp_path / "s.db")
    yield s, truth
    s.close()


def test_a_band_with_no_decisions_has_no_estimate(planted) -> None:
    store, _ = planted
    est = Sweeps(store).estimate(BAND)
    assert est.raised is None and est.lowered is None and est.uniform == 0
    assert "nothing to estimate" in est.headline()
    assert est.to_json()["raised"] is None


def test_uniform_estimate_is_wilson_on_the_counts_and_names_the_band_size(planted) -> None:
    store, truth = planted
    sweeps = Sweeps(store)
    sweep_and_review(sweeps, truth, 40, seed=1)
    sweep_and_review(sweeps, truth, 40, seed=2)
    est = sweeps.estimate(BAND)
    decided = [it for sid in (s.id for s in sweeps.list()) for it in sweeps.get(sid).items]
    raised = sum(1 for it in decided if it.importance_after > it.importance_before)
    lo, hi = proportion_confint(raised, len(decided), method="wilson")
    assert est.uniform == len(decided) == 80 and est.method == "wilson"
    assert est.raised.p == pytest.approx(raised / 80)
    assert (est.raised.lo, est.raised.hi) == (pytest.approx(lo), pytest.approx(hi))
    assert est.raised.lo <= truth.share_raised <= est.raised.hi
    band_size = len(truth.true)
    assert abs(est.population - band_size) / band_size < 0.1
    assert f"{est.raised.memories:,}" in est.headline()
    # per type and per source: the same estimator on each group, sizes adding up
    assert sum(g.raised.n for g in est.by_source.values()) == 80
    # the planted sources, and the demo's own: its turns ("verbatim") and their units
    assert set(est.by_source) <= {"llm", "heuristic", "direct", "verbatim", "demo"}
    assert sum(g.raised.population for g in est.by_type.values()) == pytest.approx(
        est.population)


def test_an_undone_decision_leaves_the_estimate(planted) -> None:
    store, truth = planted
    sweeps = Sweeps(store)
    sid = sweep_and_review(sweeps, truth, 10, seed=3)
    assert sweeps.estimate(BAND).uniform == 10
    sweeps.undo_decision(sid)
    assert sweeps.estimate(BAND).uniform == 9


def test_cold_start_sweeps_are_uniform_and_say_why(planted) -> None:
    store, truth = planted
    sweeps = Sweeps(store)
    g = sweeps.guidance()
    assert not g.ready and "Guided picks start after 30 decisions" in g.message
    st = sweeps.start(BAND, 10, guided=0.5, seed=4)
    picks = sweeps.picks(st.id)
    assert len(picks) == 10 and not any(p.guided for p in picks.values())
    assert all(p.inclusion_p == pytest.approx(10 / st.population) for p in picks.values())
    review(sweeps, truth, st.id)
    with pytest.raises(ColdStart, match="30 decisions"):
        sweeps.train()


def test_guided_picks_rescue_more_say_why_and_stay_out_of_the_estimate(planted) -> None:
    store, truth = planted
    sweeps = Sweeps(store)
    for seed in range(3):
        sweep_and_review(sweeps, truth, 40, seed=seed)
    model = sweeps.train()
    assert model.decisions == len({it.memory_id for s in sweeps.list()
                                   for it in sweeps.get(s.id).items})
    assert sweeps.guidance().ready
    assert f"on {model.decisions} decisions" in sweeps.guidance().message
    before = sweeps.estimate(BAND)
    st = sweeps.start(BAND, 40, guided=0.5, seed=9)
    picks = sweeps.picks(st.id)
    guided = [st.items[p.pos] for p in picks.values() if p.guided]
    uniform = [st.items[p.pos] for p in picks.values() if not p.guided]
    assert len(guided) == len(uniform) == 20
    assert {it.memory_id for it in guided}.isdisjoint(it.memory_id for it in uniform)
    reviewed_before = {it.memory_id for s in sweeps.list() if s.id != st.id
                       for it in sweeps.get(s.id).items}
    assert reviewed_before.isdisjoint(it.memory_id for it in guided)
    for p in picks.values():
        if p.guided:
            assert p.inclusion_p == 1.0 and 0 <= p.score <= 1
            assert p.reason.startswith(f"score {p.score:.2f}: ")
    rescued_guided = sum(it.memory_id in truth.mislabelled for it in guided)
    rescued_uniform = sum(it.memory_id in truth.mislabelled for it in uniform)
    assert rescued_guided >= 2 * max(1, rescued_uniform)
    review(sweeps, truth, st.id)
    after = sweeps.estimate(BAND)
    assert after.uniform == before.uniform + 20 and after.guided == 20
    assert after.guided_raised == sum(it.memory_id in truth.mislabelled for it in guided)
    assert "guided picks" in after.headline()


def test_an_all_guided_sweep_and_a_band_without_unreviewed_memories(planted) -> None:
    store, truth = planted
    sweeps = Sweeps(store)
    for seed in range(3):
        sweep_and_review(sweeps, truth, 40, seed=seed)
    sweeps.train()
    st = sweeps.start(BAND, 5, guided=1.0, seed=1)
    assert all(p.guided for p in sweeps.picks(st.id).values())
    # A guided sweep of one user's memories picks only that user's.
    user = store.get(st.items[0].memory_id).user_id
    mine = sweeps.start(BAND, 5, guided=1.0, seed=2, user=user)
    assert mine.items and all(p.guided for p in sweeps.picks(mine.id).values())
    assert {store.get(it.memory_id).user_id for it in mine.items} == {user}
    with pytest.raises(Exception, match="nothing to sweep"):
        sweeps.start((0.0, 0.01), 5, guided=1.0)


@pytest.mark.parametrize("bad", [math.nan, -0.1, 1.5, "half", True, None])
def test_a_bad_guided_share_is_refused_before_anything_is_written(planted, bad) -> None:
    store, _ = planted
    sweeps = Sweeps(store)
    with pytest.raises(ValidationError, match="guided"):
        sweeps.start(BAND, 5, guided=bad)
    assert sweeps.list() == []


@pytest.mark.parametrize("band", [(math.nan, 0.4), (0.5, 0.3), (0.1,), "x"])
def test_a_bad_band_is_refused_by_the_estimate(planted, band) -> None:
    store, _ = planted
    with pytest.raises(ValidationError, match="band"):
        Sweeps(store).estimate(band)
