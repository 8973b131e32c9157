"""Memory → Erase permanently… (and the browser's context menu): the desk's purge.

The dialog names what will be gone — the memory and, for a turn or a unit, the rest of
its family (core/erasure/plan.py), each as plain isolated text — and says that it
cannot be undone.  The list is read off the GUI thread; Erase permanently stays
disabled until it has arrived and the operator ticked "I understand…".  Accepting
hands the plan's memory to the browser, which runs the purge through the desk's
pipeline in the background (with progress) as an action that is not put on the undo
stack.  When it is done, :class:`ReceiptDialog` shows the receipt's summary and saves
the receipt (JSON, without the text) to a file the operator names.

Private state: ``plan`` (None while reading or after a failure).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.erasure.plan import Plan
from memdesk.core.erasure.service import Erased, Erasure
from memdesk.core.errors import MemdeskError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.desk.ops import LatestTask, TaskState
from memdesk.ui.desk.text import fluid, isolate, plain_label


class EraseDialog(QDialog):
    """What will be gone, the warning, and Erase permanently (accept)."""

    def __init__(self, store: MemoryStore, memory_id: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Erase permanently")
        self.setObjectName("erase-permanently")
        self.memory_id = memory_id
        self.plan: Plan | None = None
        self.what = fluid(plain_label("Reading what would be erased…"))
        self.what.setObjectName("erase-what")
        warning = fluid(plain_label(
            "This erases the text from every place the store keeps it — the memory, its "
            "history, the search index, the vector, the logs and snapshots — and proves "
            "it. It cannot be undone: Edit → Undo will not bring it back. Backups taken "
            "before now still hold it; the receipt lists them."))
        self.understood = QCheckBox("I understand that this cannot be undone")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.erase_button: QPushButton = self.buttons.addButton(
            "Erase permanently", QDialogButtonBox.ButtonRole.AcceptRole)
        self.erase_button.setEnabled(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.understood.toggled.connect(lambda _on: self._enable())
        lay = QVBoxLayout(self)
        lay.addWidget(self.what)
        lay.addWidget(warning)
        lay.addWidget(self.understood)
        lay.addWidget(self.buttons)
        self.resize(620, self.sizeHint().height())
        self._task = LatestTask(self)
        self._task.finished.connect(self._show_plan)
        self._task.failed.connect(self._show_failure)
        erasure = Erasure(store)

        def work(state: TaskState) -> Plan:
            return erasure.preview(memory_id)

        self._task.start(work)

    def _enable(self) -> None:
        self.erase_button.setEnabled(self.plan is not None and self.understood.isChecked())

    def _show_plan(self, plan: Plan) -> None:
        self.plan = plan
        lines = [isolate(line) for line in plan.describe()]
        n = len(plan.targets)
        head = (f"Erases {n} memor{'y' if n == 1 else 'ies'} for good"
                + (" (a turn and what was extracted from it go together)" if n > 1 else "")
                + ":")
        self.what.setText("\n".join([head, *(f"• {line}" for line in lines)]))
        self._enable()

    def _show_failure(self, exc: object, _tb: str) -> None:
        self.plan = None
        self._enable()
        why = str(exc) if isinstance(exc, MemdeskError) else f"{type(exc).__name__}: {exc}"
        self.what.setText(f"Cannot erase it: {why}")

    def wait_idle(self, msecs: int = 5000) -> bool:
        return self._task.wait(msecs)

    def done(self, result: int) -> None:
        self._task.wait(5000)
        super().done(result)


class ReceiptDialog(QDialog):
    """The receipt of a purge: its summary, and Save receipt… (JSON, no text)."""

    def __init__(self, erased: Erased, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Erasure receipt")
        self.setObjectName("erasure-receipt")
        self.erased = erased
        self.summary = fluid(plain_label("\n".join(isolate(s) for s in erased.summary())))
        self.saved = fluid(plain_label(
            f"The receipt is kept in the store (erasure {erased.erasure_id})."))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.save_button: QPushButton = buttons.addButton(
            "Save receipt…", QDialogButtonBox.ButtonRole.ActionRole)
        self.save_button.clicked.connect(lambda _=False: self.ask_save())
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.saved)
        lay.addWidget(buttons)

    def ask_save(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self, "Save erasure receipt", f"erasure-{self.erased.erasure_id}.json",
            "JSON (*.json)")
        if name:
            self.save(Path(name))

    def save(self, path: Path) -> None:
        try:
            self.erased.save(path)
        except MemdeskError as exc:
            self.saved.setText(str(exc))
            return
        self.saved.setText(f"Saved to {isolate(str(path))}; also kept in the store.")
