"""The main window fits its screen with its frame.

``resize`` sizes the client area; a window manager then adds a title bar and borders
around it.  Sized to the screen's free room, the window's frame ran 25 px past the
bottom of a 1280×700 screen and the status bar hung off it.  The frame is only known
once the window manager has framed the window (shortly after ``show``), so the window
is fitted again then: the client area is shrunk by the frame's margins and the frame
moved inside the free room.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QRect, QTimer
from PySide6.QtWidgets import QWidget

FRAME_WAIT_S = 2.0  # how long to wait for a window manager to frame the window
TICK_MS = 40


def fitted(frame: QRect, client: QRect, room: QRect) -> QRect | None:
    """Where the client area must go so that its frame fits ``room``; None if it fits."""
    left, top = client.left() - frame.left(), client.top() - frame.top()
    right, bottom = frame.right() - client.right(), frame.bottom() - client.bottom()
    if room.contains(frame):
        return None
    width = min(client.width(), room.width() - left - right)
    height = min(client.height(), room.height() - top - bottom)
    x = min(max(frame.left(), room.left()), room.right() + 1 - (width + left + right))
    y = min(max(frame.top(), room.top()), room.bottom() + 1 - (height + top + bottom))
    return QRect(x + left, y + top, width, height)


class ScreenFit(QObject):
    """Fits ``window`` to its screen's free room now, and once more when its frame is
    known (or after ``FRAME_WAIT_S`` without a window manager)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self._deadline = time.monotonic() + FRAME_WAIT_S
        room = window.screen().availableGeometry()
        window.resize(window.size().boundedTo(room.size()))
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._timer.start()

    def _tick(self) -> None:
        w = self.window
        framed = w.frameGeometry() != w.geometry()
        if not framed and time.monotonic() < self._deadline:
            return
        self._timer.stop()
        self.fit()

    def fit(self) -> None:
        w = self.window
        if w.isMaximized() or w.isFullScreen():  # the window manager placed it
            return
        target = fitted(w.frameGeometry(), w.geometry(), w.screen().availableGeometry())
        if target is not None:
            w.resize(target.size())
            w.move(target.topLeft() - (w.geometry().topLeft() - w.pos()))
