"""The browser's table model: a filtered, sorted window over the memories table.

Like qutebrowser's SQL completion models it pages with ``canFetchMore``/``fetchMore``:
only the rows scrolled into view (plus a page) are ever loaded, so a 1,000,000-row
store opens instantly.  Pages come from core.browse's keyset queries, which cost the
same at any depth.  A new filter or sort runs its first page off the GUI thread
(LatestTask: typing fast cancels stale queries) and the old rows stay until it
arrives; the matching-row count runs separately in the background, since count(*)
over a broad filter can take longer than the page the operator is waiting for.

Like Anki's browser model, rows are not thrown away on every change: ``refresh``
re-reads just the changed memories and patches them in place (a row edited out of
the current filter stays visible, marked by its status, until the next search).

An episode (a conversation turn kept as said) shows its speaker before its text and
who said it when in the text's tooltip: its page's episodes are read with the page
(one indexed query), so ``data()`` never touches the database.

Private state: ``_rows`` (loaded BrowseRows), ``_pos`` (id -> row number), ``_cursor``
(where the next page starts; None when everything is loaded), ``_generation``
(bumped per query so late results of an older query are dropped), ``_episodes``
(episode id -> EpisodeInfo, for the loaded rows that are episodes).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QGuiApplication, QPalette

from memdesk.core.errors import MemdeskError
from memdesk.core.store.browse import BrowseRow, Cursor, fetch_page, rows_by_id
from memdesk.core.store.episodes import EPISODE_TYPE, EpisodeInfo, Episodes
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.records import Changes
from memdesk.core.taxonomy import LOW_CONFIDENCE
from memdesk.ui.desk.delegates import LowRole, ScoreRole
from memdesk.ui.desk.episode_text import episode_tip, name_text
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.text import elide, one_line, reveal, tooltip_text


@cache
def _archived_font() -> QFont:
    """Italic: an archived row (made on first use, once the application exists)."""
    font = QFont()
    font.setItalic(True)
    return font

IdRole = Qt.ItemDataRole.UserRole
Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Column:
    key: str  # BrowseRow attribute and core.query.SORTABLE key
    title: str
    width: int  # default width in characters


COLUMNS: tuple[Column, ...] = (
    Column("text", "Text", 44),
    Column("type", "Type", 10),
    Column("layer", "Layer", 10),
    Column("topic", "Topic", 9),
    Column("importance", "Importance", 11),
    Column("confidence", "Confidence", 11),
    Column("user_id", "User", 8),
    Column("source_session", "Session", 20),  # "carol-20261031-3" and a margin
    Column("created_at", "Created", 16),
    Column("last_accessed", "Last accessed", 16),
    Column("access_count", "Accesses", 8),
    Column("status", "Status", 10),
)
COLUMN_KEYS = tuple(c.key for c in COLUMNS)
_SCORE = frozenset({"importance", "confidence"})
_UNTRUSTED = frozenset({"text", "topic", "user_id", "source_session"})  # memory-sourced


def episodes_of(store: MemoryStore, rows: list[BrowseRow]) -> dict[str, EpisodeInfo]:
    """The speaker and times of the episodes among ``rows`` (no query when there are none)."""
    ids = [r.id for r in rows if r.type == EPISODE_TYPE]
    return Episodes(store).infos(ids) if ids else {}


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, Status):
        return value.value
    return str(value)


class BrowserModel(QAbstractTableModel):
    """Lazily paged memories; see the module docstring."""

    loaded = Signal()  # the first page of a new query is in
    countChanged = Signal(object)  # int: rows matching the current filter
    failed = Signal(str)  # a message fit for the status bar

    PAGE = 200

    def __init__(self, store: MemoryStore, low_confidence: float = LOW_CONFIDENCE,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self.store = store
        self.low_confidence = low_confidence
        self.filter = MemoryFilter()
        self.order_by = "created_at"
        self.descending = True
        self.total: int | None = None
        self.loading = False
        self._rows: list[BrowseRow] = []
        self._pos: dict[str, int] = {}
        self._cursor: Cursor | None = None
        self._generation = 0
        self._episodes: dict[str, EpisodeInfo] = {}
        self._pages = LatestTask(self)
        self._pages.finished.connect(self._on_first_page)
        self._pages.failed.connect(lambda exc, _tb: self._on_failed(exc))
        self._pending_count: tuple[int, MemoryStore, MemoryFilter] | None = None
        self._counter = LatestTask(self)
        self._counter.finished.connect(self._on_count)
        self._counter.failed.connect(lambda exc, _tb: None)  # the count is advisory

    # -- queries --------------------------------------------------------------
    def set_query(self, flt: MemoryFilter | None = None, order_by: str | None = None,
                  descending: bool | None = None) -> None:
        """Run a new filter/sort: first page and count off the GUI thread."""
        if flt is not None:
            self.filter = flt
        if order_by is not None:
            self.order_by = order_by
        if descending is not None:
            self.descending = descending
        self._generation += 1
        gen, store = self._generation, self.store
        flt_, key, desc, page = self.filter, self.order_by, self.descending, self.PAGE
        self.loading = True
        self.total = None

        def first_page(state: Any) -> tuple[int, list[BrowseRow], Cursor | None,
                                             dict[str, EpisodeInfo]]:
            rows, cursor = fetch_page(store, flt_, order_by=key, descending=desc, limit=page)
            return gen, rows, cursor, episodes_of(store, rows)

        self._pages.start(first_page)
        # The count starts once the first page is in: run together, the two queries
        # compete for the same cores and the page (what the operator waits for) slows.
        self._pending_count = (gen, store, flt_)

    def wait(self, msecs: int = 10_000) -> bool:
        """Block until background queries finish (tests, benchmarks, shutdown)."""
        return self._pages.wait(msecs) and self._counter.wait(msecs)

    def _on_first_page(self, result: tuple[int, list[BrowseRow], Cursor | None,
                                           dict[str, EpisodeInfo]]) -> None:
        gen, rows, cursor, episodes = result
        if gen != self._generation:
            return
        self.beginResetModel()
        self._rows = list(rows)
        self._pos = {r.id: i for i, r in enumerate(self._rows)}
        self._cursor = cursor
        self._episodes = dict(episodes)
        self.loading = False
        self.endResetModel()
        self.loaded.emit()
        pending, self._pending_count = self._pending_count, None
        if pending is not None and pending[0] == gen:
            _gen, store, flt = pending
            self._counter.start(lambda state: (_gen, store.count(flt)))

    def _on_count(self, result: tuple[int, int]) -> None:
        gen, n = result
        if gen == self._generation:
            self.total = n
            self.countChanged.emit(n)

    def _on_failed(self, exc: object) -> None:
        self.loading = False
        msg = str(exc) if isinstance(exc, MemdeskError) else f"Query failed: {exc}"
        self.failed.emit(msg)

    # -- lazy paging ----------------------------------------------------------
    @property
    def loaded_count(self) -> int:
        return len(self._rows)

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self.loading and self._cursor is not None

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        try:
            rows, cursor = fetch_page(self.store, self.filter, order_by=self.order_by,
                                      descending=self.descending, after=self._cursor,
                                      limit=self.PAGE)
            episodes = episodes_of(self.store, rows)
        except Exception as exc:  # a locked or vanished store: say so, stop paging
            self._cursor = None
            self._on_failed(exc)
            return
        self._cursor = cursor
        rows = [r for r in rows if r.id not in self._pos]  # rows edited into a later page
        if not rows:
            return
        self._episodes.update(episodes)
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        for i, r in enumerate(rows, first):
            self._pos[r.id] = i
        self._rows.extend(rows)
        self.endInsertRows()

    # -- Qt model API -----------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section].title
            if role == Qt.ItemDataRole.ToolTipRole:
                return f"Sort by {COLUMNS[section].title.lower()}"
        elif orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return section + 1
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        row = self._rows[index.row()]
        key = COLUMNS[index.column()].key
        if role == Qt.ItemDataRole.DisplayRole:
            value = getattr(row, key)
            if key in _UNTRUSTED:  # an override must not reverse a cell unmarked
                shown = one_line(elide(value, 300) if key == "text" else _fmt(value))
                episode = self._episodes.get(row.id) if key == "text" else None
                if episode is not None and episode.speaker:  # a turn reads as dialogue
                    return f"{name_text(episode.speaker, '', 24)}: {shown}"
                return shown
            return _fmt(value)
        if role == IdRole:
            return row.id
        if role == Qt.ItemDataRole.ToolTipRole:
            episode = self._episodes.get(row.id) if key == "text" else None
            if episode is not None:
                return tooltip_text(episode_tip(episode, own=True) + "\n\n"
                                    + reveal(row.text))
            if key in _UNTRUSTED and getattr(row, key):
                return tooltip_text(reveal(getattr(row, key)))
            if key == "confidence" and row.confidence < self.low_confidence:
                return tooltip_text(f"Low confidence ({row.confidence:.2f} < "
                                    f"{self.low_confidence:.2f})")
            return None
        if role == ScoreRole and key in _SCORE:
            return float(getattr(row, key))
        if role == LowRole and key == "confidence":
            return row.confidence < self.low_confidence
        if role == Qt.ItemDataRole.FontRole and row.deleted_at is not None:
            # Deleted under a filter that hides deleted rows (until the next query): struck
            # through, so it does not read as one of the list's living memories.
            font = QFont()
            font.setStrikeOut(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and row.status is not Status.ACTIVE:
            return QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.FontRole and row.status is Status.ARCHIVED:
            return _archived_font()  # marked beyond the grey every inactive row has
        if role == Qt.ItemDataRole.TextAlignmentRole and key == "access_count":
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if 0 <= column < len(COLUMNS):
            self.set_query(order_by=COLUMNS[column].key,
                           descending=order == Qt.SortOrder.DescendingOrder)

    # -- rows -------------------------------------------------------------------
    def row_at(self, row: int) -> BrowseRow | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, memory_id: str) -> int | None:
        return self._pos.get(memory_id)

    def refresh(self, changes: Changes | None = None) -> None:
        """Patch changed rows in place (Anki: mark stale, don't rebuild); recount."""
        ids = [i for i in (changes.memory_ids if changes else ()) if i in self._pos]
        if ids:
            fresh = rows_by_id(self.store, ids)
            self._episodes.update(episodes_of(self.store, list(fresh.values())))
            for mid in ids:
                if mid in fresh:
                    r = self._pos[mid]
                    self._rows[r] = fresh[mid]
                    self.dataChanged.emit(self.index(r, 0), self.index(r, len(COLUMNS) - 1))
        gen, store, flt = self._generation, self.store, self.filter
        self._counter.start(lambda state: (gen, store.count(flt)))
