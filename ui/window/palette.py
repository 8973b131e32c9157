"""Keyboard-first helpers: the command palette (Ctrl+K) and Help → Keyboard shortcuts.

Both list the window's QActions (the single source of truth for names and shortcuts),
so a new action shows up in both without being registered twice.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memdesk.ui.desk.selection import select_only

ActionRole = Qt.ItemDataRole.UserRole


def _label(action: QAction) -> str:
    return action.text().replace("&", "").rstrip("…").strip() + ("…" if "…" in action.text()
                                                                 else "")


def action_model(actions: Iterable[QAction], parent: QWidget) -> QStandardItemModel:
    """Two columns (command, shortcut); the QAction rides along in ``ActionRole``."""
    model = QStandardItemModel(0, 2, parent)
    model.setHorizontalHeaderLabels(["Command", "Shortcut"])
    seen: set[int] = set()
    for a in actions:
        if a.isSeparator() or a.menu() is not None or not a.text() or id(a) in seen:
            continue
        seen.add(id(a))
        name = QStandardItem(_label(a))
        name.setData(a, ActionRole)
        keys = QStandardItem(
            a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        )
        for it in (name, keys):
            it.setEditable(False)
        model.appendRow([name, keys])
    return model


def _table(model: QSortFilterProxyModel | QStandardItemModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.verticalHeader().hide()
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    view.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
    return view


class CommandPalette(QDialog):
    """Type to filter the window's commands; Enter runs the highlighted one."""

    def __init__(self, actions: Iterable[QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Command palette")
        self.resize(520, 380)
        self.source = action_model(actions, self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.source)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterKeyColumn(0)
        self.query = QLineEdit()
        self.query.setPlaceholderText("Type a command…")
        self.list = _table(self.proxy)
        lay = QVBoxLayout(self)
        lay.addWidget(self.query)
        lay.addWidget(self.list)
        self.query.textChanged.connect(self._filter)
        self.query.returnPressed.connect(self.run_current)
        self.list.activated.connect(lambda _i: self.run_current())
        self._filter("")

    def _filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        if self.proxy.rowCount():
            select_only(self.list, 0)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Up/Down move through the list while typing continues in the query box.
        if event.key() in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self.proxy.rowCount():
            row = self.list.currentIndex().row()
            row += 1 if event.key() == Qt.Key.Key_Down else -1
            select_only(self.list, max(0, min(self.proxy.rowCount() - 1, row)))
            return
        super().keyPressEvent(event)

    def current_action(self) -> QAction | None:
        idx = self.list.currentIndex()
        if not idx.isValid():
            return None
        action: QAction | None = self.proxy.index(idx.row(), 0).data(ActionRole)
        return action

    def run_current(self) -> None:
        action = self.current_action()
        self.accept()
        if action is not None and action.isEnabled():
            action.trigger()


class ShortcutsDialog(QDialog):
    """Help → Keyboard shortcuts: every command and its keys."""

    def __init__(self, actions: Iterable[QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.resize(480, 520)
        self.model = action_model(actions, self)
        lay = QVBoxLayout(self)
        lay.addWidget(_table(self.model))
