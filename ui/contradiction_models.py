"""The contradiction queue model: one row per open group (unlinked corrections first),
holding the scan's plain value objects.  Resolved groups are removed row by row."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from memdesk.core.contradictions import ContradictionGroup, Key

from .text import elide, tooltip_text

_DISPLAY = Qt.ItemDataRole.DisplayRole
_TIP = Qt.ItemDataRole.ToolTipRole


class ContradictionQueueModel(QAbstractTableModel):
    HEADERS = ("Kind", "User", "Entity · attribute", "Values", "Members")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._groups: list[ContradictionGroup] = []

    def set_groups(self, groups: list[ContradictionGroup]) -> None:
        self.beginResetModel()
        self._groups = list(groups)
        self.endResetModel()

    def group_at(self, row: int) -> ContradictionGroup | None:
        return self._groups[row] if 0 <= row < len(self._groups) else None

    def row_of(self, key: Key) -> int:
        return next((i for i, g in enumerate(self._groups) if g.key == key), -1)

    def remove(self, key: Key) -> int:
        """Drop a resolved group; returns the row it had (or -1)."""
        row = self.row_of(key)
        if row >= 0:
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._groups[row]
            self.endRemoveRows()
        return row

    def insert(self, row: int, group: ContradictionGroup) -> None:
        if self.row_of(group.key) >= 0:
            return
        row = max(0, min(row, len(self._groups)))
        self.beginInsertRows(QModelIndex(), row, row)
        self._groups.insert(row, group)
        self.endInsertRows()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._groups)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY):
        horizontal = orientation == Qt.Orientation.Horizontal
        if role == _DISPLAY and horizontal and 0 <= section < len(self.HEADERS):
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex, role: int = _DISPLAY) -> Any:
        if not index.isValid() or role not in (_DISPLAY, _TIP):
            return None
        g = self._groups[index.row()]
        col = index.column()
        if col == 0:
            return "correction" if g.kind == "correction" else "conflict"
        if col == 1:
            return g.user_id
        if col == 2:
            return f"{g.entity} · {g.attribute}"
        if col == 3:
            text = " ≠ ".join(v.display for v in g.values)
            return tooltip_text(text) if role == _TIP else elide(text, 80)
        if col == 4:
            return g.member_count
        return None
