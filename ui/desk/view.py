"""The view contract: what the main window relies on, and a base class that keeps it.

A view is a widget built for one open store from a ``Desk`` (store, settings, action
pipeline).  The window calls only what ``View`` declares:

- ``refresh_on``: the ``Changed`` kinds the view shows; the desk calls
  ``refresh(changes)`` only when a broadcast touches one of them;
- ``view_actions()``: the view's commands for the window's menu (and command palette);
- ``wait_idle(msecs)``: wait for the view's background reads (closing, tests).

``DeskView`` implements it: a refresh while the view is hidden only marks it stale,
and it reloads when shown, so hidden views cost nothing.  Adding a view: subclass
``DeskView``, set ``refresh_on``, implement ``reload``, run every action through
``self.desk.run(Op(...))``, and register one line in ``memdesk.ui.desk.views``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

from PySide6.QtGui import QAction, QShowEvent
from PySide6.QtWidgets import QWidget

from memdesk.core.store.records import Changed, Changes
from memdesk.ui.desk.actions import Desk, Op


@runtime_checkable
class View(Protocol):
    """What the main window needs from a view."""

    refresh_on: Changed

    def refresh(self, changes: Changes) -> None: ...

    def view_actions(self) -> list[QAction]: ...

    def wait_idle(self, msecs: int = 5000) -> None: ...


class DeskView(QWidget):
    """Base of the sidebar's views: the View contract, with reload-when-shown."""

    refresh_on: ClassVar[Changed] = Changed.NOTHING

    def __init__(self, desk: Desk, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.desk = desk
        self.store = desk.store
        self._stale = False
        desk.attach(self)

    def run(self, op: Op[Any]) -> bool:
        """Run one action through the desk's pipeline (False: it failed at once)."""
        return self.desk.run(op)

    def refresh(self, changes: Changes) -> None:
        if self.isVisible():
            self.reload(changes)
        else:
            self._stale = True

    def reload(self, changes: Changes) -> None:
        """Read what ``changes`` affects again (the view is visible)."""

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self.reload(Changes.everything())

    def view_actions(self) -> list[QAction]:
        return []

    def wait_idle(self, msecs: int = 5000) -> None:
        """Wait for this view's background reads; views with none need not override."""
