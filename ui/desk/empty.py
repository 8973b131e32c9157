"""A sentence over an empty table, so "nothing here" never looks like a broken view.

The note sits on the table's viewport, follows its size, and is shown by the view that
knows why the table is empty (a search with no match, a queue with no jobs yet)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QLabel

from memdesk.ui.desk.text import plain_label


class EmptyNote(QObject):
    def __init__(self, view: QAbstractItemView, text: str, name: str) -> None:
        super().__init__(view)
        self.viewport = view.viewport()
        self.label: QLabel = plain_label(text, self.viewport)
        self.label.setObjectName(name)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setWordWrap(True)
        self.label.setStyleSheet("color: palette(placeholder-text); padding: 24px")
        self.label.hide()
        self.viewport.installEventFilter(self)

    def set_visible(self, on: bool, text: str | None = None) -> None:
        if text is not None:
            self.label.setText(text)
        self._place()
        self.label.setVisible(on)

    def is_shown(self) -> bool:
        return not self.label.isHidden()

    def text(self) -> str:
        return self.label.text()

    def _place(self) -> None:
        w, h = self.viewport.width(), self.viewport.height()
        self.label.setGeometry(0, 0, w, max(100, h // 2))

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.viewport and event.type() == QEvent.Type.Resize:
            self._place()
        return False
