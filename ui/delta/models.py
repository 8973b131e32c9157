"""Qt table models of delta memory: candidate deltas, the drift review queue and the
editable source configuration.  Models hold plain core values; they never touch SQL
(edits go through DeltaMemory, which audits them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from memdesk.core.delta.contracts import CandidateDelta, ChangeType, SourceConfig
from memdesk.core.delta.snapshots import DiffRecord
from memdesk.ui.desk.table_model import RowsTableModel
from memdesk.ui.desk.text import elide, one_line, tooltip_text

Index = QModelIndex | QPersistentModelIndex
DISPLAY = Qt.ItemDataRole.DisplayRole
SORT_ROLE = Qt.ItemDataRole.UserRole + 1

CHANGE_COLOURS = {
    ChangeType.ADDED: QColor(214, 240, 214),
    ChangeType.REMOVED: QColor(245, 214, 214),
    ChangeType.STRENGTHENED: QColor(214, 228, 247),
    ChangeType.WEAKENED: QColor(250, 233, 207),
}
HEALTH_COLOURS = {
    "healthy": QColor(46, 160, 67),
    "suspicious": QColor(219, 137, 0),
    "dangerous": QColor(207, 34, 46),
}
SOURCE_PALETTE = [QColor(c) for c in (
    "#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2", "#eeca3b", "#9d755d",
)]


def source_colour(name: str, names: Sequence[str]) -> QColor:
    """A stable colour per source: the well-known four first, others by position."""
    order = ["context", "search", "database", "model_prior"]
    order += sorted(n for n in names if n not in order)
    i = order.index(name) if name in order else len(order)
    return SOURCE_PALETTE[i % len(SOURCE_PALETTE)]


class CandidateDeltaModel(RowsTableModel[CandidateDelta]):
    """Candidate deltas of one diff, coloured by change type."""

    HEADERS = ("Change", "Source", "Δ weighted", "Before", "After", "Text")


    def row(self, r: int) -> CandidateDelta:
        return self._rows[r]

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid():
            return None
        d = self._rows[index.row()]
        col = index.column()
        if role in (DISPLAY, SORT_ROLE):
            values: tuple[Any, ...] = (d.change_type.value, d.source, d.delta,
                                       d.before_score, d.after_score, d.text)
            v = values[col]
            if role == SORT_ROLE:
                return abs(v) if col == 2 else v
            if col == 2:
                return f"{v:+.3f}"
            if col in (3, 4):
                return f"{v:.3f}"
            if col == 5:
                return elide(v, 200)
            return one_line(v) if col == 1 else v
        if role == Qt.ItemDataRole.BackgroundRole:
            c = CHANGE_COLOURS.get(d.change_type)
            return QBrush(c) if c is not None else None
        if role == Qt.ItemDataRole.ForegroundRole and d.change_type is ChangeType.UNCHANGED:
            return QBrush(QColor(120, 120, 120))
        if role == Qt.ItemDataRole.ToolTipRole and col == 5:
            return tooltip_text(d.text)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (2, 3, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class QueueModel(RowsTableModel[DiffRecord]):
    """The drift review queue: flagged diffs, newest first."""

    HEADERS = ("When", "Goal", "Health", "Risk", "Cause", "Recommended", "Review", "Note")


    def record(self, r: int) -> DiffRecord:
        return self._rows[r]

    def row_of(self, diff_id: int) -> int | None:
        for i, r in enumerate(self._rows):
            if r.id == diff_id:
                return i
        return None

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid():
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == DISPLAY:
            return (
                r.created_at.strftime("%Y-%m-%d %H:%M"), elide(r.goal, 60), r.status,
                f"{r.risk:.3f}", r.primary_cause or "-", r.action, r.review,
                elide(r.review_note or "", 80),
            )[col]
        if role == Qt.ItemDataRole.ForegroundRole and col == 2:
            c = HEALTH_COLOURS.get(r.status)
            return QBrush(c) if c is not None else None
        if role == Qt.ItemDataRole.ToolTipRole and col in (1, 7):
            return tooltip_text(r.goal if col == 1 else (r.review_note or ""))
        return None


class SourcesModel(RowsTableModel[SourceConfig]):
    """The persisted source configuration.

    An edit calls ``commit(name, field, value)``, which saves it (audited) and returns the
    new configuration, or None when it was refused (the caller has said why).
    """

    # Short enough for the drift review's side pane at 1280 px; the tooltips say it whole.
    HEADERS = ("Source", "Type", "Weight", "On", "Top-k", "Min conf.", "Effective")
    HEADER_TIPS = ("", "", "The stored weight (double-click to edit)",
                   "Enabled: the source takes part in composing the memory set",
                   "How many items the source contributes at most",
                   "Minimum confidence: items below it are left out",
                   "The weight used when composing (normalised when that is on)")
    FIELDS = (None, None, "weight", "enabled", "top_k", "confidence_threshold", None)

    def __init__(
        self,
        commit: Callable[[str, str, Any], tuple[Sequence[SourceConfig], dict[str, float]] | None],
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self._rows: list[SourceConfig] = []
        self._effective: dict[str, float] = {}
        self._commit = commit

    def set_rows(self, rows: Sequence[SourceConfig],
                 effective: dict[str, float] | None = None) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._effective = dict(effective or {})
        self.endResetModel()

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        f = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == 3:
            f |= Qt.ItemFlag.ItemIsUserCheckable
        elif self.FIELDS[index.column()] is not None:
            f |= Qt.ItemFlag.ItemIsEditable
        return f

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid():
            return None
        s = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.CheckStateRole and col == 3:
            return Qt.CheckState.Checked if s.enabled else Qt.CheckState.Unchecked
        if role == DISPLAY:
            eff = self._effective.get(s.name)
            return (one_line(s.name), s.source_type, f"{s.weight:.3f}", None, str(s.top_k),
                    f"{s.confidence_threshold:.2f}",
                    "off" if eff is None else f"{eff:.3f}")[col]
        if role == Qt.ItemDataRole.ToolTipRole and col in (0, 1):
            return tooltip_text(f"{s.name}: a {s.source_type} source")
        if role == Qt.ItemDataRole.EditRole:
            return (s.name, s.source_type, s.weight, s.enabled, s.top_k,
                    s.confidence_threshold, None)[col]
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid():
            return False
        field = self.FIELDS[index.column()]
        if field is None:
            return False
        name = self._rows[index.row()].name
        if role == Qt.ItemDataRole.CheckStateRole and field == "enabled":
            value = Qt.CheckState(value) == Qt.CheckState.Checked
        elif role != Qt.ItemDataRole.EditRole:
            return False
        elif field == "top_k":
            try:
                value = int(str(value).strip())
            except ValueError:
                value = str(value)  # let the core reject it with its message
        elif field in ("weight", "confidence_threshold"):
            try:
                value = float(str(value).strip())
            except ValueError:
                value = str(value)
        result = self._commit(name, field, value)
        if result is None:
            return False
        self._rows, self._effective = list(result[0]), dict(result[1])
        self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1,
                                                           len(self.HEADERS) - 1))
        return True
