"""The Checks view: every recall check with its last result, run them all (in the
background, with progress and Cancel), remove one (undoable, Ctrl+Z).

The lower pane says, for the selected check, what its last run found for each memory
it names: the rank, or why it was not returned (deleted, merged into…, held…).  User
ids, queries and notes are shown as plain, isolated text (``ui/desk/text.py``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QSplitter, QVBoxLayout

from memdesk.core.read.checks import ChecksRun, RecallChecks
from memdesk.core.store.recall_checks import CheckRecord
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.ops import LatestTask, Task, TaskState
from memdesk.ui.desk.selection import select_only
from memdesk.ui.desk.table_model import RowsTableModel, read_only_table
from memdesk.ui.desk.text import count_of, elide, isolate, one_line, plain_label, tooltip_text
from memdesk.ui.desk.view import DeskView

_DISPLAY = Qt.ItemDataRole.DisplayRole
_TIP = Qt.ItemDataRole.ToolTipRole


def result_word(check: CheckRecord) -> str:
    if check.last_passed is None:
        return "never run"
    return "passed" if check.last_passed else "FAILED"


class ChecksModel(RowsTableModel[CheckRecord]):
    HEADERS = ("Result", "User", "Query", "Expects", "Forbids", "Last run", "Summary")
    HEADER_TIPS = ("The check's last run: passed, FAILED, or never run", "", "",
                   "Memories the top 10 must hold", "Memories the top 10 must not hold",
                   "", "What the last run found")

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _DISPLAY) -> Any:
        c = self.row_at(index.row())
        if c is None or role not in (_DISPLAY, _TIP):
            return None
        summary = (c.last_result or {}).get("summary", "")
        col = index.column()
        full = (result_word(c), c.user_id, c.query, str(len(c.expect)), str(len(c.expect_not)),
                f"{c.last_run_at:%Y-%m-%d %H:%M}" if c.last_run_at else "", summary)[col]
        if role == _TIP:
            return tooltip_text(one_line(full)) if col in (1, 2, 6) else None
        if col in (1, 2):  # stored text: one visible line, isolated
            return isolate(elide(full, 80))
        return full


class ChecksView(DeskView):
    """The recall checks; ``run_finished`` carries each run's ``ChecksRun``."""

    refresh_on = Changed.CHECKS
    run_finished = Signal(object)

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        self.checks = RecallChecks(self.store)
        self._rows = LatestTask(self)
        self._rows.finished.connect(self._show)
        self.status = plain_label("")
        self.status.setWordWrap(True)
        self._runner = LatestTask(self)
        self._runner.finished.connect(self._ran)
        self._runner.failed.connect(lambda exc, _tb: self.status.setText(
            f"The checks could not run: {exc}"))
        self._task: Task | None = None
        self.model = ChecksModel(self)
        self.table = read_only_table(self.model)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._detail())
        self.detail = plain_label("")
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.run_button = QPushButton("Run all checks")
        self.run_button.clicked.connect(self.run_all)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.remove_button = QPushButton("Remove check")
        self.remove_button.clicked.connect(self.remove_selected)
        buttons = QHBoxLayout()
        for b in (self.run_button, self.cancel_button, self.remove_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        outer = QVBoxLayout(self)
        outer.addLayout(buttons)
        outer.addWidget(self.status)
        outer.addWidget(split, 1)
        self.reload(Changes.everything())

    # -- reading -----------------------------------------------------------------------
    def reload(self, changes: Changes) -> None:
        checks = self.checks
        self._rows.start(lambda state: checks.list())

    def _show(self, rows: list[CheckRecord]) -> None:
        current = self.selected()
        self.model.set_rows(rows)
        failed = sum(c.last_passed is False for c in rows)
        self.status.setText(
            "No recall checks yet: pin one from the Retrieval inspector (Pin as a check) "
            "or with `memdesk checks add`." if not rows else
            f"{count_of(len(rows), 'check', 'checks')}, {failed:,} failing at their last run.")
        ids = [c.id for c in rows]
        row = ids.index(current.id) if current is not None and current.id in ids else 0
        if rows:
            select_only(self.table, row)
        self._detail()

    def selected(self) -> CheckRecord | None:
        return self.model.row_at(self.table.currentIndex().row())

    def _detail(self) -> None:
        c = self.selected()
        if c is None:
            self.detail.setText("")
            return
        lines = [f"User {isolate(c.user_id)} · query {isolate(elide(c.query, 300))}"]
        if c.note:
            lines.append(f"Note: {isolate(elide(c.note, 300))}")
        last = c.last_result
        if last is None:
            lines += [f"expects {m}" for m in c.expect]
            lines += [f"forbids {m}" for m in c.expect_not]
            lines.append("Not run yet.")
        else:
            lines.append(f"Last run {c.last_run_at:%Y-%m-%d %H:%M}: {last.get('summary')}")
            for kind, key in (("expects", "expected"), ("forbids", "forbidden")):
                for n in last.get(key, []):
                    lines.append(f"{kind} {n['id']}: {n['detail']}")
        self.detail.setText("\n".join(lines))

    # -- actions -----------------------------------------------------------------------
    def run_all(self) -> None:
        """Run every check off the GUI thread (progress in the status line; Cancel keeps
        what finished)."""
        checks = self.checks
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText("Running the checks…")

        def work(state: TaskState) -> ChecksRun:
            return checks.run(progress=state.progress, cancelled=lambda: state.cancelled)

        task = self._task = self._runner.start(work)
        task.progress.connect(lambda done, total: self.status.setText(
            f"Running the checks… {done:,} of {total:,}"))

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.status.setText("Cancelled: the checks that finished keep their results.")
        self.reload(Changes.everything())

    def _ran(self, run: ChecksRun) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.desk.changed.emit(run.changes)  # every view listing checks reloads
        self.run_finished.emit(run)

    def remove_selected(self) -> None:
        c = self.selected()
        if c is None:
            return
        checks = self.checks
        self.run(Op(f"Remove check {c.id[:8]}", lambda: checks.remove(c.id)))

    def view_actions(self) -> list[QAction]:
        act = QAction("Run all recall checks", self)
        act.triggered.connect(lambda _=False: self.run_all())
        return [act]

    def wait_idle(self, msecs: int = 5000) -> None:
        self._rows.wait(msecs)
        self._runner.wait(msecs)
