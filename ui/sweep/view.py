"""Revaluation sweep view: start or resume a sweep, review one memory at a time by
keyboard alone (Anki-style), and read the report at the end.

Keys on the review page: 1–9 set importance 0.1–0.9 (0 sets 1.0), K keep, S skip,
U undo the last decision, N write a note for the next decision, Esc pause.  Every
decision is stored at once by the ``Sweeps`` façade (``memdesk.core.curation.service``);
this view keeps no state that a restart could lose.  Decisions are single-row writes
and run on the GUI thread so the next card appears immediately; sampling runs in the
background.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStackedWidget, QVBoxLayout

from memdesk.core.curation import sweep
from memdesk.core.curation.service import Sweeps
from memdesk.core.errors import MemdeskError
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.selection import select_only
from memdesk.ui.desk.text import list_entry, one_line, tooltip_text
from memdesk.ui.desk.view import DeskView
from memdesk.ui.sweep.learning import pick_line
from memdesk.ui.sweep.pages import ANY, SweepReportPage, SweepReviewPage, SweepStartPage


class SweepView(DeskView):
    """The sweep workflow.  Private state: the open sweep's id and a pending note."""

    refresh_on = Changed.SWEEPS | Changed.MEMORIES

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        self.sweeps = Sweeps(self.store)
        self.sweep_id: str | None = None
        self.state: sweep.SweepState | None = None
        self.pending_note: str | None = None
        self._stale = True
        self._lists = LatestTask(self)
        self._lists.finished.connect(self._lists_loaded)
        desk.failed.connect(self._failed)

        self.start = SweepStartPage(self)
        self.review = SweepReviewPage(self)
        self.report = SweepReportPage(self)
        self.stack = QStackedWidget()
        for page in (self.start, self.review, self.report):
            self.stack.addWidget(page)
        QVBoxLayout(self).addWidget(self.stack)
        # Focus given to the view (Ctrl+2) goes to the page shown: Enter then starts a
        # sweep, and the review keys work at once.
        self.stack.currentChanged.connect(self._focus_page)
        self.setFocusProxy(self.start)
        # "U or Ctrl+Z undoes it" must not outlive the undo (U, Edit → Undo alike).
        self._undo_index = desk.undo_stack.index()
        desk.undo_stack.indexChanged.connect(self._on_undo_index)

    # -- loading ----------------------------------------------------------------------
    def reload_lists(self) -> None:
        self._stale = False
        store = self.store
        self._lists.start(lambda st: (Sweeps(store).list(unfinished=True),
                                      store.distinct("user_id", limit=500)))
        self.start.learning.reload()

    def _lists_loaded(self, result: tuple[list[sweep.SweepSummary], list[str]]) -> None:
        sweeps, users = result
        self.start.sweeps.set_rows(sweeps)
        self.start.no_sweeps.setVisible(not sweeps)  # an empty list says why
        self.start.resume_button.setEnabled(bool(sweeps))
        if sweeps:
            select_only(self.start.table, 0)
        combo = self.start.user
        current = combo.currentText()
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(ANY)
        for u in users:  # a line break or override must not shape the list
            combo.addItem(list_entry(u), u)
            combo.setItemData(combo.count() - 1, tooltip_text(one_line(u)),
                              Qt.ItemDataRole.ToolTipRole)
        combo.setCurrentText(current or ANY)
        combo.blockSignals(False)

    def reload(self, changes: Changes) -> None:
        if self.stack.currentWidget() is not self.start and self.sweep_id is not None:
            self.show_current()
        else:
            self.reload_lists()

    def wait_idle(self, msecs: int = 5000) -> None:
        self._lists.wait(msecs)
        self.start.learning.wait(msecs)

    # -- starting and resuming --------------------------------------------------------
    def start_from_form(self) -> None:
        try:
            params = self.start.params()
        except MemdeskError as exc:  # the form's own input: said next to it
            self.start.status.setText(str(exc))
            return
        self.start.status.setText("Sampling…")
        self.start.start_button.setEnabled(False)
        store = self.store
        # A new sweep changes no memory and has nothing to undo (pausing leaves it);
        # its state carries those Changes.
        self.run(Op("Start a revaluation sweep",
                    lambda st: Sweeps(store).start(**params), self._started,
                    undoable=False, background=True))

    def _started(self, state: sweep.SweepState) -> None:
        self.start.start_button.setEnabled(True)
        self.start.status.setText("")
        self.open_sweep(state.id)

    def _failed(self, _name: str, _message: str) -> None:
        self.start.start_button.setEnabled(True)
        self.start.status.setText("")

    def resume_row(self, row: int) -> None:
        s = self.start.sweeps.row_at(row)
        if s is not None:
            self.open_sweep(s.id)

    def open_sweep(self, sweep_id: str) -> None:
        self.sweep_id = sweep_id
        self.pending_note = None
        self.review.clear_note()
        self.review.status.setText("")  # the last sweep's messages are not this one's
        self.show_current()

    def pause(self) -> None:
        self.sweep_id = None
        self.state = None
        self.stack.setCurrentWidget(self.start)
        self.reload_lists()
        self.start.setFocus()

    # -- reviewing --------------------------------------------------------------------
    def show_current(self) -> None:
        assert self.sweep_id is not None
        try:
            self.state = self.sweeps.get(self.sweep_id)
            item = self.state.current
            if item is None:
                self.report.show_report(self.state, self.sweeps.report(self.sweep_id))
                self.stack.setCurrentWidget(self.report)
                self.report.setFocus()
                return
            ctx = self.sweeps.context(item)
        except MemdeskError as exc:  # e.g. the store went away: the one error channel
            self.desk.report("Show the sweep", str(exc))
            return
        self.review.show_item(self.state, ctx)
        line = pick_line(self.sweeps.picks(self.sweep_id).get(item.pos))
        if line:  # shown with the contemplative hint: both say why to look closer
            hint = self.review.hint
            hint.setText(hint.text() + "\n" + line if hint.isVisibleTo(self) else line)
            hint.show()
        self.stack.setCurrentWidget(self.review)
        self.review.setFocus()

    def decide(self, decision: str, importance: float | None = None) -> None:
        if self.state is None or self.state.current is None:
            return
        sweep_id, pos, note = self.state.id, self.state.current.pos, self.pending_note
        verb = {"revalue": f"importance {importance:.1f}" if importance is not None else "",
                "keep": "keep", "skip": "skip"}[decision]
        sweeps = self.sweeps
        self.run(Op(f"Sweep item {pos + 1}: {verb}",
                    lambda: sweeps.decide(sweep_id, pos, decision, importance=importance,
                                          note=note),
                    self._decided))

    def _decided(self, step: sweep.SweepStep) -> None:
        self.pending_note = None
        self.review.clear_note()
        verb = {"revalue": "revalued", "keep": "kept", "skip": "skipped"}[step.decision]
        self.review.status.setText(f"Item {step.pos + 1} {verb}. U or Ctrl+Z undoes it.")

    def undo(self) -> None:
        """U: the same as Edit → Undo (one undo history for every view)."""
        self.desk.undo_stack.undo()

    def _focus_page(self, _index: int) -> None:
        page = self.stack.currentWidget()
        if page is not None:
            self.setFocusProxy(page)

    def _on_undo_index(self, index: int) -> None:
        went_back, self._undo_index = index < self._undo_index, index
        if went_back and self.stack.currentWidget() is not self.start:
            self.review.status.setText("Undone.")
