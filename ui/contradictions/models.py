"""The contradiction queue model: one row per open group (unlinked corrections first),
holding the scan's plain value objects.  Resolved groups are removed row by row."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt

from memdesk.core.curation.contradictions import ContradictionGroup, Key
from memdesk.ui.desk.table_model import Index, RowsTableModel
from memdesk.ui.desk.text import elide_middle, isolate, one_line, tooltip_text

_DISPLAY = Qt.ItemDataRole.DisplayRole
_TIP = Qt.ItemDataRole.ToolTipRole


class ContradictionQueueModel(RowsTableModel[ContradictionGroup]):
    HEADERS = ("Kind", "User", "Entity · attribute", "Values", "Members")

    # Rows are ContradictionGroup objects: set_rows(groups), row_at(row).

    def row_of(self, key: Key) -> int:
        return next((i for i, g in enumerate(self._rows) if g.key == key), -1)

    def remove(self, key: Key) -> int:
        """Drop a resolved group; returns the row it had (or -1)."""
        row = self.row_of(key)
        if row >= 0:
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._rows[row]
            self.endRemoveRows()
        return row

    def insert(self, row: int, group: ContradictionGroup) -> None:
        if self.row_of(group.key) >= 0:
            return
        row = max(0, min(row, len(self._rows)))
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.insert(row, group)
        self.endInsertRows()

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or role not in (_DISPLAY, _TIP):
            return None
        g = self._rows[index.row()]
        col = index.column()
        if col == 4:
            return g.member_count
        if col == 0:
            return "correction" if g.kind == "correction" else "conflict"
        # Values from memories are shown visibly (⟨U+202E⟩, not obeyed) and, between the
        # app's own separators, isolated: an override in one cannot reverse the others.
        # Each value is cut before it is isolated (the tooltip has it whole).
        width = 2000 if role == _TIP else 40
        if col == 1:
            text = one_line(elide_middle(g.user_id, width))
        elif col == 2:
            text = (f"{isolate(elide_middle(g.entity, width))} · "
                    f"{isolate(elide_middle(g.attribute, width))}")
        elif col == 3:
            text = " ≠ ".join(isolate(elide_middle(v.display, width)) for v in g.values)
        else:
            return None
        # Tooltips are rich text: every one is escaped (users and entities come from
        # memories, so from agents).
        return tooltip_text(text, limit=20_000) if role == _TIP else text
