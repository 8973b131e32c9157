"""The write path inside the app: the job worker thread, the status bar's job counts, and
the "Embed missing vectors" action with its progress dialog.

One ``WriteService`` per window.  The worker (core/write/worker.py) runs in a Python
thread for the open store; each finished job reaches the GUI thread through a queued
signal, and the window broadcasts the new memories (``Changes``) so views refresh.
Switching stores stops the old worker (after the job in hand) and starts a new one.

Private state: ``_worker``/``_thread`` (the running worker), ``_counts`` (the poll task),
``_embed`` (the running backfill task, if any).
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QProgressDialog, QWidget

from memdesk.core.store.records import Changes

from .ops import LatestTask, Task
from .text import error_box, tooltip_text

COUNTS_POLL_MS = 3000


class WriteService(QObject):
    """Owns the window's job worker thread, job counts and vector backfill."""

    job_finished = Signal(object)  # memdesk.core.write.worker.Outcome
    counts_changed = Signal(dict)

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self._worker = None
        self._thread: threading.Thread | None = None
        self._embed: Task | None = None
        self.counts: dict[str, int] = {}

        self.label = QLabel("Jobs: —")
        self.label.setContentsMargins(10, 0, 10, 0)
        self.embed_action = QAction("Embed missing vectors…", window)
        self.embed_action.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.embed_action.triggered.connect(lambda _=False: self.embed_missing())

        self._counts = LatestTask(self)
        self._counts.finished.connect(self._show_counts)
        self._counts.failed.connect(lambda _e, _tb: self.label.setText("Jobs: —"))
        self._timer = QTimer(self)
        self._timer.setInterval(COUNTS_POLL_MS)
        self._timer.timeout.connect(self.refresh_counts)
        self._timer.start()
        self.job_finished.connect(self._on_job, Qt.ConnectionType.QueuedConnection)
        window.store_changed.connect(self.start_worker)

    # -- counts -------------------------------------------------------------------
    def refresh_counts(self) -> None:
        from memdesk.core.write.jobs import JobQueue

        queue = JobQueue(self.window.store)
        self._counts.start(lambda state: queue.counts())

    def _show_counts(self, counts: dict[str, int]) -> None:
        self.counts = counts
        waiting = counts.get("pending", 0) + counts.get("running", 0)
        self.label.setText(f"Jobs: {waiting:,} pending · {counts.get('failed', 0):,} failed")
        self.label.setToolTip(tooltip_text(
            "Extraction jobs queued by agents (memdesk store).\n"
            + "\n".join(f"{k}: {v:,}" for k, v in counts.items())))
        self.counts_changed.emit(counts)

    # -- the worker thread ---------------------------------------------------------------
    def start_worker(self, store: object = None) -> None:
        """(Re)start the worker for the window's store, with the Ollama settings."""
        from memdesk.core.write.extract import ExtractorConfig, make_extractor
        from memdesk.core.write.worker import Worker

        self.stop_worker()
        s = self.window.settings
        config = ExtractorConfig.from_env(host=s.ollama_host, model=s.ollama_model)
        worker = Worker(self.window.store, make_extractor(config))
        self._worker = worker
        self._thread = threading.Thread(
            target=self._run, args=(worker,), name="memdesk-job-worker", daemon=True)
        self._thread.start()
        self.refresh_counts()

    def _run(self, worker: Any) -> None:
        worker.run(on_outcome=self.job_finished.emit)

    def stop_worker(self, msecs: int = 10_000) -> None:
        if self._worker is not None:
            self._worker.stop()
        if self._thread is not None:
            self._thread.join(msecs / 1000)
        self._worker = self._thread = None

    @property
    def worker_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _on_job(self, outcome: Any) -> None:
        self.refresh_counts()
        if outcome.memory_ids:
            self.window.changed.emit(Changes(tuple(outcome.memory_ids)))

    # -- vectors --------------------------------------------------------------------
    def embed_missing(self, parent: QWidget | None = None) -> Task | None:
        """Backfill vectors off the GUI thread, with a progress dialog that can cancel."""
        from memdesk.core import embeddings

        parent = parent or self.window
        reason = embeddings.unavailable_reason()
        if reason:
            error_box(parent, "Embed missing vectors", reason.capitalize() + ".").open()
            return None
        if self._embed is not None and self._embed.running:
            return self._embed
        store = self.window.store
        dialog = QProgressDialog("Loading the embedding model…", "Cancel", 0, 0, parent)
        dialog.setWindowTitle("Embed missing vectors")
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)

        def work(state):  # type: ignore[no-untyped-def]
            from memdesk.core.write.embed import backfill

            return backfill(store, progress=state.progress, cancelled=lambda: state.cancelled)

        task = Task(work, self)
        self._embed = task

        def progress(done: int, total: int) -> None:
            dialog.setMaximum(max(total, 1))
            dialog.setValue(done)
            dialog.setLabelText(f"Embedding memories: {done:,} of {total:,}")

        def finished(rep: Any) -> None:
            dialog.close()
            self.window.statusBar().showMessage(
                f"Embedded {rep.embedded:,} memories with {rep.model}", 10_000)
            self.window.changed.emit(Changes())

        def failed(exc: object, _tb: str) -> None:
            dialog.close()
            error_box(parent, "Embed missing vectors", str(exc)).open()

        def cancel() -> None:
            task.cancel()  # the backfill stops after the batch in hand; done batches stay
            dialog.close()
            self.window.statusBar().showMessage(
                "Embedding stopped; run it again to continue where it stopped", 10_000)

        task.progress.connect(progress)
        task.finished.connect(finished)
        task.failed.connect(failed)
        dialog.canceled.connect(cancel)
        self.dialog = dialog
        dialog.show()
        return task.start()

    def wait_idle(self, msecs: int = 5000) -> None:
        self._counts.wait(msecs)

    def shutdown(self) -> None:
        self._timer.stop()
        if self._embed is not None:
            self._embed.cancel()
        self.stop_worker()
        self._counts.wait(5000)
