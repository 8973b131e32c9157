"""The main window: a sidebar of views, a stack of them, and a status bar that names
the open store and its row counts.  Views come from ``memdesk.ui.views.VIEWS``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from memdesk.core.records import Changes
from memdesk.core.store import MemoryStore

from .ops import LatestTask
from .views import VIEWS


class MainWindow(QMainWindow):
    """Owns the open store; broadcasts ``changed`` after every operation."""

    changed = Signal(object)  # memdesk.core.records.Changes

    def __init__(self, store: MemoryStore) -> None:
        super().__init__()
        self.store = store
        self.setWindowTitle(f"memdesk — {store.url}")
        self.resize(1280, 800)

        self.sidebar = QListWidget()
        self.sidebar.setMaximumWidth(220)
        self.stack = QStackedWidget()
        self.views: dict[str, QWidget] = {}
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.sidebar)
        split.addWidget(self.stack)
        split.setStretchFactor(1, 1)
        self.setCentralWidget(split)

        view_menu = self.menuBar().addMenu("&View")
        for spec in VIEWS:
            widget = spec.factory(store, self)
            self.views[spec.key] = widget
            self.stack.addWidget(widget)
            item = QListWidgetItem(spec.title)
            item.setData(Qt.ItemDataRole.UserRole, spec.key)
            self.sidebar.addItem(item)
            act = QAction(spec.title, self)
            act.setShortcut(QKeySequence(spec.shortcut))
            act.triggered.connect(lambda _=False, k=spec.key: self.show_view(k))
            view_menu.addAction(act)
        self.sidebar.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.sidebar.setCurrentRow(0)

        self.store_label = QLabel(store.url)
        self.store_label.setTextFormat(Qt.TextFormat.PlainText)
        self.counts_label = QLabel("")
        self.statusBar().addWidget(self.store_label, 1)
        self.statusBar().addPermanentWidget(self.counts_label)
        self._counts = LatestTask(self)
        self._counts.finished.connect(self._show_counts)
        self.changed.connect(self._on_changed)
        self.refresh_counts()
        if store.report and store.report.message:
            self.statusBar().showMessage(store.report.message, 15000)

    def show_view(self, key: str) -> None:
        keys = list(self.views)
        self.sidebar.setCurrentRow(keys.index(key))

    def refresh_counts(self) -> None:
        self._counts.start(lambda state: self.store.counts())

    def _show_counts(self, counts: dict[str, int]) -> None:
        self.counts_label.setText(
            f"active {counts['active']:,} · superseded {counts['superseded']:,} · "
            f"total {counts['total']:,}"
        )

    def _on_changed(self, changes: Changes) -> None:
        self.refresh_counts()
        for view in self.views.values():
            refresh = getattr(view, "refresh", None)
            if refresh is not None:
                refresh(changes)
