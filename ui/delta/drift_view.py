"""Drift review: the queue of suspicious and dangerous memory changes, the selected
change's diff, and the actions an operator takes on it — accept, dampen (apply the
recommended −0.15 weight change to the cause source), reject, or mark investigated
with a note.  Every action is one audited group in the core, run as one action on
the desk's pipeline and undone from Edit → Undo ("Undo review" undoes the selected
change's review even when it was not the last action).  The source configuration
panel sits alongside, since dampening edits it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelection, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.delta.contracts import DeltaDiff
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.delta.snapshots import DiffRecord
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.delta.diff_view import DiffView
from memdesk.ui.delta.models import QueueModel
from memdesk.ui.delta.sources import SourcesPanel
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.flow_layout import FlowLayout
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.text import elide, plain_label
from memdesk.ui.desk.view import DeskView

VERBS = {"accept": "Accept", "dampen": "Dampen", "reject": "Reject",
         "investigated": "Mark investigated"}


class DriftView(DeskView):
    """Queue (QueueModel) + action bar + DiffView + SourcesPanel."""

    refresh_on = Changed.DELTA
    queueLoaded = Signal(int)
    diffShown = Signal(object)

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        self.delta = DeltaMemory(self.store)
        self._queue = LatestTask(self)
        self._queue.finished.connect(self._show_queue)
        self._queue.failed.connect(self._failed)
        self._diff = LatestTask(self)
        self._diff.finished.connect(self._show_diff)
        self._diff.failed.connect(self._failed)
        self._select_after_load: int | None = None
        self._last_reviewed: int | None = None  # leaves a pending-only queue when reviewed

        self.show_all = QCheckBox("Show reviewed changes too")
        self.show_all.toggled.connect(lambda _on: self.reload_queue())
        self.summary = plain_label("Loading…")
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.show_all)

        self.model = QueueModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        # Every column as wide as its header and values (never clipped); the goal
        # takes the rest and elides.
        for col in range(self.model.columnCount()):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        for col in (1, 7):  # goal and note: stored text of any length
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)

        self.accept_button = QPushButton("Accept")
        self.dampen_button = QPushButton("Dampen")
        self.reject_button = QPushButton("Reject")
        self.note = QLineEdit()
        self.note.setPlaceholderText("What did the investigation find?")
        self.note.setMaxLength(10_000)
        self.investigated_button = QPushButton("Mark investigated")
        self.undo_button = QPushButton("Undo review")
        self.accept_button.clicked.connect(lambda: self.act("accept"))
        self.dampen_button.clicked.connect(lambda: self.act("dampen"))
        self.reject_button.clicked.connect(lambda: self.act("reject"))
        self.investigated_button.clicked.connect(lambda: self.act("investigated"))
        self.undo_button.clicked.connect(self.undo_review)
        self.action_message = plain_label("")
        self.action_message.setWordWrap(True)
        actions = FlowLayout()  # wraps in a narrow window instead of widening it
        for b in (self.accept_button, self.dampen_button, self.reject_button):
            actions.addWidget(b)
        actions.addWidget(self.note, stretch=True)
        actions.addWidget(self.investigated_button)
        actions.addWidget(self.undo_button)

        self.diff_view = DiffView()
        self.sources = SourcesPanel(desk, self.delta)

        left = QWidget()
        left_l = QVBoxLayout(left)
        left_l.setContentsMargins(0, 0, 0, 0)
        left_l.addLayout(top)
        left_l.addWidget(self.table, 1)
        left_l.addLayout(actions)
        left_l.addWidget(self.action_message)
        upper = QSplitter(Qt.Orientation.Horizontal)
        upper.addWidget(left)
        upper.addWidget(self.sources)
        upper.setStretchFactor(0, 3)
        upper.setStretchFactor(1, 2)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(upper)
        split.addWidget(self.diff_view)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        lay = QVBoxLayout(self)
        lay.addWidget(split)
        self._update_buttons()
        self.reload_queue()

    # -- loading ----------------------------------------------------------------------
    def reload(self, changes: Changes) -> None:
        if changes.touches(Changed.SOURCES | Changed.SETTINGS):
            # Deferred: the change may come from an edit still inside the sources model.
            QTimer.singleShot(0, self.sources.reload)
        if changes.touches(Changed.SNAPSHOTS | Changed.REVIEWS):
            self.reload_queue()

    def reload_queue(self) -> None:
        delta, pending = self.delta, not self.show_all.isChecked()
        self._queue.start(lambda state: delta.queue(pending_only=pending))

    def wait_idle(self, msecs: int = 5000) -> None:
        self._queue.wait(msecs)
        self._diff.wait(msecs)

    def _show_queue(self, rows: list[DiffRecord]) -> None:
        shown = self.current()
        keep = self._select_after_load or (shown.id if shown is not None else None)
        self._select_after_load = None
        self.model.set_rows(rows)
        pending = sum(1 for r in rows if r.review == "pending")
        self.summary.setText(f"{pending:,} changes waiting for review" + (
            f" ({len(rows):,} flagged in all)" if self.show_all.isChecked() else ""))
        row = self.model.row_of(keep) if keep is not None else None
        if row is None and rows:
            row = 0
        if row is not None:
            self.table.selectRow(row)
        else:
            self.diff_view.clear("No flagged memory changes.")
        self._update_buttons()
        self.queueLoaded.emit(len(rows))

    def current(self) -> DiffRecord | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.record(rows[0].row()) if rows else None

    def _selection_changed(self, _sel: QItemSelection, _desel: QItemSelection) -> None:
        self._update_buttons()
        rec = self.current()
        if rec is None:
            return
        delta = self.delta
        self._diff.start(lambda state: (delta.diff(rec.before_id, rec.after_id),
                                        delta.stored_diff(rec.id)))

    def _show_diff(self, result: tuple[DeltaDiff, DiffRecord]) -> None:
        d, rec = result
        self.diff_view.show_diff(
            d, rec, f"{rec.created_at:%Y-%m-%d %H:%M} · {elide(rec.goal, 70)} · change #{rec.id}"
        )
        self._update_buttons()
        self.diffShown.emit(d)

    def _update_buttons(self) -> None:
        rec = self.current()
        pending = rec is not None and rec.review == "pending"
        for b in (self.accept_button, self.reject_button, self.investigated_button):
            b.setEnabled(pending)
        can_dampen = pending and rec is not None and rec.primary_cause is not None
        self.dampen_button.setEnabled(can_dampen)
        if rec is not None and rec.primary_cause:
            step = rec.decision.get("recommended_weight_adjustments", {}).get(
                rec.primary_cause, -0.15)
            self.dampen_button.setText(f"Dampen {rec.primary_cause} {step:+.2f}")
        else:
            self.dampen_button.setText("Dampen")
        self.undo_button.setEnabled(self._undo_target() is not None)

    def _undo_target(self) -> int | None:
        rec = self.current()
        if rec is not None and rec.review not in ("pending", "none"):
            return rec.id
        return self._last_reviewed

    # -- actions ----------------------------------------------------------------------
    def act(self, action: str) -> bool:
        rec = self.current()
        if rec is None:
            return False
        note = self.note.text().strip() or None
        delta = self.delta

        def done(_changes: Changes) -> None:
            self._last_reviewed = rec.id
            self.note.clear()
            self.action_message.setText(f"Change #{rec.id}: {action}"
                                        + (" (source weight lowered)" if action == "dampen"
                                           else ""))

        return self._run(Op(f"{VERBS[action]} change #{rec.id}",
                            lambda: delta.review(rec.id, action, note=note), done), rec.id)

    def undo_review(self) -> bool:
        """Undo the selected change's review, or else the last review made here."""
        target = self._undo_target()
        if target is None:
            return False
        delta = self.delta

        def done(_changes: Changes) -> None:
            if target == self._last_reviewed:
                self._last_reviewed = None
            self.action_message.setText(f"Change #{target}: review undone")

        return self._run(Op(f"Undo the review of change #{target}",
                            lambda: delta.undo_review(target), done), target)

    def _run(self, op: Op[Any], diff_id: int) -> bool:
        self._select_after_load = diff_id  # keep the change selected after the reload
        ok = self.run(op)
        if not ok:
            self._select_after_load = None
        return ok

    def _failed(self, exc: object, tb: str) -> None:
        self.summary.setText(f"Could not load the review queue: {exc}")
