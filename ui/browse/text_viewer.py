"""The detail pane's "Show all": a long memory text, read-only, whole.

Display lines are at most ``VIEW_LINE_CHARS`` long, so Qt lays out only what is on
screen (a text without spaces never freezes the GUI thread); Copy copies the stored
text exactly.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from memdesk.ui.desk.text import (
    display_lines,
    hidden_count,
    plain_label,
    reveal,
    reveal_composed,
)

VIEW_LINE_CHARS = 1000  # the viewer's longest display line

__all__ = ["VIEW_LINE_CHARS", "TextViewer"]


class TextViewer(QDialog):
    """Read-only view of a whole long text (display lines broken, hidden characters
    shown as ⟨U+XXXX⟩, the text unchanged; Copy copies the stored text exactly)."""

    def __init__(self, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(reveal_composed(title).replace("\n", " "))  # plain text
        self.resize(900, 640)
        self.original = text
        self.view = QPlainTextEdit()
        self.view.setReadOnly(True)
        self.view.setPlainText(display_lines(reveal(text), VIEW_LINE_CHARS))
        hidden = hidden_count(text)
        shown = (f" {hidden:,} hidden or control characters are shown as ⟨U+XXXX⟩."
                 if hidden else "")
        note = plain_label(f"{len(text):,} characters. Lines longer than "
                           f"{VIEW_LINE_CHARS:,} characters are broken for display only."
                           f"{shown}")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy text", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QApplication.clipboard().setText(self.original))
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(note)
        lay.addWidget(self.view, 1)
        lay.addWidget(buttons)
