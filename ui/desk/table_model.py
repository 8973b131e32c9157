"""The list-backed table model every memdesk list view shares, and the read-only
table widget the panes use to show such lists.

Subclasses set ``HEADERS`` and implement ``data``; the rows live in ``self._rows``.  The
model is generic in its row type (``class JobsModel(RowsTableModel[JobRecord])``), so
``row_at`` and ``_rows`` are typed in each view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole
RowT = TypeVar("RowT")


class RowsTableModel(QAbstractTableModel, Generic[RowT]):
    """A flat table over a Python list of row objects, with fixed column headers."""

    HEADERS: tuple[str, ...] = ()
    # What a short header means, in full, as its tooltip ("" for none).
    HEADER_TIPS: tuple[str, ...] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[RowT] = []

    def set_rows(self, rows: Sequence[RowT]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> RowT | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if role == _DISPLAY and horizontal and 0 <= section < len(self.HEADERS):
            return self.HEADERS[section]
        if (role == Qt.ItemDataRole.ToolTipRole and horizontal
                and 0 <= section < len(self.HEADER_TIPS) and self.HEADER_TIPS[section]):
            return self.HEADER_TIPS[section]
        return None


def read_only_table(model: Any) -> QTableView:
    """A compact, row-selecting, non-editable table over ``model`` (no row numbers,
    no wrapping, columns sized to their contents, the last one stretched)."""
    view = QTableView()
    view.setModel(model)
    view.verticalHeader().hide()
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.horizontalHeader().setStretchLastSection(True)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    view.setWordWrap(False)
    return view
