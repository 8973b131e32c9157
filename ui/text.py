"""Showing untrusted text (memory contents, LLM output) safely.

QLabel guesses rich text; tooltips and message boxes always render rich text.
Everything from a memory or a model goes through these helpers.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QSizePolicy, QWidget


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def tooltip_text(text: str, limit: int = 2000) -> str:
    """Escape for a tooltip (always rich text); long texts are cut."""
    if len(text) > limit:
        text = text[:limit] + "…"
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


def elide(text: str, limit: int = 200) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def error_box(parent: QWidget | None, title: str, message: str) -> QMessageBox:
    """A critical message box showing ``message`` as plain text (not yet shown)."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(message)
    return box


def display_lines(text: str, width: int = 1000) -> str:
    """``text`` with a display line break after every ``width`` characters of a longer
    line, so a huge unbroken line becomes many short blocks (laid out lazily)."""
    out = []
    for line in text.split("\n"):
        out.extend(line[i:i + width] for i in range(0, max(1, len(line)), width))
    return "\n".join(out)


def fluid(label: QLabel) -> QLabel:
    """A wrapping label whose text never sets the layout's minimum width."""
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setMinimumWidth(0)
    return label
