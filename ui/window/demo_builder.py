"""Creating the demo store from the GUI: ``memdesk.core.demo.store.build_demo`` run off
the GUI thread, with a progress dialog when it takes longer than half a second
(QProgressDialog's minimumDuration) and a Cancel that stops it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from memdesk.core.demo.store import DEMO_SIZE, build_demo, demo_exists, demo_store_path
from memdesk.ui.desk.ops import Task, TaskState


class BuildCancelled(Exception):
    """The operator pressed Cancel on the progress dialog."""


def _build(path: Path, size: int, state: TaskState) -> Path:
    def progress(done: int, total: int) -> None:
        if state.cancelled:
            raise BuildCancelled()
        state.progress(done, total)

    # The shipped vectors come with the rows (seconds); texts they lack are embedded
    # after the window opens (WriteService.embed_demo), never before it.
    return build_demo(path, size, progress, vectors=True, embed_rest=False)


class DemoBuilder(QObject):
    """Ensures the demo store exists, then emits ``ready(path)`` (or ``failed(message)``).

    ``built_now`` says whether this builder created it.  The default demo's vectors are
    shipped and written with its rows, so every view (the Retrieval inspector's vector
    channel included) has something true to show at once; the window embeds whatever
    they lack in the background (progress dialog, not modal)."""

    ready = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QWidget | None = None, path: Path | None = None,
                 size: int = DEMO_SIZE) -> None:
        super().__init__(parent)
        self.path = path or demo_store_path()
        self.size = size
        self.task: Task | None = None
        self.dialog: QProgressDialog | None = None
        self.built_now = False

    def start(self) -> None:
        if demo_exists(self.path):
            self.ready.emit(self.path)
            return
        path, size, parent = self.path, self.size, self.parent()
        self.dialog = QProgressDialog(
            f"Creating the demo store ({size:,} memories)…", "Cancel", 0, 0,
            parent if isinstance(parent, QWidget) else None,
        )
        self.dialog.setWindowTitle("memdesk")
        self.dialog.setWindowModality(Qt.WindowModality.ApplicationModal)
        self.dialog.setMinimumDuration(500)
        self.task = Task(lambda state: _build(path, size, state), self)
        self.dialog.canceled.connect(self._cancel)
        self.task.progress.connect(self._progress)
        self.task.finished.connect(self._done)
        self.task.failed.connect(self._failed)
        self.task.start()

    def _cancel(self) -> None:
        # A cancelled Task reports nothing, so close the dialog here.
        if self.task is not None:
            self.task.cancel()
        self._close_dialog()

    def _progress(self, done: int, total: int) -> None:
        if self.dialog is not None:
            self.dialog.setMaximum(total)
            self.dialog.setValue(done)

    def _close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.reset()
            self.dialog.deleteLater()
            self.dialog = None

    def _done(self, path: object) -> None:
        self._close_dialog()
        self.built_now = True
        self.ready.emit(path)

    def _failed(self, exc: object, _tb: str) -> None:
        self._close_dialog()
        if not isinstance(exc, BuildCancelled):
            self.failed.emit(f"Could not create the demo store at {self.path}: {exc}")
