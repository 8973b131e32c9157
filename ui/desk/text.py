"""The desk's side of showing store text: the one way text from a memory, a user id,
an agent or a model reaches the screen.

What a value looks like (revealed, on one line, isolated, cut) is the rule of
``memdesk.core.guard.visible``, re-exported here so a view imports one module; this
module adds what only Qt needs: never HTML.  QLabel guesses rich text from its content
(``<b>`` in a memory would turn bold), tooltips and message boxes always render rich
text.  So labels are plain text (:func:`plain_label`, :class:`ElidedLabel`), message
boxes too (:func:`error_box`), and a tooltip is escaped and revealed
(:func:`tooltip_text`).  Item views draw their DisplayRole as plain text already; their
cells take :func:`elide`, :func:`one_line` or :func:`isolate`.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QMessageBox, QSizePolicy, QWidget

from memdesk.core.guard.visible import (
    ELLIPSIS,
    FSI,
    PDI,
    display_lines,
    elide,
    elide_middle,
    hidden_count,
    isolate,
    list_entry,
    one_line,
    reveal,
    reveal_composed,
)

__all__ = [
    "ELLIPSIS", "FSI", "PDI", "ElidedLabel", "count_of", "display_lines", "elide",
    "elide_middle", "error_box", "fluid", "hidden_count", "isolate", "list_entry",
    "one_line", "plain_label", "reveal", "reveal_composed", "tooltip_text",
]


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def tooltip_text(text: str, limit: int = 2000) -> str:
    """A tooltip (Qt renders it as rich text): cut to ``limit`` characters, revealed
    (line breaks kept), then escaped, so a tag in a memory is shown, never obeyed."""
    if len(text) > limit:
        text = text[:limit] + ELLIPSIS
    return "<p style='white-space:pre-wrap'>" + html.escape(reveal_composed(text)) + "</p>"


def error_box(parent: QWidget | None, title: str, message: str) -> QMessageBox:
    """A critical message box showing ``message`` as plain text, revealed (an error
    may quote a stored value), not yet shown."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(reveal_composed(title).replace("\n", " "))
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(reveal_composed(message))
    return box


def fluid(label: QLabel) -> QLabel:
    """A wrapping label whose text never sets the layout's minimum width."""
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setMinimumWidth(0)
    return label


def count_of(n: int, one: str, many: str) -> str:
    """"1 memory", "2 memories" (undo labels and summaries read as English)."""
    return f"{n:,} {one if n == 1 else many}"


class ElidedLabel(QLabel):
    """A one-line plain-text label that elides in the middle to its width (the whole
    text stays in ``full_text`` and the tooltip)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(40)
        self.full_text = ""

    def setText(self, text: str) -> None:
        self.full_text = reveal_composed(text).replace("\n", " ")
        self.setToolTip(tooltip_text(text))
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        shown = self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideMiddle,
                                              max(0, self.width() - 4))
        super().setText(shown)
