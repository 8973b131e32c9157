"""GUI of delta memory (pytest-qt): the source-dominance plot, the diff view, the drift
review queue with its actions and undo, and the source configuration panel."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from memdesk.core.delta.service import DeltaMemory
from memdesk.core.delta.snapshots import SnapshotSeries
from memdesk.core.store.records import Changed

pytestmark = pytest.mark.gui



def synthetic_series(n: int, sources=("context", "search", "database")) -> SnapshotSeries:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    raw = rng.random((len(sources), n)) + 0.05
    shares = raw / raw.sum(axis=0)
    t0 = datetime(2026, 1, 1)
    status = [None] + [("healthy", "suspicious", "dangerous")[i % 7 // 3] for i in range(1, n)]
    return SnapshotSeries(
        goal="synthetic", ids=[f"{i:032x}" for i in range(n)],
        times=[t0 + timedelta(hours=i) for i in range(n)], labels=[f"#{i}" for i in range(n)],
        sources=list(sources), shares={s: shares[k] for k, s in enumerate(sources)},
        aggregate=raw.sum(axis=0), dominance=shares.max(axis=0), status=status,
        risk=np.r_[np.nan, rng.random(n - 1)], diff_ids=[None, *range(1, n)],
    )


def test_plot_has_one_series_per_source_and_all_points(qtbot, demo_store, desk_for) -> None:  # type: ignore[no-untyped-def]
    from memdesk.ui.delta.snapshots_view import SnapshotsView

    view = SnapshotsView(desk_for(demo_store))
    qtbot.addWidget(view)
    view.resize(1100, 800)
    view.show()
    with qtbot.waitSignal(view.seriesLoaded, timeout=10_000) as blocker:
        pass
    series = blocker.args[0]
    plot = view.plot
    assert list(plot.source_curves) == series.sources
    assert all(c.opts['fillLevel'] == 0 for c in plot.source_curves.values())
    for curve in plot.source_curves.values():
        assert len(curve.xData) == len(series)
    top = plot.source_curves[series.sources[-1]].yData
    assert np.allclose(top, 1.0)  # shares stack to the whole weighted score
    assert len(plot.dominance_curve.xData) == len(series)
    marked = sum(len(m.data) for m in plot.markers.values())
    assert marked == sum(1 for s in series.status if s is not None) == len(series) - 1
    assert plot.threshold_line.value() == pytest.approx(DeltaMemory(demo_store).config()
                                                        .dominance_threshold)
    # Hover text names the figures of the snapshot under the mouse.
    assert "dominance" in plot.describe(3) and series.sources[0] in plot.describe(3)

    # Clicking a snapshot opens the diff from the one before it.
    i = len(series) // 2
    vb = plot.plot.getPlotItem().getViewBox()
    scene_pt = vb.mapViewToScene(QPointF(i, 0.5))
    widget_pt = plot.plot.mapFromScene(scene_pt)
    assert plot.index_at(scene_pt) == i
    with qtbot.waitSignal(view.diffShown, timeout=10_000) as shown:
        qtbot.mouseClick(plot.plot.viewport(), Qt.MouseButton.LeftButton,
                         pos=QPoint(int(widget_pt.x()), int(widget_pt.y())))
    d = shown.args[0]
    assert (d.before_id, d.after_id) == (series.ids[i - 1], series.ids[i])
    assert view.diff_view.model.rowCount() == len(d.candidate_deltas)
    assert view.diff_view.formula.text().startswith("risk = 0.35·")

    # Another goal: the stack is rebuilt for its sources.
    other = view.goal_box.findData("answer preference questions")
    with qtbot.waitSignal(view.seriesLoaded, timeout=10_000) as again:
        view.goal_box.setCurrentIndex(other)
    assert list(plot.source_curves) == again.args[0].sources


def test_plot_handles_ten_thousand_snapshots(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from memdesk.ui.delta.plot import SnapshotPlot

    plot = SnapshotPlot()
    qtbot.addWidget(plot)
    plot.resize(1000, 500)
    plot.show()
    series = synthetic_series(10_000)
    plot.set_series(series, 0.6)
    assert [len(c.xData) for c in plot.source_curves.values()] == [10_000] * 3
    assert sum(len(m.data) for m in plot.markers.values()) == 9_999
    image = plot.grab()
    assert image.width() > 0
    out = tmp_path / "plot.png"
    plot.export_png(out)
    assert out.stat().st_size > 1000
    vb = plot.plot.getPlotItem().getViewBox()
    assert plot.index_at(vb.mapViewToScene(QPointF(9_999, 0.5))) == 9_999


def test_models_pass_qtmodeltester(qtmodeltester, demo_store) -> None:  # type: ignore[no-untyped-def]
    from memdesk.ui.delta.models import CandidateDeltaModel, QueueModel, SourcesModel

    dm = DeltaMemory(demo_store)
    rec = dm.queue()[0]
    deltas = CandidateDeltaModel()
    deltas.set_rows(dm.diff(rec.before_id, rec.after_id).candidate_deltas)
    qtmodeltester.check(deltas)
    queue = QueueModel()
    queue.set_rows(dm.queue(pending_only=False))
    qtmodeltester.check(queue)
    cfg = dm.config()
    sources = SourcesModel(lambda *a: None)
    sources.set_rows(cfg.sources, cfg.effective_weights())
    qtmodeltester.check(sources)


def select(view, diff_id: int, qtbot) -> None:  # type: ignore[no-untyped-def]
    row = view.model.row_of(diff_id)
    assert row is not None
    with qtbot.waitSignal(view.diffShown, timeout=10_000):
        view.table.selectRow(row)
    assert view.current().id == diff_id


def test_queue_actions_change_the_store_and_undo(qtbot, demo_store, desk_for) -> None:  # type: ignore[no-untyped-def]
    from memdesk.ui.delta.drift_view import DriftView

    window = desk_for(demo_store)
    view = DriftView(window)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitSignal(view.queueLoaded, timeout=10_000).wait()
    dm = DeltaMemory(demo_store)
    pending = dm.queue()
    assert view.model.rowCount() == len(pending)
    target = next(r for r in pending if r.action == "dampen")
    select(view, target.id, qtbot)
    assert view.dampen_button.isEnabled()
    assert view.dampen_button.text() == "Dampen search -0.15"
    weight = dm.config().source("search").weight

    with qtbot.waitSignal(view.queueLoaded, timeout=10_000):
        assert view.act("dampen")
    assert math.isclose(dm.config().source("search").weight, weight - 0.15)
    assert dm.stored_diff(target.id).review == "dampened"
    assert view.model.row_of(target.id) is None  # left the pending queue
    assert window.seen and window.seen[-1].touches(Changed.DELTA)
    qtbot.waitUntil(lambda: view.sources.model.data(view.sources.model.index(1, 2))
                    == f"{weight - 0.15:.3f}")

    with qtbot.waitSignal(view.queueLoaded, timeout=10_000):
        assert view.undo_review()
    assert math.isclose(dm.config().source("search").weight, weight)
    assert dm.stored_diff(target.id).review == "pending"
    assert view.model.row_of(target.id) is not None

    other = next(r for r in dm.queue() if r.id != target.id)
    select(view, other.id, qtbot)
    assert not view.act("investigated")  # a note is required; nothing changes
    assert dm.stored_diff(other.id).review == "pending"
    view.note.setText("Checked the hits: <b>fine</b>")
    with qtbot.waitSignal(view.queueLoaded, timeout=10_000):
        assert view.act("investigated")
    rec = dm.stored_diff(other.id)
    assert (rec.review, rec.review_note) == ("investigated", "Checked the hits: <b>fine</b>")
    select(view, dm.queue()[0].id, qtbot)
    chosen = view.current().id
    with qtbot.waitSignal(view.queueLoaded, timeout=10_000):
        assert view.act("reject")
    assert dm.stored_diff(chosen).review == "rejected"

    # Reviewed changes are listed with the checkbox; undo works on the selected one.
    with qtbot.waitSignal(view.queueLoaded, timeout=10_000):
        view.show_all.setChecked(True)
    select(view, other.id, qtbot)
    assert view.undo_button.isEnabled() and not view.accept_button.isEnabled()
    with qtbot.waitSignal(view.queueLoaded, timeout=10_000):
        assert view.undo_review()
    assert dm.stored_diff(other.id).review == "pending"


def test_sources_panel_edits_are_saved_validated_and_undoable(qtbot, demo_store, desk_for) -> None:  # type: ignore[no-untyped-def]
    from memdesk.ui.delta.drift_view import DriftView

    view = DriftView(desk_for(demo_store))
    qtbot.addWidget(view)
    qtbot.waitSignal(view.queueLoaded, timeout=10_000).wait()
    panel = view.sources
    model = panel.model
    dm = DeltaMemory(demo_store)
    weight = model.index(0, 2)
    assert model.setData(weight, "0.9")
    assert dm.config().source("context").weight == 0.9
    assert not model.setData(weight, "lots")
    assert "Not saved" in panel.message.text()
    assert not model.setData(weight, "nan")
    assert dm.config().source("context").weight == 0.9
    enabled = model.index(3, 3)
    assert model.setData(enabled, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    assert dm.config().source("model_prior").enabled is False
    assert model.data(model.index(3, 6)) == "off"
    view.desk.undo_stack.undo()  # Edit → Undo: the newest edit first
    assert dm.config().source("model_prior").enabled is True
    view.desk.undo_stack.undo()
    assert dm.config().source("context").weight == 0.30
    view.desk.undo_stack.redo()
    assert dm.config().source("context").weight == 0.9


def test_time_axis_labels_follow_the_span() -> None:
    from memdesk.ui.delta.plot import tick_labels

    t0 = datetime(2026, 11, 23, 9, 0)
    minutes = tick_labels([t0 + timedelta(minutes=5 * i) for i in range(6)])
    assert minutes == ["09:00", "09:05", "09:10", "09:15", "09:20", "09:25"]
    days = tick_labels([t0 + timedelta(days=i, hours=h) for i in range(3) for h in (0, 1)])
    assert len(set(filter(None, days))) == len([d for d in days if d])  # no repeats
    months = tick_labels([t0 + timedelta(days=30 * i) for i in range(4)])
    assert months[0] == "Nov 23" and "" not in months
