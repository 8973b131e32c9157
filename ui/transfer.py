"""File → Import… and File → Export…: the GUI face of memdesk.core.transfer.

The work runs off the GUI thread (``ops.Task``) with a progress dialog whose Cancel
stops it cleanly: an export then writes nothing, an import keeps the batches already
written (they are one audited group) and says how far it got.  A finished import is
put on the window's undo stack as one step (Edit → Undo takes the whole import back,
through the core's group undo) and broadcast like any other change.

Private state: ``TransferRunner`` keeps the running task and its cancel flag; the
dialogs hold only their widgets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QProgressDialog,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.errors import MemdeskError
from memdesk.core.store.records import Changes

from .ops import Task, TaskState
from .text import error_box, plain_label

IMPORT_FILTERS = ("Memories (*.jsonl *.json *.db *.sqlite *.sqlite3);;"
                  "memdesk JSON Lines (*.jsonl);;Mem0 export (*.json);;"
                  "Recall SQLite (*.db *.sqlite *.sqlite3);;All files (*)")
FORMATS = (("Recognise from the content", "auto"), ("memdesk JSON Lines", "jsonl"),
           ("Mem0 get_all export", "mem0"), ("Recall SQLite file", "recall"))


class ImportedCommand(QUndoCommand):
    """An import on the undo stack.  It has run already, so its first redo (the push)
    does nothing; undo and redo replay the core's group undo of the last step."""

    def __init__(self, window: Any, label: str, applied: Changes) -> None:
        super().__init__(label.replace("&", "&&"))
        self.window = window
        self.applied = applied
        self._pushed = False

    def _revert(self) -> None:
        from .undo import undo_changes

        try:
            self.applied = undo_changes(self.window.store, self.applied)
        except MemdeskError as exc:
            self.setObsolete(True)
            error_box(self.window, self.text(), str(exc)).exec()
            return
        self.window.changed.emit(self.applied)

    def redo(self) -> None:
        if not self._pushed:
            self._pushed = True
            return
        self._revert()

    def undo(self) -> None:
        self._revert()


