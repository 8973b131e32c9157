"""Browse: the operator's home view — filter bar, lazily paged table, detail pane.

Every change is one ``Op`` around one store call, run through the desk's action
pipeline (undoable from Edit → Undo, errors shown by the window); its Changes come back
through ``refresh`` like everyone else's, and loaded rows are patched in place.
"Prune old episodes…" (ui/browse/prune_episodes.py) is one of them: a background op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QAction, QHideEvent, QKeySequence, QShowEvent, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMessageBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
)

from memdesk.core.curation.episodes import EpisodePruning, PrunePlan
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.records import Changed, Changes
from memdesk.core.taxonomy import LOW_CONFIDENCE, MemoryType
from memdesk.ui.browse.archive_actions import ArchiveCommands
from memdesk.ui.browse.browser_model import COLUMN_KEYS, COLUMNS, BrowserModel
from memdesk.ui.browse.detail import DetailPane
from memdesk.ui.browse.filters import FilterBar
from memdesk.ui.browse.prune_episodes import PruneEpisodesDialog
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.delegates import ScoreBarDelegate
from memdesk.ui.desk.empty import EmptyNote
from memdesk.ui.desk.ops import LatestTask, TaskState
from memdesk.ui.desk.selection import select_only
from memdesk.ui.desk.text import count_of
from memdesk.ui.desk.view import DeskView
from memdesk.ui.store_safety.safety import ask_after_conflict, edit_or_conflict

EMPTY = ("No memory matches these filters.\nClear filters (Ctrl+Shift+L) or change the "
         "search.")
EMPTY_HYPOTHETICAL = (
    "No hypotheticals in this store.\n\nA hypothetical is a supposition, not a belief: "
    "\"if I moved to Berlin I would…\", role-play, a rhetorical question. The extraction "
    "of an agent's turn marks such a statement hypothetical (and so does `add --framing "
    "hypothetical`); it is kept and searchable here, but never recalled or injected as "
    "something the user holds true.")


def empty_text(flt: MemoryFilter) -> str:
    """What the empty list says: under Hypotheticals, what would land there."""
    if flt.statuses == (Status.HYPOTHETICAL,) and flt == MemoryFilter(
            statuses=(Status.HYPOTHETICAL,)):
        return EMPTY_HYPOTHETICAL
    return EMPTY


def sort_words(key: str, descending: bool) -> str:
    """"created, newest first": a column's title and its order in words."""
    title = COLUMNS[COLUMN_KEYS.index(key)].title.lower() if key in COLUMN_KEYS else key
    if key in ("created_at", "last_accessed"):
        order = ("newest first", "oldest first")
    elif key in ("importance", "confidence", "access_count"):
        order = ("highest first", "lowest first")
    else:
        order = ("Z to A", "A to Z")
    return f"{title}, {order[0] if descending else order[1]}"


