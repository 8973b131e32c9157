"""Importance calibration learned from sweep decisions, through the ``Calibrations``
façade: cold start, suggestions only inside the reviewed range, error before/after on
held-out decisions, applying as one audited group that undo reverts, and auto-apply per
source touching only that source's new memories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memdesk.core.curation.guided import ColdStart
from memdesk.core.curation.service import Calibrations, Sweeps
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.learning import copy_store, planted_template, sweep_and_review


@pytest.fixture(scope="module")
def trained_template(tmp_path_factory: pytest.TempPathFactory):
    """A planted store after 240 reviewed decisions (half guided) and training; its
    direct reflective notes give the calibration a direct kind of memory to raise."""
    d = tmp_path_factory.mktemp("calibrated")
    path, truth = planted_template(d, reflective_direct=150)
    s = copy_store(path, d / "trained.db")
    sweeps = Sweeps(s)
    for seed in range(3):
        sweep_and_review(sweeps, truth, 40, seed=seed)
    sweeps.train()
    for seed in range(3, 6):
        sweep_and_review(sweeps, truth, 40, guided=0.5, seed=seed)
    Calibrations(s).train()
    s.close()
    return d / "trained.db", truth


@pytest.fixture
def trained(trained_template, tmp_path: Path):
    path, truth = trained_template
    s = copy_store(path, tmp_path / "s.db")
    yield s, truth
    s.close()


def test_calibration_waits_for_enough_decisions(tmp_path: Path) -> None:
    path, truth = planted_template(tmp_path)
    s = copy_store(path, tmp_path / "cold.db")
    cals = Calibrations(s)
    assert cals.current() is None and cals.suggest(["anything"]) == []
    sweep_and_review(Sweeps(s), truth, 20, seed=1)
    with pytest.raises(ColdStart, match="40 decisions"):
        cals.train()
    assert cals.apply([]).count == 0 and cals.apply_pending().count == 0
    s.close()


def _unreviewed(store, truth, n: int) -> list[str]:
    reviewed = {it.memory_id for sw in Sweeps(store).list()
                for it in Sweeps(store).get(sw.id).items}
    return [m for m in truth.true if m not in reviewed][:n]


def test_error_falls_on_held_out_decisions_and_suggestions_stay_in_range(trained) -> None:
    store, truth = trained
    cal = Calibrations(store).current()
    assert cal is not None and cal.held_out > 0
    assert cal.mae_after < cal.mae_before
    assert "held-out error" in cal.describe()
    # The relative change shown is after/before - 1 (e.g. -40% when the error falls).
    assert f"({cal.mae_after / cal.mae_before - 1:+.0%})" in cal.describe()
    ids = _unreviewed(store, truth, 300)
    sugs = Calibrations(store).suggest([*ids, "no-such-memory"])
    assert [s.memory_id for s in sugs] == ids  # unknown ids are left out, not an error
    assert all(s.suggested is not None for s in sugs)
    raised = [s for s in sugs if s.suggested > s.write_time]
    assert raised and sum(s.memory_id in truth.mislabelled for s in raised) > len(raised) / 2
    high = next(r for r in store.page(limit=500) if r.importance > 0.8)
    out_of_range = Calibrations(store).suggest([high.id])[0]
    assert out_of_range.suggested is None  # nothing taught about 0.8+ memories


def test_memories_outside_the_taught_range_leave_the_others_suggestions_alone(
        trained) -> None:
    store, truth = trained
    highs = [r.id for r in store.page(limit=500) if r.importance > 0.8]
    ids = _unreviewed(store, truth, 100)
    sugs = {s.memory_id: s for s in Calibrations(store).suggest([*highs, *ids])}
    assert highs and all(sugs[h].suggested is None for h in highs)
    assert all(sugs[i].suggested is not None for i in ids)


def test_applying_is_one_audited_group_and_undo_restores_it(trained) -> None:
    store, truth = trained
    cals = Calibrations(store)
    ids = [s.memory_id for s in cals.suggest(_unreviewed(store, truth, 400))
           if s.suggested != s.write_time][:5]
    before = {i: store.get(i).importance for i in ids}
    done = cals.apply(ids)
    assert done.count == 5 and done.changes.action is acts.CALIBRATE
    for i in ids:
        assert store.get(i).importance != before[i]
        assert any(e.action == "calibrate" for e in store.events(i))
    cals.undo(done.changes.group_id)
    assert {i: store.get(i).importance for i in ids} == before


def _raised_direct(cals: Calibrations, store: MemoryStore, truth: Any) -> tuple[Any, Any]:
    """A suggestion the calibration would raise for a "direct" (not extracted) memory,
    and that memory: new memories like it are what auto-apply calibrates."""
    like = next(x for x in cals.suggest(_unreviewed(store, truth, 3000))
                if x.source == "direct" and (x.suggested or 0) > x.write_time)
    return like, store.get(like.memory_id)


def test_auto_apply_calibrates_only_new_memories_of_that_source(trained) -> None:
    store, truth = trained
    cals = Calibrations(store)
    # A kind of memory the calibration would raise, from the "direct" source (no
    # extraction): new memories like it are what auto-apply must calibrate.
    like, model = _raised_direct(cals, store, truth)
    cals.set_auto_apply("direct", True)
    assert set(cals.auto_sources()) == {"direct"}
    old = _unreviewed(store, truth, 1)[0]
    old_imp = store.get(old).importance
    new = [store.add(user_id="u", text=model.text, type=model.type,
                     importance=model.importance).id for _ in range(3)]
    for _ in range(model.access_count):
        store.record_access(new)
    done = cals.apply_pending()
    assert set(done.changes.memory_ids) == set(new)
    assert all(store.get(i).importance == like.suggested for i in new)
    assert store.get(old).importance == old_imp
    assert cals.apply_pending().count == 0  # applied once, not again
    cals.undo(done.changes.group_id)
    assert all(store.get(i).importance == model.importance for i in new)
    cals.set_auto_apply("direct", False)
    assert cals.auto_sources() == {}


def test_applying_pending_calibrations_is_audited_under_the_given_actor(trained) -> None:
    store, truth = trained
    cals = Calibrations(store)
    _, model = _raised_direct(cals, store, truth)
    cals.set_auto_apply("direct", True)
    new = store.add(user_id="u", text=model.text, type=model.type,
                    importance=model.importance).id
    for _ in range(model.access_count):
        store.record_access([new])
    done = cals.apply_pending(actor="agent")
    assert new in done.changes.memory_ids
    assert {e.actor for e in store.events(new) if e.action == "calibrate"} == {"agent"}


@pytest.mark.parametrize("bad", ["", None, "x" * 65])
def test_auto_apply_needs_a_source_name(trained, bad) -> None:
    store, _ = trained
    with pytest.raises(Exception, match="source"):
        Calibrations(store).set_auto_apply(bad, True)
