"""Creating the demo store from the GUI: generated off the GUI thread, with a progress
dialog when it takes longer than half a second (QProgressDialog's minimumDuration).

The store is written to a temporary file and renamed when complete, so a cancelled or
failed build never leaves a half-filled "demo.db" that later runs would open.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from .ops import Task, TaskState

DEMO_SIZE = 5000


class BuildCancelled(Exception):
    """The operator pressed Cancel on the progress dialog."""


def demo_store_path() -> Path:
    # Same location as memdesk.app.gui.demo_store_path (app may not be imported from ui).
    return Path(platformdirs.user_data_dir("memdesk", appauthor=False)) / "demo.db"


def build_demo(path: Path, size: int, state: TaskState | None = None) -> Path:
    """Generate a demo store at ``path`` (atomically); runs on a worker thread."""
    from memdesk.core import demo
    from memdesk.core.store.memory_store import MemoryStore

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".building")
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    store = MemoryStore.open(tmp)
    try:
        def progress(done: int, total: int) -> None:
            if state is not None:
                if state.cancelled:
                    raise BuildCancelled()
                state.progress(done, total)

        demo.generate(store, size, progress=progress)
        store.checkpoint()  # fold the WAL in so the renamed file is complete
    finally:
        store.close()
    for suffix in ("-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    os.replace(tmp, path)
    return path


class DemoBuilder(QObject):
    """Ensures the demo store exists, then emits ``ready(path)`` (or ``failed(message)``)."""

    ready = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QWidget | None = None, path: Path | None = None,
                 size: int = DEMO_SIZE) -> None:
        super().__init__(parent)
        self.path = path or demo_store_path()
        self.size = size
        self.task: Task | None = None
        self.dialog: QProgressDialog | None = None

    def start(self) -> None:
        if self.path.exists() and self.path.stat().st_size > 0:
            self.ready.emit(self.path)
            return
        path, size = self.path, self.size
        self.dialog = QProgressDialog(
            f"Creating the demo store ({size:,} memories)…", "Cancel", 0, 0,
            self.parent() if isinstance(self.parent(), QWidget) else None,
        )
        self.dialog.setWindowTitle("memdesk")
        self.dialog.setWindowModality(Qt.WindowModality.ApplicationModal)
        self.dialog.setMinimumDuration(500)
        self.task = Task(lambda state: build_demo(path, size, state), self)
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
        self.ready.emit(path)

    def _failed(self, exc: object, _tb: str) -> None:
        self._close_dialog()
        if not isinstance(exc, BuildCancelled):
            self.failed.emit(f"Could not create the demo store at {self.path}: {exc}")