class BrowserView(DeskView):
    """Filter bar + table + detail pane over one store."""

    refresh_on = Changed.MEMORIES | Changed.HISTORY

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        store = self.store
        low = desk.settings.low_confidence if desk.settings is not None else LOW_CONFIDENCE

        self.filters = FilterBar(low)
        self.model = BrowserModel(store, low, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setObjectName("browser-table")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        vh = self.table.verticalHeader()
        vh.setDefaultSectionSize(self.fontMetrics().height() + 8)
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        bars = ScoreBarDelegate(self.table)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setHighlightSections(False)
        char = self.fontMetrics().averageCharWidth()
        for i, col in enumerate(COLUMNS):
            self.table.setColumnWidth(i, col.width * char + 16)
            if col.key in ("importance", "confidence"):
                self.table.setItemDelegateForColumn(i, bars)
        header.setSortIndicator(COLUMN_KEYS.index("created_at"), Qt.SortOrder.DescendingOrder)
        self.table.setSortingEnabled(True)  # calls model.sort(): the first query starts here

        self.detail = DetailPane(store)
        self.empty_note = EmptyNote(self.table, EMPTY, "browser-empty")
        self.summary = QLabel("Loading…")
        self.summary.setObjectName("browser-summary")
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([960, 420])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 0)
        lay.addWidget(self.filters)
        lay.addWidget(split, 1)
        lay.addWidget(self.summary)

        self.filters.changed.connect(self.set_filter)
        self.model.loaded.connect(self._on_loaded)
        self.model.countChanged.connect(lambda _n: self._on_loaded(first_page=False))
        self.model.rowsInserted.connect(lambda *_: self._update_summary())
        self.model.failed.connect(self._refuse)  # a read failed: said where one looks
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.detail.apply_requested.connect(self.edit)
        self.detail.open_memory.connect(self.open_memory)
        self.actions_: list[QAction] = self._make_actions()
        desk.failed.connect(lambda _name, message: self.summary.setText(message))
        self._choices = LatestTask(self)
        self._choices.finished.connect(lambda tu: self.filters.set_choices(*tu))
        self.users: list[str] = []  # the store's users, for the prune dialog's picker
        self._choices.finished.connect(lambda tu: setattr(self, "users", list(tu[1])))
        self.prune_dialog: PruneEpisodesDialog | None = None
        self.erase_dialog: QDialog | None = None  # Erase permanently… (ui/browse/erase.py)
        self.receipt_dialog: QDialog | None = None
        self.load_choices()
        self._sync_actions()

    # -- actions ------------------------------------------------------------------
    def _make_actions(self) -> list[QAction]:
        def act(text: str, shortcut: str | QKeySequence | QKeySequence.StandardKey,
                fn: Callable[[], object],
                table_only: bool = False) -> QAction:
            a = QAction(text, self)
            a.setShortcut(QKeySequence(shortcut))
            a.triggered.connect(lambda _=False: fn())
            if table_only:  # Delete must not steal the key from text fields
                a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                self.table.addAction(a)
            return a

        self.find_action = act("Find", "Ctrl+F", self.focus_search)
        self.clear_action = act("Clear filters", "Ctrl+Shift+L", self.filters.clear)
        self.set_type_action = act("Set type…", "Ctrl+Shift+T", self.ask_type)
        self.set_topic_action = act("Set topic…", "Ctrl+Shift+O", self.ask_topic)
        self.set_importance_action = act("Set importance…", "Ctrl+I", self.ask_importance)
        self.supersede_action = act("Supersede selected by current", "Ctrl+Shift+R",
                                    self.supersede_by_current)
        self.delete_action = act("Soft-delete", QKeySequence.StandardKey.Delete,
                                 self.delete_selected, table_only=True)
        self.prune_action = act("Prune old episodes…", "Ctrl+Shift+P",
                                self.ask_prune_episodes)
        self.erase_action = act("Erase permanently…", "Ctrl+Shift+Del", self.ask_erase)
        self.archiving = ArchiveCommands(self)
        archive, unarchive = self.archiving.archive_action, self.archiving.unarchive_action
        self.apply_action = act("Apply edit", "Ctrl+Return", self.detail.request_apply)
        self.apply_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)  # pane has own
        for a in (self.set_type_action, self.set_topic_action, self.set_importance_action,
                  self.supersede_action, self.delete_action, self.erase_action, archive,
                  unarchive):
            if a not in self.table.actions():
                self.table.addAction(a)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self._selection_actions = (self.set_type_action, self.set_topic_action,
                                   self.set_importance_action, self.supersede_action,
                                   self.delete_action)
        self._view_only_actions = (self.find_action, self.clear_action, self.apply_action)
        return [self.find_action, self.clear_action, self.apply_action, self.set_type_action,
                self.set_topic_action, self.set_importance_action, self.supersede_action,
                self.delete_action, self.erase_action, archive, unarchive,
                self.prune_action]

    def _sync_actions(self) -> None:
        """The Memory menu's commands act on what Browse shows: while another view is
        shown (Browse's selection hidden) they are off, so Ctrl+I from Overview does
        nothing rather than change memories the operator cannot see; the selection's
        commands are off, too, while nothing is selected."""
        shown = self.isVisible()
        selected = shown and self.table.selectionModel().hasSelection()
        for a in self._selection_actions:
            a.setEnabled(selected)
        for a in self._view_only_actions:
            a.setEnabled(shown)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._sync_actions()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._sync_actions()

    def focus_search(self) -> None:
        self.filters.search.setFocus()
        self.filters.search.selectAll()

    # -- queries ----------------------------------------------------------------------
    def set_filter(self, flt: MemoryFilter) -> None:
        self.model.set_query(flt)
        self._update_summary()

    def apply_filter(self, flt: MemoryFilter) -> None:
        """Show a (saved) filter in the filter bar and run it."""
        self.filters.set_filter(flt)

    def load_choices(self) -> None:
        store = self.store
        self._choices.start(
            lambda state: (store.distinct("topic"), store.distinct("user_id"),
                           store.distinct("agent_id"))
        )

    def _on_loaded(self, first_page: bool = True) -> None:
        self._update_summary()
        # The first row is selected once per query, when its first page arrives: when
        # the count follows, an operator who chose to stay with an unsaved edit (and so
        # has no row selected) must not be asked again.
        if (first_page and self.model.rowCount()
                and not self.table.selectionModel().hasSelection()):
            select_only(self.table, 0)
        # Only once the count says so: between a query's reset and its first page the
        # table is empty too, and the pane must not flicker to nothing then.
        empty = self.model.rowCount() == 0 and self.model.total == 0
        self.empty_note.set_visible(empty, empty_text(self.model.filter))
        if empty and not self.detail.has_unsaved():
            # The pane must not keep showing a memory that is not in the list.
            self.detail.show_memory(None, selected=0)

    def _update_summary(self) -> None:
        m = self.model
        total = ("counting… memories match" if m.total is None
                 else f"{count_of(m.total, 'memory matches', 'memories match')}")
        state = " · searching…" if m.loading else ""
        # In words: Qt's header draws a descending sort as an arrow pointing up, so an
        # arrow here read the opposite way to the header's.
        self.summary.setText(f"{total} · {m.loaded_count:,} loaded · sorted by "
                             f"{sort_words(m.order_by, m.descending)}{state}")

    # -- selection and detail ---------------------------------------------------------
    def selected_ids(self) -> list[str]:
        rows = sorted(i.row() for i in self.table.selectionModel().selectedRows())
        return [r.id for r in (self.model.row_at(i) for i in rows) if r is not None]

    def current_id(self) -> str | None:
        row = self.model.row_at(self.table.currentIndex().row())
        return row.id if row else None

    def _on_selection(self, _sel: QItemSelection | None = None, _desel: Any = None) -> None:
        self._sync_actions()
        ids = self.selected_ids()
        cur = self.current_id()
        if len(ids) == 1:
            cur = ids[0]
        shown = self.detail.record
        if shown is not None and (cur if ids else None) != shown.id and not self.leave_edit():
            # Cancel: back to the row being edited, without asking again.
            self._select_quietly(shown.id)
            return
        self.detail.show_memory(cur if ids else None, selected=max(1, len(ids)))

    def leave_edit(self, question: str = "Apply it, discard it, or stay on this memory?"
                   ) -> bool:
        """Whether the detail pane may stop showing its memory (another row, another
        store, quitting): asks Apply / Discard / Cancel when the operator typed an edit
        that is not applied yet.  Discard puts the stored values back in the form (so
        nothing asks again); an Apply that did not go through (refused, conflicting)
        counts as Cancel: the typed edit is still there."""
        if not self.detail.has_unsaved():
            return True
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Unsaved edit")
        box.setTextFormat(Qt.TextFormat.PlainText)
        fields = ", ".join(sorted(self.detail.edited_fields()))
        box.setText(f"The edit of {fields} is not applied yet.")
        box.setInformativeText(question)
        box.setStandardButtons(QMessageBox.StandardButton.Apply
                               | QMessageBox.StandardButton.Discard
                               | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Apply)
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Apply:
            self.detail.request_apply()
            return not self.detail.has_unsaved()
        if answer == QMessageBox.StandardButton.Discard:
            self.detail.reload()
            return True
        return False

    def _select_quietly(self, memory_id: str) -> None:
        row = self.model.row_of(memory_id)
        sm = self.table.selectionModel()
        sm.blockSignals(True)
        try:
            if row is None:
                self.table.clearSelection()
            else:  # not selectRow: it would follow a held Ctrl and toggle instead
                sm.setCurrentIndex(self.model.index(row, 0),
                                   QItemSelectionModel.SelectionFlag.ClearAndSelect
                                   | QItemSelectionModel.SelectionFlag.Rows
                                   | QItemSelectionModel.SelectionFlag.Current)
        finally:
            sm.blockSignals(False)
        self.table.viewport().update()

    def open_memory(self, memory_id: str) -> None:
        shown = self.detail.record
        if shown is not None and shown.id != memory_id and not self.leave_edit():
            return
        row = self.model.row_of(memory_id)
        if row is not None:
            select_only(self.table, row)  # exactly this row, whatever keys are held
            self.table.scrollTo(self.model.index(row, 0))
        else:  # not in the loaded rows (other filter): show it in the pane anyway
            self.table.clearSelection()
            self.detail.show_memory(memory_id)

    # -- operations ----------------------------------------------------------------------
    @property
    def undo_stack(self) -> QUndoStack:
        return self.desk.undo_stack

    @property
    def last_error(self) -> str | None:
        return self.desk.last_error

    def _refuse(self, message: str) -> None:
        """A request that needs something first (a selection): said where one looks."""
        self.summary.setText(message)

    refuse = _refuse  # for the view's command helpers (ui/browse/archive_actions.py)

    def edit(self, memory_id: str, fields: dict[str, Any]) -> None:
        names = ", ".join(sorted(fields))
        store = self.store
        seen = self.detail.record  # the version the operator edited (optimistic check)

        def on_top(version: int) -> None:
            self.run(Op(f"Edit {names}", lambda: store.update(
                memory_id, expected_version=version, **fields)))

        # A conflict is the op's result, asked about after it, on the GUI thread.
        self.run(Op(f"Edit {names}",
                    lambda: edit_or_conflict(store, memory_id, fields, seen),
                    lambda result: ask_after_conflict(self, result, fields, seen, on_top)))

    def bulk_set(self, field: str, value: Any, ids: list[str] | None = None) -> None:
        ids = self.selected_ids() if ids is None else ids
        if not ids:
            self._refuse("Select one or more memories first.")
            return
        store = self.store
        self.run(Op(f"Set {field} of {count_of(len(ids), 'memory', 'memories')}",
                    lambda: store.bulk_update(ids, **{field: value})))

    def delete_selected(self, ids: list[str] | None = None) -> None:
        ids = self.selected_ids() if ids is None else ids
        if not ids:
            self._refuse("Select one or more memories first.")
            return
        store = self.store
        self.run(Op(f"Soft-delete {count_of(len(ids), 'memory', 'memories')}",
                    lambda: store.bulk_delete(ids)))

    def supersede_by_current(self, old_ids: list[str] | None = None,
                             new_id: str | None = None) -> None:
        new_id = new_id or self.current_id()
        old = [i for i in (self.selected_ids() if old_ids is None else old_ids) if i != new_id]
        if new_id is None or not old:
            self._refuse("Select the memories to retire, then make the replacing memory the "
                         "current row (Ctrl+click it last).")
            return
        store = self.store
        self.run(Op(f"Supersede {count_of(len(old), 'memory', 'memories')}",
                    lambda: store.bulk_supersede(old, new_id)))

    def ask_prune_episodes(self) -> None:
        """Open the prune dialog (window-modal); its Prune runs ``prune_episodes``."""
        dlg = PruneEpisodesDialog(self.store, self.users, self)
        dlg.accepted.connect(lambda: self.prune_episodes(dlg.plan))
        dlg.finished.connect(dlg.deleteLater)
        self.prune_dialog = dlg
        dlg.open()

    def prune_episodes(self, plan: PrunePlan | None) -> None:
        """Soft-delete the plan's episodes as one undoable action, off the GUI thread
        (a prune of many thousand turns is one long transaction)."""
        if plan is None or not plan.count:
            self._refuse("Nothing to prune.")
            return
        pruning = EpisodePruning(self.store)
        self.run(Op(f"Prune {count_of(plan.count, 'episode', 'episodes')}",
                    lambda _state: pruning.prune(plan), background=True))

    def ask_erase(self) -> None:
        """Ask to erase the current memory for good (window-modal: ui/browse/erase.py)."""
        from memdesk.ui.browse.erase import EraseDialog

        mid = self.current_id()
        if mid is None:
            self._refuse("Select the memory to erase first.")
            return
        dlg = EraseDialog(self.store, mid, self)
        dlg.accepted.connect(lambda: self.erase(dlg.memory_id))
        dlg.finished.connect(dlg.deleteLater)
        self.erase_dialog = dlg
        dlg.open()

    def erase(self, memory_id: str) -> None:
        """Purge ``memory_id`` off the GUI thread; not undoable; then the receipt."""
        from memdesk.core.erasure.service import Erased, Erasure
        from memdesk.ui.browse.erase import ReceiptDialog

        erasure = Erasure(self.store)
        steps = ("erasing", "scrubbing the store's files", "checkpointing the WAL",
                 "compacting the file (VACUUM)", "proving the erasure")

        def call(state: TaskState) -> Erased:
            return erasure.purge(memory_id, progress=lambda step: state.progress(
                steps.index(step) + 1 if step in steps else 0, len(steps)))

        def done(erased: Erased) -> None:
            self.receipt_dialog = ReceiptDialog(erased, self)
            self.receipt_dialog.open()

        self.run(Op("Erase 1 memory permanently", call, done, undoable=False,
                    background=True))

    def ask_type(self) -> None:
        types = [t.value for t in MemoryType]
        value, ok = QInputDialog.getItem(self, "Set type", "Type for the selected memories:",
                                         types, 0, False)
        if ok:
            self.bulk_set("type", value)

    def ask_topic(self) -> None:
        value, ok = QInputDialog.getText(self, "Set topic",
                                         "Topic for the selected memories (empty: none):")
        if ok:
            self.bulk_set("topic", value.strip() or None)

    def ask_importance(self) -> None:
        value, ok = QInputDialog.getDouble(self, "Set importance",
                                           "Importance for the selected memories:",
                                           0.5, 0.0, 1.0, 2)
        if ok:
            self.bulk_set("importance", value)

    def wait_idle(self, msecs: int = 5000) -> None:
        """Wait for this view's background queries (window close, store switch, tests)."""
        self.model.wait(msecs)
        self._choices.wait(msecs)

    def view_actions(self) -> list[QAction]:
        return list(self.actions_)

    # -- broadcast --------------------------------------------------------------------------
    def refresh(self, changes: Changes) -> None:
        """Patch loaded rows in place, even while hidden (cheap: only changed ids); run
        the query again when rows were added (an import, a merge): patching in place
        shows edits, never rows the list did not have."""
        if changes.new_memory_ids:
            self.model.set_query()
        elif changes.memories:
            self.model.refresh(changes)
        if self.detail.record is not None and (
            self.detail.record.id in changes.memory_ids or Changed.ALL in changes.kinds
        ):
            self.detail.reload()
        if changes.memories:
            self.load_choices()
