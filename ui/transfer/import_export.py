"""File → Import… and File → Export…: the GUI face of memdesk.core.transfer.

An import is previewed first (memdesk.core.preview, read-only, in the background with
the same progress dialog and Cancel); its dialog (ui/transfer/preview.py) then offers
import all, import without the duplicates, or cancel.

Both run as background ``Op``s through the desk's one action pipeline (docs/
architecture.md): the work runs on the desk's writer thread, a finished import is one
Edit → Undo step (the core's group undo) and is broadcast to the views, a failure
reaches the operator through the desk's one error channel.  On top of that a progress
dialog follows the op's progress and offers Cancel, which stops the work cleanly: an
export then writes nothing, an import keeps the batches already written (one audited,
undoable group) and says how far it got.

Private state: ``Transfers`` keeps the running op's cancel flag and progress dialog.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
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

from memdesk.core.store.records import Changed, Changes
from memdesk.ui.desk.actions import Op
from memdesk.ui.desk.ops import TaskState
from memdesk.ui.desk.text import error_box, plain_label
from memdesk.ui.transfer.preview import WITHOUT_DUPLICATES, PreviewDialog

if TYPE_CHECKING:  # the importer loads when an import starts
    from memdesk.core.transfer.importer import OnExisting
    from memdesk.ui.desk.window import DeskWindow

IMPORT_FILTERS = ("Memories (*.jsonl *.json *.db *.sqlite *.sqlite3);;"
                  "memdesk JSON Lines (*.jsonl);;Mem0 export (*.json);;"
                  "Recall SQLite (*.db *.sqlite *.sqlite3);;All files (*)")
FORMATS = (("Recognise from the content", "auto"), ("memdesk JSON Lines", "jsonl"),
           ("Mem0 get_all export", "mem0"), ("Recall SQLite file", "recall"))


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
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Preview…")
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
    if report.unlisted_bad:
        lines.append(f"… and {report.unlisted_bad:,} more bad {report.unit}s (not listed)")
    lines += [f"not carried over: {name} ({n:,} {report.unit}s)"
              for name, n in sorted(report.dropped.items())]
    if report.group_id:
        lines.append("Edit → Undo takes this import back (added memories are soft-deleted, "
                     "updated ones get their earlier values).")
    return "\n".join(lines) or "Every item was imported."


class TransferProgress(QProgressDialog):
    """Follows the desk's progress for one transfer; Cancel sets the transfer's flag.

    The flag is the transfer's own, not the task's: a cancelled import still returns
    its report (what it wrote is real and undoable), which a cancelled task would drop.
    """

    def __init__(self, title: str, cancel: threading.Event, parent: QWidget) -> None:
        super().__init__(title, "Cancel", 0, 0, parent)
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumDuration(300)  # a small file should not flash a dialog
        self.setAutoClose(False)
        self.setAutoReset(False)
        self.canceled.connect(cancel.set)
        self.canceled.connect(lambda: self.setLabelText(f"{title}: stopping…"))

    def follow(self, done: int, total: int) -> None:
        if total > 0:
            # QProgressDialog takes ints; byte counts of big files exceed 2**31
            self.setMaximum(1000)
            self.setValue(min(1000, done * 1000 // total))


class Transfers(QObject):
    """The two File-menu actions and what they start.  One per window; one transfer at
    a time."""

    imported = Signal(object)  # ImportReport, after the desk has broadcast it
    previewed = Signal(object)  # ImportPreview (its dialog is open unless cancelled)
    exported = Signal(object)  # ExportReport
    failed = Signal(str)  # the message (the desk has shown it)

    def __init__(self, window: DeskWindow) -> None:
        super().__init__(window)
        self.window = window
        self.progress: TransferProgress | None = None
        self.cancel = threading.Event()
        self.report_dialog: ImportReportDialog | None = None
        self.preview_dialog: PreviewDialog | None = None
        self.import_action = QAction("Import memories…", window)
        self.import_action.setShortcut(QKeySequence("Ctrl+Shift+I"))
        self.import_action.triggered.connect(lambda _=False: self.ask_import())
        self.export_action = QAction("Export memories…", window)
        self.export_action.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.export_action.triggered.connect(lambda _=False: self.ask_export())

    @property
    def busy(self) -> bool:
        return self.progress is not None

    def _start(self, op: Op[Any], cancel: threading.Event) -> bool:
        desk = self.window.desk
        self.cancel = cancel
        self.progress = TransferProgress(op.name, cancel, self.window)
        desk.progress.connect(self.progress.follow)
        return desk.run(op)

    def _finish(self) -> None:
        if self.progress is not None:
            self.window.desk.progress.disconnect(self.progress.follow)
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None

    def _on_error(self, message: str) -> None:
        self._finish()
        self.failed.emit(message)

    # -- import ------------------------------------------------------------------------
    def ask_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Import memories", "",
                                              IMPORT_FILTERS)
        if not path:
            return
        dlg = ImportOptions(path, self.window)
        if dlg.exec():
            self.start_preview(path, **dlg.values())

    def start_preview(self, path: str, *, fmt: str = "auto", on_existing: OnExisting = "skip",
                      default_user: str | None = None) -> bool:
        """Preview the import in the background (read-only); its dialog then offers
        import all, import without the duplicates, or cancel."""
        if self.busy:
            return False
        store = self.window.store
        cancel = threading.Event()

        def work(state: TaskState) -> Any:
            from memdesk.core.preview import preview_import

            return preview_import(store, path, fmt, default_user=default_user,
                                  on_existing=on_existing, progress=state.progress,
                                  cancelled=cancel.is_set)

        def done(preview: Any) -> None:
            self._finish()
            if preview.cancelled:
                self.window.statusBar().showMessage(
                    "Import preview cancelled; nothing was written.", 10_000)
                self.previewed.emit(preview)
                return
            self.preview_dialog = dlg = PreviewDialog(preview, self.window)
            dlg.finished.connect(lambda _r: self._chosen(dlg, path, fmt, on_existing,
                                                         default_user))
            dlg.open()
            self.previewed.emit(preview)

        return self._start(Op(f"Preview of {Path(path).name}", work, done=done,
                              background=True, undoable=False, on_error=self._on_error,
                              changes=lambda _p: Changes(kinds=Changed.NOTHING)), cancel)

    def _chosen(self, dlg: PreviewDialog, path: str, fmt: str, on_existing: OnExisting,
                default_user: str | None) -> None:
        if dlg.choice is None:
            self.window.statusBar().showMessage("Import cancelled; nothing was written.",
                                                10_000)
            return
        self.start_import(path, fmt=fmt, on_existing=on_existing, default_user=default_user,
                          preview=dlg.preview if dlg.choice == WITHOUT_DUPLICATES else None)

    def start_import(self, path: str, *, fmt: str = "auto", on_existing: OnExisting = "skip",
                     default_user: str | None = None, preview: Any = None) -> bool:
        """Import ``path``; with ``preview`` (of this file), without its duplicates."""
        if self.busy:
            return False
        store = self.window.store
        label = f"Import from {Path(path).name}"
        cancel = threading.Event()

        def work(state: TaskState) -> Any:
            from memdesk.core.preview import import_without_duplicates
            from memdesk.core.transfer.formats import open_source
            from memdesk.core.transfer.importer import Importer

            if preview is not None:
                return import_without_duplicates(
                    store, path, preview, fmt, default_user=default_user,
                    on_existing=on_existing, keep_ids=True, progress=state.progress,
                    cancelled=cancel.is_set)
            with open_source(path, fmt, default_user=default_user) as source:
                importer = Importer(store, on_existing=on_existing,
                                    note=f"import from {path} ({source.kind})", keep_ids=True)
                return importer.run(source, progress=state.progress, cancelled=cancel.is_set)

        def done(report: Any) -> None:
            self._finish()  # the browser fetches the new rows: report.changes names them
            self.report_dialog = ImportReportDialog(report, label, self.window)
            self.report_dialog.open()
            if report.error:  # the store went away mid-import: what got in is listed
                error_box(self.window, label, report.error).open()
            self.imported.emit(report)

        op = Op(label, work, done=done, background=True, on_error=self._on_error,
                changes=lambda report: report.changes)
        return self._start(op, cancel)

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
                     flt: Any = None) -> bool:
        if self.busy:
            return False
        store = self.window.store
        cancel = threading.Event()

        def work(state: TaskState) -> Any:
            from memdesk.core.transfer.jsonl import export_to_file

            return export_to_file(store, Path(path), flt, with_embeddings=with_embeddings,
                                  progress=state.progress, cancelled=cancel.is_set)

        def done(report: Any) -> None:
            self._finish()
            if report.cancelled:
                message = "Export cancelled; no file was written."
            else:
                message = f"Exported {report.written:,} memories to {path}"
                if report.dangling:
                    message += (f" ({report.dangling:,} name a replacement that is not in "
                                "this export)")
            self.window.statusBar().showMessage(message, 10_000)
            self.exported.emit(report)

        return self._start(Op(f"Export to {Path(path).name}", work, done=done,
                              background=True, undoable=False, on_error=self._on_error,
                              changes=lambda _report: Changes(kinds=Changed.NOTHING)), cancel)


def browser_filter(window: Any) -> Any:
    """The filter of what the browser shows, when its view is open (None otherwise).

    A filter without statuses means "all but deleted" in the browser but "everything"
    to an export (a copy), so the statuses are spelt out here.
    """
    from memdesk.core.store.query import Status

    views = getattr(window, "views", None)
    try:
        if views is None or not views.is_built("browse"):
            return None
        flt = views["browse"].filters.current()
    except (AttributeError, KeyError):
        return None
    if not flt.statuses:
        flt = flt.with_(statuses=tuple(s for s in Status if s is not Status.DELETED))
    return flt


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
