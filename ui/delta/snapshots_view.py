"""Snapshots view: pick a goal, see its source-dominance plot over time, click a
snapshot to open the diff from the one before it (shown below the plot).

Loading the series and computing a diff run off the GUI thread (LatestTask: a new
request cancels the previous one).  pyqtgraph is imported with this module, which the
sidebar imports only when the view is first created.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
)

from memdesk.core.delta.contracts import DeltaDiff
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.delta.snapshots import DiffRecord, SnapshotSeries
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.delta.diff_view import DiffView
from memdesk.ui.delta.plot import SnapshotPlot
from memdesk.ui.desk.actions import Desk
from memdesk.ui.desk.ops import LatestTask, TaskState
from memdesk.ui.desk.text import count_of, elide, plain_label
from memdesk.ui.desk.view import DeskView


class SnapshotsView(DeskView):
    """Goal picker + SnapshotPlot + DiffView.  Refreshes on new snapshots and on the
    delta settings (the dominance threshold line)."""

    refresh_on = Changed.SNAPSHOTS | Changed.SETTINGS
    seriesLoaded = Signal(object)  # SnapshotSeries
    diffShown = Signal(object)  # DeltaDiff

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        self.delta = DeltaMemory(self.store)
        self.threshold = 0.6
        self._goals = LatestTask(self)
        self._goals.finished.connect(self._show_goals)
        self._goals.failed.connect(self._failed)
        self._series = LatestTask(self)
        self._series.finished.connect(self._show_series)
        self._series.failed.connect(self._failed)
        self._diff = LatestTask(self)
        self._diff.finished.connect(self._show_diff)
        self._diff.failed.connect(self._failed)

        self.goal_box = QComboBox()
        self.goal_box.setMinimumWidth(320)
        self.goal_box.currentIndexChanged.connect(self._goal_changed)
        self.export_button = QPushButton("Export PNG…")
        self.export_button.clicked.connect(self._export)
        self.info = plain_label("Loading…")
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Goal:"))
        bar.addWidget(self.goal_box)
        bar.addWidget(self.info, 1)
        bar.addWidget(self.export_button)

        self.plot = SnapshotPlot()
        self.plot.snapshotClicked.connect(self.open_snapshot)
        self.diff_view = DiffView()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.plot)
        split.addWidget(self.diff_view)
        # Halves: 3:2 left the diff's table five rows at 1280×700.
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(split, 1)
        self.reload(Changes.everything())

    # -- loading ----------------------------------------------------------------------
    def reload(self, changes: Changes) -> None:
        delta = self.delta
        self._goals.start(lambda state: (delta.goals(), delta.config().dominance_threshold))

    def _show_goals(self, result: tuple[list[tuple[str, int, datetime]], float]) -> None:
        goals, self.threshold = result
        current = self.goal_box.currentData()
        self.goal_box.blockSignals(True)
        self.goal_box.clear()
        for goal, n, _latest in goals:
            self.goal_box.addItem(f"{elide(goal, 60)} ({n:,})", goal)
        self.goal_box.blockSignals(False)
        if not goals:
            self.info.setText("No snapshots yet: `memdesk snapshot` writes them.")
            return
        idx = max(0, self.goal_box.findData(current)) if current is not None else 0
        self.goal_box.setCurrentIndex(idx)
        self._goal_changed(idx)

    def _goal_changed(self, _index: int) -> None:
        goal = self.goal_box.currentData()
        if goal is None:
            return
        self.info.setText("Loading…")
        delta = self.delta
        self._series.start(lambda state: delta.series(goal))

    def _show_series(self, series: SnapshotSeries) -> None:
        self.plot.set_series(series, self.threshold)
        flagged = sum(1 for s in series.status if s in ("suspicious", "dangerous"))
        self.info.setText(f"{count_of(len(series), 'snapshot', 'snapshots')}, "
                          f"{count_of(flagged, 'flagged change', 'flagged changes')}")
        self.seriesLoaded.emit(series)

    def open_snapshot(self, index: int) -> None:
        """Show the diff that led to snapshot ``index`` (from the one before it)."""
        series = self.plot.series
        if series is None or not len(series):
            return
        if index <= 0:
            self.diff_view.clear("The first snapshot of a goal has nothing before it.")
            return
        before, after = series.ids[index - 1], series.ids[index]
        diff_id = series.diff_ids[index]
        delta = self.delta
        title = (f"Snapshot #{index} → #{index + 1} · {series.times[index]:%Y-%m-%d %H:%M} · "
                 f"{elide(series.goal, 60)}")

        def work(state: TaskState) -> tuple[DeltaDiff, DiffRecord | None, str]:
            rec = delta.stored_diff(diff_id) if diff_id is not None else None
            return delta.diff(before, after), rec, title

        self._diff.start(work)

    def _show_diff(self, result: tuple[DeltaDiff, DiffRecord | None, str]) -> None:
        d, rec, title = result
        self.diff_view.show_diff(d, rec, title)
        self.diffShown.emit(d)

    def wait_idle(self, msecs: int = 5000) -> None:
        for task in (self._goals, self._series, self._diff):
            task.wait(msecs)

    def _failed(self, exc: object, tb: str) -> None:
        self.info.setText(f"Could not load snapshots: {exc}")

    def _export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export plot", "snapshots.png",
                                              "PNG image (*.png)")
        if path:
            try:
                self.plot.export_png(path)
            except OSError as exc:  # a folder one may not write to: said, not raised
                self.info.setText(f"The plot was not exported: {exc}")
                return
            self.info.setText(f"Exported the plot to {path}.")
