"""Qt models for the revaluation sweep view: unfinished sweeps, session neighbours,
and the report's histogram rows.  They hold plain value objects from core; no SQL."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt

from memdesk.core.curation.sweep import SweepReport, SweepSummary
from memdesk.core.store.records import MemoryRecord
from memdesk.ui.desk.table_model import Index, RowsTableModel
from memdesk.ui.desk.text import elide, tooltip_text

_ROLE_DISPLAY = Qt.ItemDataRole.DisplayRole
_ROLE_TIP = Qt.ItemDataRole.ToolTipRole


class SweepListModel(RowsTableModel[SweepSummary]):
    """Sweeps to resume: started, band, filters, progress."""

    HEADERS = ("Started", "Band", "Filters", "Progress")


    def data(self, index: Index, role: int = _ROLE_DISPLAY) -> Any:
        if not index.isValid() or role not in (_ROLE_DISPLAY, _ROLE_TIP):
            return None
        s = self._rows[index.row()]
        col = index.column()
        if col == 0:
            return f"{s.created_at:%Y-%m-%d %H:%M}"
        if col == 1:
            return f"{s.band[0]:.2f}–{s.band[1]:.2f}"
        if col == 2:
            parts = [p for p in (s.user_id and f"user {s.user_id}", s.type and f"type {s.type}")
                     if p]
            text = ", ".join(parts) or "all users and types"
            return tooltip_text(text) if role == _ROLE_TIP else elide(text, 60)
        if col == 3:
            return f"{s.done} / {s.total}"
        return None


class NeighbourModel(QAbstractListModel):
    """Memories from the same session as the one under review (plain text, elided)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[MemoryRecord] = []

    def set_rows(self, rows: list[MemoryRecord] | tuple[MemoryRecord, ...]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = _ROLE_DISPLAY) -> Any:
        if not index.isValid():
            return None
        r = self._rows[index.row()]
        if role == _ROLE_DISPLAY:
            return f"{r.created_at:%H:%M} · {r.type} · {r.importance:.2f} · {elide(r.text, 110)}"
        if role == _ROLE_TIP:
            return tooltip_text(r.text)
        return None


class HistogramModel(RowsTableModel[object]):  # rows: the report's bins, not a list
    """The report's importance histogram as a table: bin, before, after."""

    HEADERS = ("Importance", "Before", "After")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._report: SweepReport | None = None

    def set_report(self, report: SweepReport | None) -> None:
        self.beginResetModel()
        self._report = report
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() or self._report is None:
            return 0
        return len(self._report.before)

    def data(self, index: Index, role: int = _ROLE_DISPLAY) -> Any:
        if not index.isValid() or role != _ROLE_DISPLAY or self._report is None:
            return None
        rep, row = self._report, index.row()
        if index.column() == 0:
            e = rep.bin_edges
            return f"{e[row]:.1f}–{e[row + 1]:.1f}"
        return rep.before[row] if index.column() == 1 else rep.after[row]
