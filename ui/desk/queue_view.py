"""The plumbing every review queue shares (the contradictions and duplicates views): a
background scan that runs only while the view is shown and again after each change,
the count line that says "Scanning…" meanwhile, the row to come back to after an
action, and the queue's moving keys.

A subclass builds its widgets, implements ``scan_job`` (the read to run off the GUI
thread), ``_scanned`` (show its result), ``_select`` and ``current_row``, and routes
its key presses through ``queue_key`` first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QShowEvent

from memdesk.core.store.records import Changes
from memdesk.ui.desk.actions import Desk
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.text import fluid, plain_label
from memdesk.ui.desk.view import DeskView

_MODIFIERS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier


class QueueView(DeskView):
    """A queue reviewed one entry at a time with the keyboard (or buttons)."""

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._stale = True  # the first show scans
        self._resume_row = 0  # the row to select after the next scan
        self._scan = LatestTask(self)
        self._scan.finished.connect(self._scanned)
        self._scan.failed.connect(lambda exc, tb: self.scan_failed(exc))
        self.count = fluid(plain_label("Scanning…"))  # wraps: never widens its pane

    # -- what a queue says ------------------------------------------------------------
    def scan_job(self) -> Callable[[Any], Any]:
        """The read that lists the queue, run off the GUI thread (``fn(state)``)."""
        raise NotImplementedError

    def _scanned(self, result: Any) -> None:
        raise NotImplementedError

    def _select(self, row: int) -> None:
        raise NotImplementedError

    def current_row(self) -> int:
        raise NotImplementedError

    def scan_failed(self, exc: object) -> None:
        self.count.setText(f"Scan failed: {exc}")

    # -- scanning ---------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)  # rescans when stale
        self.setFocus()

    def reload(self, changes: Changes) -> None:
        self.rescan()

    def wait_idle(self, msecs: int = 5000) -> None:
        self._scan.wait(msecs)

    def rescan(self) -> None:
        self._stale = False
        self.count.setText("Scanning…")
        self._scan.start(self.scan_job())

    # -- keys -------------------------------------------------------------------------
    def queue_key(self, event: QKeyEvent) -> bool:
        """Handle a key every queue shares (move, rescan, undo); False: not one of them.
        Keys with Ctrl or Alt are the window's shortcuts and are never taken."""
        if event.modifiers() & _MODIFIERS:
            return False
        key = event.key()
        if key in (Qt.Key.Key_Down, Qt.Key.Key_J):
            self._select(self.current_row() + 1)
        elif key in (Qt.Key.Key_Up, Qt.Key.Key_K):
            self._select(self.current_row() - 1)
        elif key == Qt.Key.Key_Home:
            self._select(0)
        elif key == Qt.Key.Key_End:  # the views' _select keeps the row within the queue
            self._select(2**31 - 1)
        elif key in (Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
            step = 10 if key == Qt.Key.Key_PageDown else -10
            self._select(max(0, self.current_row() + step))
        elif key in (Qt.Key.Key_R, Qt.Key.Key_F5):
            self.rescan()
        elif key == Qt.Key.Key_U:
            self.desk.undo_stack.undo()  # the same as Edit → Undo: one history
        else:
            return False
        return True
