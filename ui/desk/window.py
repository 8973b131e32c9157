"""The main window as the rooms see it.

A room's menu (the Review menu, File → Import… and Export…) or view (the retrieval
inspector's "show in Browse") needs a few things of the window it sits in: the desk,
the open store, the views, showing one of them.  It takes this interface, never the
window itself (``memdesk.ui.window.main_window.MainWindow``, the one implementation), so
the window imports the rooms and no room imports the window back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMainWindow, QStackedWidget

if TYPE_CHECKING:
    from PySide6.QtGui import QStandardItem

    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.ui.desk.actions import Desk
    from memdesk.ui.desk.lazy_views import LazyViews


class DeskWindow(QMainWindow):
    """What the rooms may use of the main window (which sets these and overrides these)."""

    desk: Desk
    views: LazyViews  # the views by key, each built on first use
    stack: QStackedWidget  # the view shown now is its current widget

    @property
    def store(self) -> MemoryStore:
        """The open store."""
        raise NotImplementedError

    def show_view(self, key: str) -> None:
        """Select view ``key`` in the sidebar (and so show it)."""
        raise NotImplementedError

    def sidebar_item(self, key: str) -> QStandardItem | None:
        """The sidebar's top-level item of view ``key`` (None if it has none)."""
        raise NotImplementedError

    def confirm_leave(self, question: str) -> bool:
        """Whether the open store may be left (another store, a restore, quitting): asks
        about an edit typed and not applied; False when the operator cancels."""
        raise NotImplementedError
