"""Memory → Archive / Unarchive (and the table's context menu): the Browse view's
commands over core/store/archive.py, one undoable ``Op`` each.

Their shortcuts act only while focus is in the Browse view (the table, the detail
pane, the filter bar), the one view where a selection of memories is visible: from
another view, Ctrl+Shift+A must not archive rows the operator cannot see.  The menu
items stay clickable from anywhere; they act on the Browse selection, which the menu
names.  Only the selected rows the command applies to are sent (archive skips rows
archived already, deleted or held; unarchive takes the archived ones), and a selection
with none of them is said in the view's status line, changing nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from memdesk.core.store.archive import Archive
from memdesk.core.store.query import Status
from memdesk.ui.desk.actions import Op
from memdesk.ui.desk.text import count_of

if TYPE_CHECKING:
    from memdesk.ui.browse.browser import BrowserView

ARCHIVE_SHORTCUT = "Ctrl+Shift+A"
UNARCHIVE_SHORTCUT = "Ctrl+Shift+U"
# What archive may take: a row whose status is one of these (not deleted, held or
# archived already); core/store/archive.py refuses the rest all the same.
_ARCHIVABLE = frozenset(Status) - {Status.DELETED, Status.QUARANTINED, Status.ARCHIVED}


class ArchiveCommands:
    """The two actions of one Browse view."""

    def __init__(self, view: BrowserView) -> None:
        self.view = view
        self.archive_action = self._action("Archive", ARCHIVE_SHORTCUT, True,
                                           "Keep the selected memories but never recall or "
                                           "inject them (undoable)")
        self.unarchive_action = self._action("Unarchive", UNARCHIVE_SHORTCUT, False,
                                             "Recall the selected archived memories again")

    def _action(self, text: str, shortcut: str, archiving: bool, tip: str) -> QAction:
        a = QAction(text, self.view)
        a.setShortcut(QKeySequence(shortcut))
        a.setStatusTip(tip)
        a.setToolTip(tip)
        # Only while the Browse view (or a child: the table, the pane) has the focus.
        a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        a.triggered.connect(lambda _=False: self.run(archiving))
        self.view.addAction(a)
        return a

    def _selected(self) -> list[tuple[str, Status]]:
        view = self.view
        rows = sorted(i.row() for i in view.table.selectionModel().selectedRows())
        return [(r.id, r.status) for r in (view.model.row_at(i) for i in rows) if r is not None]

    def run(self, archiving: bool, ids: list[str] | None = None) -> None:
        """Archive (``archiving``) or unarchive ``ids`` (default: the selected rows the
        command applies to)."""
        view = self.view
        if ids is None:
            selected = self._selected()
            if not selected:
                view.refuse("Select one or more memories first.")
                return
            ids = [i for i, st in selected
                   if (st in _ARCHIVABLE if archiving else st is Status.ARCHIVED)]
            if not ids:
                view.refuse("None of the selected memories can be archived: they are "
                            "archived already, deleted or held for review." if archiving
                            else "None of the selected memories is archived.")
                return
        archive = Archive(view.store)
        verb = "Archive" if archiving else "Unarchive"
        fn = archive.archive if archiving else archive.unarchive
        chosen = list(ids)
        view.run(Op(f"{verb} {count_of(len(chosen), 'memory', 'memories')}",
                    lambda: fn(chosen)))
