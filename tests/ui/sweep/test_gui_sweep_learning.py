"""pytest-qt: the sweep view's start page shows what the sweeps say about the band
(estimate, per type and source), trains the model off the GUI thread, says when it is
still too early, and a guided sweep's review page says why each guided pick was chosen."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from memdesk.core.curation.service import Sweeps
from memdesk.ui.sweep.view import SweepView
from tests.helpers.learning import copy_store, planted_template, sweep_and_review

pytestmark = pytest.mark.gui


def show(qtbot, widget: QWidget) -> None:
    qtbot.addWidget(widget)
    widget.resize(1200, 900)
    widget.show()
    qtbot.waitExposed(widget)


@pytest.fixture
def planted(tmp_path: Path):
    # Direct reflective notes: a direct kind of memory the calibration learns to raise.
    path, truth = planted_template(tmp_path, reflective_direct=150)
    s = copy_store(path, tmp_path / "gui.db")
    yield s, truth
    s.close()


def test_cold_start_says_so_and_training_waits(qtbot, planted, desk_for) -> None:
    store, _ = planted
    view = SweepView(desk_for(store))
    show(qtbot, view)
    panel = view.start.learning
    qtbot.waitUntil(lambda: "nothing to estimate" in panel.headline.text(), timeout=20000)
    assert "Guided picks start after 30 decisions" in panel.model_state.text()
    assert panel.table.rowCount() == 0
    panel.train_button.click()
    qtbot.waitUntil(lambda: "30 decisions" in view.start.status.text(), timeout=10000)
    assert panel.train_button.isEnabled()


def test_estimate_training_and_a_guided_sweep(qtbot, planted, desk_for) -> None:
    store, truth = planted
    sweeps = Sweeps(store)
    for seed in range(3):
        sweep_and_review(sweeps, truth, 40, seed=seed)
    view = SweepView(desk_for(store))
    show(qtbot, view)
    panel = view.start.learning
    # The first estimate imports the statistics library: seconds on a busy machine.
    qtbot.waitUntil(lambda: "would be raised" in panel.headline.text(), timeout=60000)
    est = sweeps.estimate()
    assert f"{est.raised.memories:,}" in panel.headline.text()
    groups = [panel.table.item(i, 0).text() for i in range(panel.table.rowCount())]
    assert "source llm" in groups and any(g.startswith("type ") for g in groups)
    # Enough decisions, no model yet: the line beside "Train on my decisions" does not
    # send the operator to the CLI for what the button does.
    assert "no guided model trained yet" in panel.model_state.text()
    assert "memdesk " not in panel.model_state.text()

    panel.train_button.click()
    qtbot.waitUntil(lambda: "Guided model trained" in panel.model_state.text(),
                    timeout=20000)
    assert sweeps.guidance().ready

    view.start.guided.setValue(1.0)
    view.start.n.setValue(3)
    view.start_from_form()
    qtbot.waitUntil(lambda: view.stack.currentWidget() is view.review, timeout=20000)
    assert view.review.hint.text().count("Guided pick") == 1
    assert "score " in view.review.hint.text()
    assert all(p.guided for p in sweeps.picks(view.sweep_id).values())


def test_detail_pane_shows_the_calibrated_importance_beside_the_write_time_one(
        qtbot, planted) -> None:
    from memdesk.core.curation.service import Calibrations
    from memdesk.ui.browse.detail import DetailPane

    store, truth = planted
    pane = DetailPane(store)
    show(qtbot, pane)
    some = next(iter(truth.true))
    pane.show_memory(some)
    assert not pane.suggested.isVisibleTo(pane)  # no calibration yet: nothing shown
    sweeps = Sweeps(store)
    for seed in range(3):
        sweep_and_review(sweeps, truth, 40, seed=seed)
    Calibrations(store).train()
    reviewed = {it.memory_id for s in sweeps.list() for it in sweeps.get(s.id).items}
    fresh = [m for m in truth.true if m not in reviewed][:300]
    raised = next(x for x in Calibrations(store).suggest(fresh)
                  if (x.suggested or 0) > x.write_time)
    pane.show_memory(raised.memory_id)
    assert pane.suggested.isVisibleTo(pane)
    assert f"suggested {raised.suggested:.2f}" in pane.suggested.text()
    assert f"write-time {raised.write_time:.2f}" in pane.suggested.text()
    high = next(r for r in store.page(limit=500) if r.importance > 0.8)
    pane.show_memory(high.id)  # outside what the decisions cover: no suggestion
    assert not pane.suggested.isVisibleTo(pane)


def test_new_memories_of_an_auto_apply_source_are_calibrated_and_undone_by_ctrl_z(
        qtbot, planted, desk_for) -> None:
    from memdesk.core.curation.service import Calibrations
    from memdesk.ui.sweep.learning import auto_apply_new

    store, truth = planted
    sweeps = Sweeps(store)
    for seed in range(3):
        sweep_and_review(sweeps, truth, 40, seed=seed)
    sweeps.train()
    for seed in range(3, 6):
        sweep_and_review(sweeps, truth, 40, guided=0.5, seed=seed)
    cals = Calibrations(store)
    cals.train()
    reviewed = {it.memory_id for s in sweeps.list() for it in sweeps.get(s.id).items}
    like = next(x for x in cals.suggest([m for m in truth.true if m not in reviewed])
                if x.source == "direct" and (x.suggested or 0) > x.write_time)
    model = store.get(like.memory_id)
    desk = desk_for(store)
    auto_apply_new(desk)  # no source has auto-apply: nothing runs, nothing broadcast
    assert desk.seen == [] and not desk.running
    cals.set_auto_apply("direct", True)
    new = store.add(user_id="u", text=model.text, type=model.type,
                    importance=model.importance).id
    for _ in range(model.access_count):
        store.record_access([new])
    auto_apply_new(desk)
    qtbot.waitUntil(lambda: store.get(new).importance == like.suggested, timeout=20000)
    qtbot.waitUntil(lambda: desk.undo_stack.canUndo(), timeout=5000)
    assert "calibrated importance" in desk.undo_stack.undoText()
    desk.undo_stack.undo()
    assert store.get(new).importance == model.importance