class ImportOptions(QDialog):
    """Format, what to do with ids already in the store, and Mem0's default user."""

    def __init__(self, path: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import memories")
        form = QFormLayout()
        form.addRow("File:", plain_label(path))
        self.format = QComboBox()
        for label, key in FORMATS:
            self.format.addItem(label, key)
        form.addRow("Format:", self.format)
        self.on_existing = QComboBox()
        self.on_existing.addItem("Leave the stored memory as it is", "skip")
        self.on_existing.addItem("Update it to the imported values", "update")
        form.addRow("Id already in the store:", self.on_existing)
        self.default_user = QLineEdit()
        self.default_user.setPlaceholderText("for Mem0 items without user_id or agent_id")
        form.addRow("Default user:", self.default_user)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(buttons)

    def values(self) -> dict[str, Any]:
        return {"fmt": self.format.currentData(), "on_existing": self.on_existing.currentData(),
                "default_user": self.default_user.text().strip() or None}


class ExportOptions(QDialog):
    """Vectors or not; everything or only what the browser's filter shows."""

    def __init__(self, has_filter: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export memories")
        self.embeddings = QCheckBox("Include vectors (embeddings)")
        self.filtered = QCheckBox("Only the memories the browser's filter shows")
        self.filtered.setEnabled(has_filter)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(plain_label("Every field of every memory, soft-deleted ones included, "
                                  "as JSON Lines."))
        lay.addWidget(self.embeddings)
        lay.addWidget(self.filtered)
        lay.addWidget(buttons)


class ImportReportDialog(QDialog):
    """The import's summary, every bad item with its reason, and what was not carried
    over; plain text the operator can copy."""

    def __init__(self, report: Any, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import finished" if not report.cancelled else "Import cancelled")
        self.resize(760, 420)
        self.summary = plain_label(f"{label}\n{report.summary()}")
        self.summary.setWordWrap(True)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setPlainText(report_details(report))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.details, 1)
        lay.addWidget(buttons)


def report_details(report: Any) -> str:
    lines = [f"{report.unit} {b}" for b in report.bad]
    lines += [f"not carried over: {name} ({n:,} {report.unit}s)"
              for name, n in sorted(report.dropped.items())]
    if report.group_id:
        lines.append("Edit → Undo takes this import back (added memories are soft-deleted, "
                     "updated ones get their earlier values).")
    return "\n".join(lines) or "Every item was imported."


class TransferRunner(QObject):
    """Runs one import or export at a time behind a progress dialog with Cancel."""

    finished = Signal(object)  # the core report
    failed = Signal(str)

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.task: Task | None = None
        self.dialog: QProgressDialog | None = None
        # Our own flag, not the task's: a cancelled import still returns its report
        # (what it wrote is real and undoable), which a cancelled Task would swallow.
        self.cancel_flag = threading.Event()

    @property
    def busy(self) -> bool:
        return self.task is not None and self.task.running

    def start(self, title: str, work: Callable[[TaskState, threading.Event], Any]) -> Task:
        self.cancel_flag = threading.Event()
        flag = self.cancel_flag
        dlg = QProgressDialog(title, "Cancel", 0, 0, self.window)
        dlg.setWindowTitle(title)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(300)  # a small file should not flash a dialog
        dlg.setAutoClose(False)
        dlg.setAutoReset(False)
        dlg.canceled.connect(flag.set)
        dlg.canceled.connect(lambda: dlg.setLabelText(f"{title}: stopping…"))
        self.dialog = dlg
        task = Task(lambda state: work(state, flag), self)
        task.progress.connect(self._progress)
        task.finished.connect(self._done)
        task.failed.connect(self._failed)
        self.task = task
        return task.start()

    def _progress(self, done: int, total: int) -> None:
        if self.dialog is None:
            return
        if total > 0:
            # QProgressDialog takes ints; byte counts of big files exceed 2**31
            self.dialog.setMaximum(1000)
            self.dialog.setValue(min(1000, done * 1000 // total))

    def _close(self) -> None:
        if self.dialog is not None:
            self.dialog.canceled.disconnect()
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
        if self.task is not None:
            self.task.deleteLater()
            self.task = None

    def _done(self, result: object) -> None:
        self._close()
        self.finished.emit(result)

    def _failed(self, exc: object, tb: str) -> None:
        self._close()
        if isinstance(exc, MemdeskError):
            self.failed.emit(str(exc))
        else:  # a bug: keep the traceback for the report, keep the window alive
            self.failed.emit(f"Unexpected error: {type(exc).__name__}: {exc}\n\n{tb}")

    def wait(self, msecs: int = 10_000) -> None:
        from PySide6.QtCore import QThreadPool

        QThreadPool.globalInstance().waitForDone(msecs)


class Transfers(QObject):
    """The two File-menu actions and what they start.  One per window."""

    imported = Signal(object)  # ImportReport, after the window has been told
    exported = Signal(object)  # ExportReport

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.runner = TransferRunner(window)
        self.report_dialog: ImportReportDialog | None = None
        self.import_action = QAction("Import memories…", window)
        self.import_action.setShortcut(QKeySequence("Ctrl+Shift+I"))
        self.import_action.triggered.connect(lambda _=False: self.ask_import())
        self.export_action = QAction("Export memories…", window)
        self.export_action.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.export_action.triggered.connect(lambda _=False: self.ask_export())

    # -- import ------------------------------------------------------------------------
    def ask_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Import memories", "",
                                              IMPORT_FILTERS)
        if not path:
            return
        dlg = ImportOptions(path, self.window)
        if dlg.exec():
            self.start_import(path, **dlg.values())

    def start_import(self, path: str, *, fmt: str = "auto", on_existing: str = "skip",
                     default_user: str | None = None) -> Task | None:
        if self.runner.busy:
            return None
        store = self.window.store
        label = f"Import from {Path(path).name}"

        def work(state: TaskState, cancel: threading.Event) -> Any:
            from memdesk.core.transfer.formats import open_source
            from memdesk.core.transfer.importer import Importer

            with open_source(path, fmt, default_user=default_user) as source:
                importer = Importer(store, on_existing=on_existing,  # type: ignore[arg-type]
                                    note=f"import from {path} ({source.kind})", keep_ids=True)
                return importer.run(source, progress=state.progress, cancelled=cancel.is_set)

        self.runner.finished.connect(self._import_done)
        self.runner.failed.connect(self._failed)
        self._label = label
        return self.runner.start(label, work)

    def _import_done(self, report: Any) -> None:
        self._disconnect()
        if report.changed:
            self.window.undo_stack.push(ImportedCommand(self.window, self._label,
                                                        report.changes))
            self.window.changed.emit(report.changes)
        self.report_dialog = ImportReportDialog(report, self._label, self.window)
        self.report_dialog.open()
        if report.error:
            error_box(self.window, self._label, report.error).open()
        self.imported.emit(report)

    # -- export ------------------------------------------------------------------------
    def ask_export(self) -> None:
        flt = browser_filter(self.window)
        opts = ExportOptions(flt is not None, self.window)
        if not opts.exec():
            return
        path, _ = QFileDialog.getSaveFileName(self.window, "Export memories",
                                              "memories.jsonl",
                                              "memdesk JSON Lines (*.jsonl);;All files (*)")
        if path:
            self.start_export(path, with_embeddings=opts.embeddings.isChecked(),
                              flt=flt if opts.filtered.isChecked() else None)

    def start_export(self, path: str, *, with_embeddings: bool = False,
                     flt: Any = None) -> Task | None:
        if self.runner.busy:
            return None
        store = self.window.store

        def work(state: TaskState, cancel: threading.Event) -> Any:
            from memdesk.core.transfer.jsonl import export_to_file

            return export_to_file(store, Path(path), flt, with_embeddings=with_embeddings,
                                  progress=state.progress, cancelled=cancel.is_set)

        self.runner.finished.connect(self._export_done)
        self.runner.failed.connect(self._failed)
        self._label = f"Export to {Path(path).name}"
        self._path = path
        return self.runner.start(self._label, work)

    def _export_done(self, report: Any) -> None:
        self._disconnect()
        if report.cancelled:
            message = "Export cancelled; no file was written."
        else:
            message = f"Exported {report.written:,} memories to {self._path}"
            if report.dangling:
                message += (f" ({report.dangling:,} name a replacement that is not in "
                            "this export)")
        self.window.statusBar().showMessage(message, 10_000)
        self.exported.emit(report)

    def _failed(self, message: str) -> None:
        self._disconnect()
        error_box(self.window, self._label, message).open()

    def _disconnect(self) -> None:
        for signal in (self.runner.finished, self.runner.failed):
            signal.disconnect()


def browser_filter(window: Any) -> Any:
    """The browser's current filter when its view is open (None otherwise)."""
    views = getattr(window, "views", None)
    try:
        if views is None or not views.is_built("browse"):
            return None
        return views["browse"].filters.current()
    except (AttributeError, KeyError):
        return None


def add_to_file_menu(window: Any, menu: QMenu, before: QAction | None = None) -> Transfers:
    """The window's hook: put Import… and Export… into its File menu."""
    transfers = Transfers(window)
    actions = [transfers.import_action, transfers.export_action]
    if before is None:
        menu.addActions(actions)
        menu.addSeparator()
    else:
        menu.insertActions(before, actions)
        menu.insertSeparator(before)
    return transfers
