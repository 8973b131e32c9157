"""Showing untrusted text (memory contents, LLM output) safely.

QLabel guesses rich text; tooltips and message boxes always render rich text.
Everything from a memory or a model goes through these helpers.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget


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
