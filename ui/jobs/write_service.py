"""The write path inside the app: the job worker thread, the status bar's job counts, and
"Embed missing vectors" (an op on the desk's pipeline) with a progress dialog that can
cancel.

One ``WriteService`` per window, wired to the window's ``Desk``.  The worker
(core/write/worker.py) runs in a Python thread for the open store; each finished job
reaches the GUI thread through a queued signal and is broadcast on the desk as
``Changes`` (MEMORIES | HISTORY | JOBS), so the browser and the Jobs view refresh.
Switching stores stops the old worker (after the job in hand) and starts a new one.

Private state: ``_worker``/``_thread`` (the running worker), ``_counts`` (the poll task),
``_embed_stop`` (the running backfill's stop flag).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QProgressDialog, QWidget

from memdesk.core.store import actions as acts
from memdesk.core.store.records import MEMORY_EDIT, Changed, Changes
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.text import tooltip_text

if TYPE_CHECKING:  # the worker loads when it starts
    from memdesk.core.write.worker import Worker

COUNTS_POLL_MS = 3000
EMBED = "Embed missing vectors"


def embed_missing(desk: Desk, parent: QWidget | None = None,
                  stop: threading.Event | None = None, *, quiet: bool = False,
                  on_end: Callable[[], None] | None = None) -> QProgressDialog | None:
    """Backfill vectors through the desk's pipeline (off the GUI thread), with a progress
    dialog that can cancel; returns the dialog (None when embedding is unavailable, or
    ``quiet``: then the progress shows in the status bar only, as the desk's other
    background actions do — a dialog over the view for one missing vector looked like
    a modal wait).  ``on_end`` runs when the backfill ends, however it ends.

    Cancelling stops after the batch in hand; committed batches stay, so running it
    again continues where it stopped.  Failures go to the desk's one error channel, and
    the result is broadcast as the desk's ``Changes`` like any other action's.
    """
    from memdesk.core import embeddings

    reason = embeddings.unavailable_reason()
    if reason:
        desk.report(EMBED, reason[:1].upper() + reason[1:] + ".")
        return None
    store = desk.store
    stop = stop or threading.Event()

    def work(state: Any) -> Any:
        from memdesk.core.write.embed import backfill

        return backfill(store, progress=state.progress, cancelled=stop.is_set)

    # New vectors change what retrieval finds, not a memory's fields: no undo, and the
    # embedding pass is recorded in the store's history (core/write/embed.py).
    def changes(_rep: Any) -> Changes:
        return Changes(kinds=Changed.MEMORIES | Changed.HISTORY, action=acts.EMBED)

    if quiet:
        def ended(_r: object = None) -> None:
            if on_end is not None:
                on_end()

        desk.run(Op(EMBED, work, ended, undoable=False, background=True, changes=changes,
                    on_error=ended))
        return None
    dialog = QProgressDialog("Loading the embedding model…", "Cancel", 0, 0, parent)
    dialog.setWindowTitle(EMBED)
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    # The backfill's own flag (``stop``), not the task's: a cancelled backfill still
    # returns its report (what it embedded is kept), which a cancelled task would drop.
    def progress(done: int, total: int) -> None:
        dialog.setMaximum(max(total, 1))
        dialog.setValue(done)
        dialog.setLabelText(f"Embedding memories: {done:,} of {total:,}")

    def finish() -> None:
        desk.progress.disconnect(progress)
        dialog.close()
        if on_end is not None:
            on_end()

    def done(rep: Any) -> None:
        dialog.setLabelText(f"Embedded {rep.embedded:,} memories with {rep.model}.")
        finish()

    desk.progress.connect(progress)
    dialog.canceled.connect(stop.set)
    dialog.show()
    desk.run(Op(EMBED, work, done, undoable=False, background=True, changes=changes,
                on_error=lambda _message: finish()))
    return dialog


class WriteService(QObject):
    """Owns the window's job worker thread and job counts."""

    job_finished = Signal(object)  # memdesk.core.write.worker.Outcome
    counts_changed = Signal(dict)

    def __init__(self, desk: Desk, window: Any) -> None:
        super().__init__(window)
        self.desk = desk
        self.window = window
        self._worker: Worker | None = None
        self._thread: threading.Thread | None = None
        self.counts: dict[str, int] = {}
        self.last_embed: QProgressDialog | None = None
        self.embedding = False  # a backfill runs (with a dialog or quietly)
        self._embed_stop = threading.Event()

        self.label = QLabel("Jobs: —")
        self.label.setContentsMargins(10, 0, 10, 0)
        self.embed_action = QAction(EMBED + "…", window)
        self.embed_action.setShortcut(QKeySequence("Ctrl+Shift+V"))
        self.embed_action.triggered.connect(lambda _=False: self.embed())

        self._counts = LatestTask(self)
        self._counts.finished.connect(self._show_counts)
        self._counts.failed.connect(lambda _e, _tb: self.label.setText("Jobs: —"))
        self._timer = QTimer(self)
        self._timer.setInterval(COUNTS_POLL_MS)  # agents queue jobs from other processes
        self._timer.timeout.connect(self.refresh_counts)
        self._timer.start()
        self.job_finished.connect(self._on_job, Qt.ConnectionType.QueuedConnection)
        desk.changed.connect(self._on_changed)

    def embed_demo(self, built_now: bool) -> None:
        """The demo just opened gets the vectors it lacks in the background: the ones the
        shipped vectors did not cover (a demo of another size), or the rest when an
        embedding was cut short (the window closed during it); nothing starts when none
        is missing or there is no model.  ``built_now``: kept for callers; a new demo
        is judged by what it lacks like any other."""
        from memdesk.core import embeddings
        from memdesk.core.write.embed import missing_count

        del built_now
        if embeddings.unavailable_reason() is None and missing_count(self.desk.store) > 0:
            # Quietly: the status bar says it; no dialog over a view that is usable.
            self.embed(quiet=True)

    def embed(self, quiet: bool = False) -> QProgressDialog | None:
        self._embed_stop = threading.Event()  # set by Cancel, or when the window closes
        self.embedding = True
        self.last_embed = embed_missing(self.desk, self.window, self._embed_stop,
                                        quiet=quiet, on_end=self._embed_ended)
        return self.last_embed

    def _embed_ended(self) -> None:
        self.embedding = False

    # -- counts -------------------------------------------------------------------
    def refresh_counts(self) -> None:
        from memdesk.core.write.jobs import JobQueue

        queue = JobQueue(self.desk.store)
        self._counts.start(lambda state: queue.counts())

    def _show_counts(self, counts: dict[str, int]) -> None:
        moved = bool(self.counts) and counts != self.counts
        self.counts = counts
        waiting = counts.get("pending", 0) + counts.get("running", 0)
        self.label.setText(f"Jobs: {waiting:,} pending · {counts.get('failed', 0):,} failed")
        self.label.setToolTip(tooltip_text(
            "Extraction jobs queued by agents (memdesk store).\n"
            + "\n".join(f"{k}: {v:,}" for k, v in counts.items())))
        self.counts_changed.emit(counts)
        if moved:  # jobs queued or finished elsewhere (agents, a CLI worker): tell the views
            self.desk.changed.emit(Changes(kinds=Changed.JOBS))

    def _on_changed(self, changes: Changes) -> None:
        if changes.touches(Changed.JOBS):
            self.refresh_counts()

    # -- the worker thread ---------------------------------------------------------------
    def start_worker(self, _store: object = None) -> None:
        """(Re)start the worker for the desk's store with the Ollama host of Settings."""
        from memdesk.core.curation.at_write import WRITE_HOOKS
        from memdesk.core.write.extract import ExtractorConfig, make_extractor
        from memdesk.core.write.worker import Worker

        self.stop_worker()
        config = ExtractorConfig.from_env(host=self.desk.settings.ollama_host)
        worker = Worker(self.desk.store, make_extractor(config), hooks=WRITE_HOOKS)
        self._worker = worker
        self._thread = threading.Thread(
            target=worker.run, kwargs={"on_outcome": self.job_finished.emit},
            name="memdesk-job-worker", daemon=True)
        self._thread.start()
        self.refresh_counts()

    def stop_worker(self, msecs: int = 10_000) -> None:
        """Stop after the job in hand (an unfinished one is taken over by the next
        worker: nothing it did was committed)."""
        if self._worker is not None:
            self._worker.stop()
        if self._thread is not None:
            self._thread.join(msecs / 1000)
        self._worker = self._thread = None

    @property
    def worker_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _on_job(self, outcome: Any) -> None:
        kinds = Changed.JOBS | (MEMORY_EDIT if outcome.memory_ids else Changed.NOTHING)
        self.desk.changed.emit(Changes(tuple(outcome.memory_ids), kinds=kinds))
        if outcome.memory_ids:  # new memories of an auto-apply source get calibrated
            from memdesk.ui.sweep.learning import auto_apply_new

            auto_apply_new(self.desk)

    def wait_idle(self, msecs: int = 5000) -> None:
        self._counts.wait(msecs)

    def stop_embedding(self) -> None:
        """Ask a running backfill to stop after the batch in hand (the window closes)."""
        self._embed_stop.set()

    def shutdown(self) -> None:
        self._timer.stop()
        self._embed_stop.set()  # a running backfill stops after the batch in hand
        self.stop_worker()
        self._counts.wait(5000)
