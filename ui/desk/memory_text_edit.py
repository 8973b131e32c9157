"""The box a memory's text is typed or pasted into (the detail pane, "New memory…").

Two things a plain ``QPlainTextEdit`` gets wrong for memory texts:

- the store refuses a text over ``MAX_TEXT_CHARS``; checked only on Apply, a paste of
  200,000 characters was laid out first and the window froze for 15–19 s.  A paste or
  a drop that would make the text longer than the limit is refused here, with the
  reason (``refused``), and the box keeps what it held;
- Qt's default wrapping (at a word boundary, else anywhere) looks for a word boundary
  again and again inside a word longer than the line: a 100,000-character text without
  a space took 5 s to lay out.  A text with such a run is wrapped anywhere instead
  (0.2 s); ordinary prose keeps wrapping at word boundaries.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QMimeData, Signal
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from memdesk.core.taxonomy import MAX_TEXT_CHARS

# A run of this many characters without white space is wider than any text box.
_LONG_RUN = re.compile(r"\S{300}")


class MemoryTextEdit(QPlainTextEdit):
    """A plain-text box that holds at most ``limit`` characters and stays responsive."""

    refused = Signal(str)  # why a paste or drop was not taken (plain text)

    def __init__(self, parent: QWidget | None = None, limit: int = MAX_TEXT_CHARS) -> None:
        super().__init__(parent)
        self.limit = limit

    def setPlainText(self, text: str) -> None:
        self.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere if _LONG_RUN.search(text)
                             else QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        super().setPlainText(text)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return source.hasText() and super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        text = source.text()
        replaced = len(self.textCursor().selectedText())
        after = len(self.toPlainText()) - replaced + len(text)
        if after > self.limit:
            self.refused.emit(
                f"Not pasted: the text would be {after:,} characters, and a memory holds "
                f"at most {self.limit:,}. The box keeps what it had; the clipboard still "
                "holds the whole text.")
            return
        if _LONG_RUN.search(text):  # before the insert: its layout is what is slow
            self.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        super().insertFromMimeData(source)
