"""Showing untrusted text (memory contents, LLM output) safely.

QLabel guesses rich text; tooltips and message boxes always render rich text.
Everything from a memory or a model goes through these helpers.
"""

from __future__ import annotations

import html
import unicodedata

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QMessageBox, QSizePolicy, QWidget

from memdesk.core.guard.reveal import hidden_positions


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
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(line[i:i + width] for i in range(0, max(1, len(line)), width))
    return "\n".join(out)


def fluid(label: QLabel) -> QLabel:
    """A wrapping label whose text never sets the layout's minimum width."""
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setMinimumWidth(0)
    return label


# -- invisible and direction-control characters ----------------------------------------
# Isolation (FSI … PDI) keeps a right-to-left or override-laden value from reordering
# the app's own words around it: "risk 0.399" must not read "993.0 ksir" because a
# snapshot label carried U+202E.  Revealing makes the characters themselves visible
# where the operator inspects a memory ("txt.exe" is shown with ⟨U+202E⟩ in it).
# Which invisible characters are legitimate (an emoji family's joiners, a Persian
# non-joiner, balanced isolates in Hebrew or Arabic text) is the guard's judgement
# (``hidden_positions``): the desk shows exactly what the guard counts as hidden, plus
# the control characters and line/paragraph separators that break the desk's lines.
FSI, PDI = "\u2068", "\u2069"


def _breaks_layout(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return (cat == "Cc" and ch not in "\n\t") or cat in ("Zl", "Zp")


def _shown_at(text: str) -> set[int]:
    at = set(hidden_positions(text))
    at.update(i for i, ch in enumerate(text) if _breaks_layout(ch))
    return at


def reveal(text: str) -> str:
    """``text`` with every hiding or layout-breaking character shown as ⟨U+XXXX⟩ (line
    breaks and tabs kept; what real writing needs kept, as the guard judges it)."""
    if text.isascii() and text.isprintable():
        return text
    at = _shown_at(text)
    if not at:
        return text
    return "".join(f"⟨U+{ord(ch):04X}⟩" if i in at else ch for i, ch in enumerate(text))


def hidden_count(text: str) -> int:
    """How many characters :func:`reveal` would make visible."""
    if text.isascii() and text.isprintable():
        return 0
    return len(_shown_at(text))


def one_line(text: str) -> str:
    """``text`` revealed on one line: line breaks and tabs shown as ⟨U+000A⟩ and
    ⟨U+0009⟩ too, for a list or a combo box entry that must stay one row."""
    return reveal(text).replace("\n", "⟨U+000A⟩").replace("\t", "⟨U+0009⟩")


def list_entry(text: str, width: int = 40) -> str:
    """A value from the store as one short, visible row of a list or combo box: cut in
    the middle first (so no ⟨U+XXXX⟩ is cut in half), then revealed on one line."""
    return one_line(elide_middle(text, width))


def isolate(text: str) -> str:
    """User text for interpolation into the app's own line: controls revealed (line
    breaks and tabs too, so the line stays one line), then wrapped in first-strong
    isolates so genuine right-to-left text stays right."""
    return FSI + one_line(text) + PDI


def count_of(n: int, one: str, many: str) -> str:
    """"1 memory", "2 memories" (undo labels and summaries read as English)."""
    return f"{n:,} {one if n == 1 else many}"


def elide_middle(text: str, limit: int = 60) -> str:
    """Cut the middle of a long path or id, so its end (the file name) stays whole."""
    if len(text) <= limit:
        return text
    for sep in ("/", "\\"):
        cut = text.rfind(sep)
        name = text[cut:]
        if cut > 0 and len(name) + 8 <= limit:  # the whole name, and some of the head
            return text[: limit - 1 - len(name)] + "…" + name
    head = (limit - 1) // 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


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
        self.full_text = text
        self.setToolTip(tooltip_text(text))
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        shown = self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideMiddle,
                                              max(0, self.width() - 4))
        super().setText(shown)
