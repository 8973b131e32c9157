"""Selecting a row from code, the same whatever keys the operator holds.

``QAbstractItemView.selectRow`` asks the keyboard which selection command it means: with
Ctrl held it toggles the row, with Shift it extends the selection.  A view that selects
a row itself (the first row of a fresh list, the memory a link opens, the row a reload
keeps) is often doing so while the keys of the shortcut that caused it are still down
(Ctrl+Shift+A archives, and the list reloads before the keys are up), and the detail pane
would then show nothing, or two rows.  ``select_only`` selects exactly that row.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QAbstractItemView


def select_only(view: QAbstractItemView, row: int, column: int = 0) -> None:
    """Make ``row`` the current and only selected row of ``view`` (no-op without one)."""
    model, selection = view.model(), view.selectionModel()
    if model is None or selection is None or not 0 <= row < model.rowCount():
        return
    flags = (QItemSelectionModel.SelectionFlag.ClearAndSelect
             | QItemSelectionModel.SelectionFlag.Rows)
    selection.setCurrentIndex(model.index(row, column), flags)
