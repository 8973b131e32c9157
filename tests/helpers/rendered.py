"""Every string a widget tree renders, for the checks that store text is shown safely.

Walks a widget and its children: label texts (and whether Qt may read them as rich
text), buttons, group boxes, line and text edits, combo box entries, tab titles, window
titles, tooltips, and every cell (DisplayRole, ToolTipRole) and header of every item
view's model.  A new widget in a view is covered without naming it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from PySide6.QtCore import QAbstractItemModel, QAbstractListModel, QModelIndex
from PySide6.QtGui import Qt  # QtGui's Qt has mightBeRichText
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

MAX_ROWS = 300  # cells read per model (the hostile store's lists are shorter)
_DISPLAY, _TIP = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole


@dataclass(frozen=True)
class Shown:
    """One rendered string: where it is, the text, whether one line is all it may
    take (a cell, an entry, a title), and whether Qt renders it as rich text."""

    where: str
    text: str
    one_line: bool
    rich: bool
    editor: bool = False  # an editable field: it holds the stored value exactly


def _name(w: QWidget) -> str:
    return f"{type(w).__name__}({w.objectName() or hex(id(w))})"


def _columns(model: QAbstractItemModel, parent: QModelIndex) -> int:
    if isinstance(model, QAbstractListModel):  # one column; Qt keeps columnCount private
        return 1
    return model.columnCount(parent)


def _cells(model: QAbstractItemModel, where: str, parent: QModelIndex,
           depth: int = 0) -> Iterator[Shown]:
    rows = min(model.rowCount(parent), MAX_ROWS)
    for r in range(rows):
        for c in range(_columns(model, parent)):
            i = model.index(r, c, parent)
            shown = i.data(_DISPLAY)
            if isinstance(shown, str):
                yield Shown(f"{where}[{r},{c}]", shown, True, False)
            tip = i.data(_TIP)
            if isinstance(tip, str):
                yield Shown(f"{where}[{r},{c}] tooltip", tip, False, Qt.mightBeRichText(tip))
            if c == 0 and depth < 3 and model.rowCount(i) > 0:
                yield from _cells(model, where, i, depth + 1)


def _model(model: QAbstractItemModel, where: str) -> Iterator[Shown]:
    for orientation in (Qt.Orientation.Horizontal, Qt.Orientation.Vertical):
        top = QModelIndex()
        n = _columns(model, top) if orientation == Qt.Orientation.Horizontal else min(
            model.rowCount(top), MAX_ROWS)
        for s in range(n):
            for role in (_DISPLAY, _TIP):
                v = model.headerData(s, orientation, role)
                if isinstance(v, str):
                    yield Shown(f"{where} header {s}", v, role == _DISPLAY,
                                role == _TIP and Qt.mightBeRichText(v))
    yield from _cells(model, where, QModelIndex())


def rendered(root: QWidget) -> Iterator[Shown]:
    """Every string ``root`` and its children show (hidden children too: a view's
    pages and panes are all checked, whichever is on screen)."""
    for w in [root, *root.findChildren(QWidget)]:
        where = _name(w)
        if w.isWindow() and w.windowTitle():
            yield Shown(f"{where} title", w.windowTitle(), True, False)
        if w.toolTip():
            yield Shown(f"{where} tooltip", w.toolTip(), False, Qt.mightBeRichText(w.toolTip()))
        if isinstance(w, QLabel):
            fmt = w.textFormat()
            rich = fmt == Qt.TextFormat.RichText or (
                fmt == Qt.TextFormat.AutoText and Qt.mightBeRichText(w.text()))
            yield Shown(where, w.text(), False, rich)
        elif isinstance(w, QAbstractButton):
            yield Shown(where, w.text(), True, False)
        elif isinstance(w, QGroupBox):
            yield Shown(where, w.title(), True, False)
        elif isinstance(w, QLineEdit):
            yield Shown(where, w.text(), True, False, not w.isReadOnly())
        elif isinstance(w, QPlainTextEdit | QTextEdit):
            yield Shown(where, w.toPlainText(), False, False, not w.isReadOnly())
        elif isinstance(w, QTabBar):
            for t in range(w.count()):
                yield Shown(f"{where} tab {t}", w.tabText(t), True, False)
        if isinstance(w, QComboBox):
            for k in range(w.count()):
                yield Shown(f"{where} entry {k}", w.itemText(k), True, False)
                tip = w.itemData(k, _TIP)
                if isinstance(tip, str):
                    yield Shown(f"{where} entry {k} tooltip", tip, False,
                                Qt.mightBeRichText(tip))
        # A header's strings are its table model's header data, read with the table.
        if (isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView)
                and w.model() is not None):
            # A list's entry may be two lines by design (a heading and a preview).
            lines = isinstance(w, QListView)
            yield from (Shown(s.where, s.text, s.one_line and not lines, s.rich)
                        for s in _model(w.model(), where))
