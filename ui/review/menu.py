"""The Review menu and the held count: the poisoning guard's inbox reachable from the
menu bar, and how many agents' writes are waiting, visible from every view.

* **Review menu**: approve, reject and edit the selected held memory, next / previous,
  each with a shortcut (the inbox's own single keys A, R, E, J, K keep working inside
  it).  The actions act on what the operator sees: from another view they first open
  the inbox (nothing is approved unseen).  Undo is Edit → Undo, the desk's one stack.
* **Held count**: "N held for review" in the status bar and "Review inbox (N)" in the
  sidebar, hidden at zero.  It follows the desk's broadcasts (approve, reject, imports)
  and polls every few seconds, because agents write through other processes (MCP
  server, ``memdesk store``) that the desk never hears from.  The count is one lookup in
  the inbox's partial index, so polling costs nothing measurable even at 1M rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QMenu

from memdesk.core.guard.review import Review
from memdesk.ui.desk.ops import LatestTask

if TYPE_CHECKING:
    from memdesk.ui.desk.window import DeskWindow
    from memdesk.ui.review.view import ReviewView

KEY = "review"  # the inbox's key in ui/desk/views.py
POLL_MS = 5000


class ReviewMenu(QObject):
    """Owns the Review menu's actions, the status-bar label and the sidebar badge."""

    def __init__(self, window: DeskWindow, menu: QMenu) -> None:
        super().__init__(window)
        self.window = window
        self.menu = menu
        self.held = 0
        self.label = QLabel("")
        self.label.setToolTip("Agents' writes the poisoning guard holds (Ctrl+7 opens them)")
        self.label.setContentsMargins(10, 0, 10, 0)
        self.label.hide()

        def act(text: str, shortcut: str, name: str) -> QAction:
            a = QAction(text, self)
            a.setShortcut(QKeySequence(shortcut))
            a.triggered.connect(lambda _=False: self.act(name))
            menu.addAction(a)
            return a

        self.approve_action = act("Approve held memory", "Ctrl+Alt+A", "approve")
        self.reject_action = act("Reject held memory", "Ctrl+Alt+R", "reject")
        self.edit_action = act("Edit held memory", "Ctrl+Alt+E", "edit")
        menu.addSeparator()
        self.next_action = act("Next held memory", "Ctrl+Alt+J", "next")
        self.previous_action = act("Previous held memory", "Ctrl+Alt+K", "previous")
        self._set_enabled()

        self._count = LatestTask(self)
        self._count.finished.connect(self.set_held)
        self._count.failed.connect(lambda _exc, _tb: None)  # the next poll tries again
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self.timer.start()

    # -- the count ---------------------------------------------------------------------
    def poll(self) -> None:
        store = self.window.store
        self._count.start(lambda _state: Review(store).held_count())

    def set_held(self, n: int) -> None:
        self.held = int(n)
        self.label.setText(f"{self.held:,} held for review")
        self.label.setVisible(self.held > 0)
        self._set_enabled()
        self.update_badge()

    def update_badge(self) -> None:
        """The sidebar item's title, with the count when something is waiting."""
        from memdesk.ui.desk.views import VIEWS

        title = next(s.title for s in VIEWS if s.key == KEY)
        item = self.window.sidebar_item(KEY)
        if item is not None:
            item.setText(f"{title} ({self.held:,})" if self.held else title)

    def _set_enabled(self) -> None:
        for a in (self.approve_action, self.reject_action, self.edit_action,
                  self.next_action, self.previous_action):
            a.setEnabled(self.held > 0)

    def wait(self, msecs: int = 5000) -> None:
        self._count.wait(msecs)

    def stop(self) -> None:
        self.timer.stop()
        self.wait()

    # -- the actions -------------------------------------------------------------------
    def act(self, name: str) -> None:
        w = self.window
        inbox = w.views.get(KEY)
        if not hasattr(inbox, "approve"):  # the view could not open this store
            w.show_view(KEY)
            return
        if w.stack.currentWidget() is not inbox:
            w.show_view(KEY)  # show first: the operator acts on what they can see
            w.statusBar().showMessage("Review inbox opened: choose an item, then act", 5000)
            return
        view = cast("ReviewView", inbox)  # the inbox: it has ``approve``
        actions: dict[str, Callable[[], object]] = {
            "approve": view.approve, "reject": view.reject, "edit": view.card.start_editing,
            "next": lambda: view.step(1), "previous": lambda: view.step(-1)}
        actions[name]()
