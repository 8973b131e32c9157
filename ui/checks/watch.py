"""Recall checks after every bulk action: the desk replays them in the background and
says which check broke, which action broke it, with that action's Undo one click away.

The bulk actions are those that change what agents recall wholesale: a finished
revaluation sweep, a merge of duplicates, a contradiction's resolution, an import, an
embedding pass, and a restore from a backup.  ``ChecksWatcher`` hears the first five
on the desk's broadcast (``Desk.changed``: their ``Changes`` name the declared action)
and the restore from the window (``restored``).  The run is a ``LatestTask`` (a newer
action's run replaces one still going) with a progress dialog whose Cancel stops it.

A check's verdict before the action is its stored last result (every run keeps it);
after a restore, the verdicts the desk knew of the store it replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QProgressDialog,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.read.checks import CheckResult, ChecksRun, RecallChecks
from memdesk.core.store import actions as acts
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.ops import LatestTask, Task, TaskState
from memdesk.ui.desk.text import count_of, elide, isolate, plain_label

# Actions after which the checks run (with the memories they changed).
BULK = frozenset({acts.MERGE, acts.RESOLVE_KEEP, acts.RESOLVE_EDIT, acts.RESOLVE_MERGE,
                  acts.IMPORT, acts.EMBED, acts.REEMBED})
SWEEP_DECISIONS = frozenset({acts.REVALUE, acts.REVIEW_KEEP, acts.REVIEW_SKIP})


@dataclass(frozen=True)
class Cause:
    """The action a run follows: its words, where the audit log has it, and how to undo
    it (None, with ``why_not``, when it cannot be)."""

    label: str
    ref: str
    undo: Callable[[], Changes] | None = None
    why_not: str = ""


@dataclass(frozen=True)
class Outcome:
    """A run after a cause, and each changed check with its verdict before."""

    run: ChecksRun
    cause: Cause
    changed: tuple[tuple[CheckResult, bool], ...]

    @property
    def broke(self) -> tuple[CheckResult, ...]:
        return tuple(r for r, before in self.changed if before and not r.passed)


def cause_of(store: Any, changes: Changes) -> Cause | None:
    """The cause a broadcast names, if it is a bulk action (sweeps: see ``_sweep``)."""
    from memdesk.core.undo.generic import undo_changes

    action = changes.action
    if action not in BULK or not changes.kinds & Changed.MEMORIES:
        return None
    label = changes.label() or action.verb
    ref = (f"audit group {changes.group_id}" if changes.group_id
           else f"event #{changes.event_ids[0]}" if changes.event_ids else "the store's history")
    if not action.undoable or not changes.undoable:
        return Cause(label, ref, None, "new vectors cannot be undone (they are derived "
                                       "data); the model that made them can be changed")
    return Cause(label, ref, lambda: undo_changes(store, changes))


def _sweep(store: Any, changes: Changes) -> Cause | None:
    """A finished sweep (its last decision is ``changes``): undo is all its decisions."""
    from memdesk.core.curation.service import Sweeps
    from memdesk.core.undo.generic import undo_groups

    if changes.group_id is None:
        return None
    found = Sweeps(store).finished_by(changes.group_id)
    if found is None:
        return None
    sweep_id, groups = found
    return Cause(f"sweep {sweep_id[:8]} ({count_of(len(groups), 'decision', 'decisions')})",
                 f"{len(groups)} audit groups, the newest {groups[0]}" if groups else "",
                 lambda: undo_groups(store, groups))


class ChecksWatcher(QObject):
    """Runs the checks after each bulk action; shows what changed (``dialog``)."""

    finished = Signal(object)  # Outcome

    def __init__(self, desk: Desk, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.desk = desk
        self.parent_widget = parent
        self.dialog: ChangedChecksDialog | None = None
        self.progress: QProgressDialog | None = None
        self._task = LatestTask(self)
        self._task.finished.connect(self._done)
        self._task.failed.connect(self._failed)
        self._sweeps = LatestTask(self)
        self._sweeps.finished.connect(
            lambda cause: self.run_after(cause) if cause is not None else None)
        self._running: Task | None = None
        self._known: dict[str, bool] = {}  # the desk's latest verdicts of this store
        self._replaced: dict[str, bool] = {}  # those of the store a restore replaced
        desk.changed.connect(self._on_changed)

    # -- triggers ------------------------------------------------------------------------
    def _on_changed(self, changes: Changes) -> None:
        store = self.desk.store
        if changes.action in SWEEP_DECISIONS:
            # Only the decision that finishes a sweep counts; asking off the GUI thread,
            # apart from the runs (a decision must not cancel a merge's run).
            self._sweeps.start(lambda state: _sweep(store, changes))
            return
        cause = cause_of(store, changes)
        if cause is not None:
            self._start(lambda: cause)

    def store_opened(self, _store: object = None) -> None:
        """Another store is open: what is known of the old one waits for ``restored``,
        and a dialog about the old store's action goes (its Undo would act on the new)."""
        self._replaced, self._known = self._known, {}
        self.close_dialog()

    def close_dialog(self) -> None:
        """Close the "Recall checks changed" dialog, if one is open (the window closes:
        a dialog of its own must not outlive it and keep the app running)."""
        if self.dialog is not None:
            self.dialog.close()
            self.dialog = None

    def restored(self, report: Any = None) -> None:
        """The store was replaced by a backup: compare with the verdicts it replaced."""
        backup = getattr(report, "backup", None)
        aside = getattr(report, "set_aside", None)
        why = "a restore is undone by restoring the file it set aside" + (
            f" ({aside}) with File → Restore…" if aside else "")
        cause = Cause("restore from a backup", f"backup {backup}" if backup else "File → Restore",
                      None, why)
        baseline = dict(self._replaced)
        self._start(lambda: cause, baseline)

    def run_after(self, cause: Cause) -> None:
        """Run the checks now, as after ``cause`` (the desk's Undo button uses it)."""
        self._start(lambda: cause)

    # -- running -------------------------------------------------------------------------
    def _start(self, find: Callable[[], Cause | None],
               baseline: dict[str, bool] | None = None) -> None:
        store = self.desk.store

        def work(state: TaskState) -> Outcome | None:
            cause = find()
            if cause is None:
                return None
            checks = RecallChecks(store)
            if not checks.list():
                return None
            run = checks.run(progress=state.progress, cancelled=lambda: state.cancelled)
            before = {r.check.id: (baseline.get(r.check.id) if baseline is not None
                                   else r.before) for r in run.results}
            changed = tuple((r, b) for r in run.results
                            if (b := before[r.check.id]) is not None and b != r.passed)
            return Outcome(run, cause, changed)

        self._running = self._task.start(work)
        self._running.progress.connect(self._progress)

    def _progress(self, done: int, total: int) -> None:
        if self.progress is None:
            self.progress = QProgressDialog("Running the recall checks…", "Cancel", 0, total,
                                            self.parent_widget)
            self.progress.setWindowTitle("Recall checks")
            self.progress.setMinimumDuration(400)
            self.progress.setAutoClose(False)
            self.progress.canceled.connect(self.cancel)
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        self.progress.setLabelText(f"Running the recall checks: {done:,} of {total:,}")

    def cancel(self) -> None:
        if self._running is not None:
            self._running.cancel()
        self._close_progress()

    def _close_progress(self) -> None:
        dialog, self.progress = self.progress, None
        if dialog is not None:
            dialog.canceled.disconnect(self.cancel)  # closing it is not the operator's Cancel
            dialog.close()
            dialog.deleteLater()

    def _failed(self, exc: object, _tb: str) -> None:
        self._close_progress()
        self.desk.report("Recall checks", f"The recall checks could not run: {exc}")

    def _done(self, outcome: Outcome | None) -> None:
        self._close_progress()
        if outcome is None:
            return
        self._known.update({r.check.id: r.passed for r in outcome.run.results})
        self.desk.changed.emit(outcome.run.changes)  # the Checks view shows the results
        if outcome.changed:
            self.close_dialog()
            self.dialog = ChangedChecksDialog(outcome, self, self.parent_widget)
            self.dialog.show()
        self.finished.emit(outcome)

    def undo(self, cause: Cause) -> bool:
        """Undo the cause through the desk (one step of Edit → Undo), then run again."""
        if cause.undo is None:
            return False
        return self.desk.run(Op(f"Undo {cause.label}", cause.undo, done=lambda _c: self.run_after(
            Cause(f"undo of {cause.label}", "Edit → Undo", None, "redo it with Edit → Redo"))))

    def wait(self, msecs: int = 5000) -> bool:
        return self._sweeps.wait(msecs) and self._task.wait(msecs)


