"""The Jobs view: the extraction queue agents fill with ``memdesk store``.

A table of jobs (newest first, filterable by status); the selected job's turn, error,
log and the memories it created below; Retry for failed jobs and Cancel for pending
ones (``Op``s through the desk; a cancel is undoable: Edit → Undo puts the job back to
pending); and "Embed missing vectors".  All reads run off the GUI thread (``LatestTask``);
the list reloads on JOBS broadcasts: the window's worker finished a job, or the
window's job-count poll saw agents queue jobs from other processes.  Everything shown
from a turn, a model or a memory is plain text.

Private state: ``_jobs`` (the table's last load), ``_selected`` (the shown job's id).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.store.episodes import EpisodeInfo, Episodes
from memdesk.core.store.records import Changed, Changes
from memdesk.core.write.jobs import JobQueue, JobRecord, JobStatus
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.empty import EmptyNote
from memdesk.ui.desk.episode_text import episode_line
from memdesk.ui.desk.ops import LatestTask, TaskState
from memdesk.ui.desk.selection import select_only
from memdesk.ui.desk.table_model import Index, RowsTableModel
from memdesk.ui.desk.text import elide, isolate, one_line, plain_label, reveal, tooltip_text
from memdesk.ui.desk.view import DeskView
from memdesk.ui.jobs.write_service import embed_missing

NO_JOBS = ("No jobs yet.\n\nA job is one conversation turn an agent handed over to be "
           "remembered (`memdesk store`, or the MCP tool store_memory). A worker extracts "
           "memories from it in the background; they appear here with their status, log "
           "and the memories each created.")


def _when(v: Any) -> str:
    return v.strftime("%Y-%m-%d %H:%M:%S") if v is not None else "—"


class JobsModel(RowsTableModel[JobRecord]):
    """JobRecord rows."""

    HEADERS = ("Created", "Status", "User", "Session", "Turn", "Extractor", "Memories",
               "Error")

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        job: JobRecord | None = self.row_at(index.row())
        if job is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                _when(job.created_at), job.status, one_line(job.user_id),
                one_line(job.session_id or "—"), one_line(elide(job.text, 90)),
                (job.extractor or "—") + (f" ({job.model})" if job.model else ""),
                str(len(job.memory_ids)) if job.status == JobStatus.DONE else "—",
                elide(job.error or "", 90),
            )[col]
        if role == Qt.ItemDataRole.ToolTipRole and col in (4, 7):
            return tooltip_text(reveal(job.text if col == 4 else (job.error or "")))
        return None


class JobsView(DeskView):
    """Queue, status, error, created units, retry."""

    refresh_on = Changed.JOBS

    def __init__(self, desk: Desk, parent: QWidget | None = None) -> None:
        super().__init__(desk, parent)
        self.queue = JobQueue(self.store)
        self._selected: str | None = None

        self.status = QComboBox()
        self.status.addItem("All jobs", "")
        for s in JobStatus:
            self.status.addItem(s.value.capitalize(), s.value)
        self.status.currentIndexChanged.connect(lambda _i: self.reload(Changes()))
        self.retry_button = QPushButton("Retry")
        self.retry_button.setToolTip("Put the selected failed job back in the queue")
        self.retry_button.setEnabled(False)
        self.retry_button.clicked.connect(self.retry_selected)
        self.cancel_button = QPushButton("Cancel job")
        self.cancel_button.setToolTip("Cancel the selected pending job: no worker will "
                                      "take it (Edit → Undo puts it back)")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_selected)
        self.embed_button = QPushButton("Embed missing vectors…")
        self.embed_button.clicked.connect(self._embed)
        self.summary = plain_label("")
        top = QHBoxLayout()
        top.addWidget(QLabel("Show"))
        top.addWidget(self.status)
        top.addWidget(self.summary, 1)
        top.addWidget(self.retry_button)
        top.addWidget(self.cancel_button)
        top.addWidget(self.embed_button)

        self.model = JobsModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        self.empty_note = EmptyNote(self.table, NO_JOBS, "jobs-empty")

        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("Select a job to see its turn, log and memories.")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.details)
        split.setSizes([420, 260])
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(split, 1)

        self._load = LatestTask(self)
        self._load.finished.connect(self._show)
        self._load.failed.connect(self._failed)
        self._detail = LatestTask(self)
        self._detail.finished.connect(self._show_detail)
        self.reload(Changes.everything())

    # -- loading ----------------------------------------------------------------------
    def reload(self, changes: Changes) -> None:
        queue, status = self.queue, self.status.currentData()

        def work(state: TaskState) -> tuple[list[JobRecord], dict[str, int]]:
            return queue.list((status,) if status else (), limit=1000), queue.counts()

        self._load.start(work)

    def _show(self, result: tuple[list[JobRecord], dict[str, int]]) -> None:
        jobs, counts = result
        self.model.set_rows(jobs)
        status = self.status.currentData()
        self.empty_note.set_visible(
            not jobs, NO_JOBS if not status and not sum(counts.values())
            else f"No {status} jobs." if status else "No jobs.")
        self.summary.setText("   ".join(f"{k}: {v:,}" for k, v in counts.items()))
        if self._selected is not None:
            for row, job in enumerate(jobs):
                if job.id == self._selected:
                    select_only(self.table, row)
                    self._show_job(job)
                    break

    def _failed(self, exc: object, _tb: str) -> None:
        self.summary.setText(f"Cannot read the jobs: {exc}")

    # -- one job ---------------------------------------------------------------------
    def selected_job(self) -> JobRecord | None:
        return self.model.row_at(self.table.currentIndex().row())

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        job = self.model.row_at(current.row())
        self._selected = job.id if job else None
        self._show_job(job)

    def _show_job(self, job: JobRecord | None) -> None:
        self.retry_button.setEnabled(job is not None and job.status == JobStatus.FAILED)
        self.cancel_button.setEnabled(job is not None and job.status == JobStatus.PENDING)
        if job is None:
            self.details.clear()
            return
        store = self.store
        ids = list(job.memory_ids)

        def work(state: TaskState) -> tuple[JobRecord, list[Any], EpisodeInfo | None]:
            episodes = Episodes(store)
            kept = episodes.of_job(job.id)  # the turn as said (its own, or a stored twin)
            return job, store.get_many(ids), episodes.get(kept) if kept else None

        self._detail.start(work)

    def _show_detail(self, result: tuple[JobRecord, list[Any], EpisodeInfo | None]) -> None:
        job, memories, episode = result
        if job.id != self._selected:
            return
        lines = [f"Job {job.id} · {job.status} · attempts {job.attempts}",
                 f"User {isolate(job.user_id)} · session {isolate(job.session_id or '—')} · "
                 f"topic {isolate(job.topic or '—')}",
                 f"Extractor: {job.extractor or '—'}"
                 + (f" ({job.model})" if job.model else ""), "", "Turn:", reveal(job.text), ""]
        if episode is not None:  # Browse → Episodes, or any unit's detail pane, opens it
            lines += [f"Episode {episode.id} (the turn kept as said): "
                      + episode_line(episode, own=True), ""]
        if job.error:
            lines += ["Error:", job.error, ""]
        lines.append(f"Memories created ({len(memories)}):")
        for m in memories:
            lines.append(f"  - [{m.type} · {m.layer} · importance {m.importance:.2f} · "
                         f"confidence {m.confidence:.2f}] {isolate(m.text)}")
        lines += ["", "Log:"]
        lines += [f"  {e.get('at', '')}  {e.get('msg', '')}" for e in job.log]
        self.details.setPlainText("\n".join(lines))  # plain text: turns are untrusted

    def retry_selected(self) -> None:
        job = self.selected_job()
        if job is None:
            return
        queue, job_id = self.queue, job.id
        # Not undoable: a retry changes no memory; the job's log records it.
        self.run(Op(f"Retry job {job_id[:8]}", lambda: queue.retry(job_id), undoable=False,
                    changes=lambda _job: Changes(kinds=Changed.JOBS)))

    def cancel_selected(self) -> None:
        job = self.selected_job()
        if job is None:
            return
        queue, job_id = self.queue, job.id
        # Undoable: the core audits the cancel as one action group (core/write/jobs.py).
        # A job a worker claimed since the list loaded is refused with the core's message.
        self.run(Op(f"Cancel job {job_id[:8]}", lambda: queue.cancel(job_id)))

    def _embed(self) -> None:
        embed_missing(self.desk, self)

    def wait_idle(self, msecs: int = 5000) -> None:
        self._load.wait(msecs)
        self._detail.wait(msecs)