class ChangedChecksDialog(QDialog):
    """Which checks broke (or were fixed), after which action, and its Undo."""

    def __init__(self, outcome: Outcome, watcher: ChecksWatcher,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome = outcome
        self.setWindowTitle("Recall checks changed")
        cause = outcome.cause
        broke = outcome.broke
        head = (f"{count_of(len(broke), 'recall check', 'recall checks')} broke"
                if broke else "Recall checks changed")
        self.heading = plain_label(f"{head} after the {cause.label} ({cause.ref}).")
        self.heading.setWordWrap(True)
        self.text = QTextEdit()
        self.text.setReadOnly(True)
        self.text.setAcceptRichText(False)
        self.text.setPlainText("\n\n".join(self.describe(r, b) for r, b in outcome.changed))
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        box.rejected.connect(self.reject)
        self.undo_button = QPushButton(f"Undo the {cause.label}")
        self.undo_button.setEnabled(cause.undo is not None)
        if cause.undo is None:
            self.undo_button.setToolTip(cause.why_not)
            self.undo_button.setText("Cannot be undone here")
        self.watcher = watcher
        self.undo_button.clicked.connect(self.undo)
        box.addButton(self.undo_button, QDialogButtonBox.ButtonRole.ActionRole)
        note = plain_label("" if cause.undo is not None else cause.why_not)
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.text, 1)
        layout.addWidget(note)
        layout.addWidget(box)
        self.resize(720, 420)
        self.setWindowModality(Qt.WindowModality.NonModal)

    def undo(self) -> None:
        """Undo the action that changed the checks (through the desk), then close."""
        self.watcher.undo(self.outcome.cause)
        self.accept()

    @staticmethod
    def describe(r: CheckResult, before: bool) -> str:
        """One check's change in plain, isolated text."""
        c = r.check
        state = "BROKE" if before and not r.passed else "now passes"
        lines = [f"{state}: check {c.id[:8]} for {isolate(c.user_id)}: "
                 f"{isolate(elide(c.query, 200))}"]
        lines += [f"  expected {n.memory_id}: {n.detail}" for n in r.missing]
        lines += [f"  forbidden {n.memory_id}: {n.detail}" for n in r.present]
        if r.error:
            lines.append(f"  cannot run: {r.error}")
        return "\n".join(lines)
