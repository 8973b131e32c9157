"""A layout that lines its widgets up left to right and wraps onto another line when
the room is too narrow (Qt's "Flow Layout" example).

A row of pickers or buttons in a ``QHBoxLayout`` makes the window at least as wide as
the whole row: the Browse filter bar alone kept the window from being narrower than
1,246 px.  In a flow the minimum width is that of the widest widget, and the row takes
a second line at 1024 px instead of running off the window.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QStyle, QWidget


class FlowLayout(QLayout):
    """Widgets in reading order, wrapped at the layout's width; a widget added with
    ``stretch=True`` takes what is left of its line (the search box)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = -1) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._stretch: set[int] = set()  # ids of items that fill their line
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addWidget(self, widget: QWidget, stretch: bool = False) -> None:
        super().addWidget(widget)
        if stretch:
            self._stretch.add(id(self._items[-1]))

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if 0 <= index < len(self._items):
            item = self._items.pop(index)
            self._stretch.discard(id(item))
            return item
        return None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """All on one line."""
        w = sum(i.sizeHint().width() for i in self._items)
        w += self._gap() * max(0, len(self._items) - 1)
        h = max((i.sizeHint().height() for i in self._items), default=0)
        m = self.contentsMargins()
        return QSize(w + m.left() + m.right(), h + m.top() + m.bottom())

    def minimumSize(self) -> QSize:
        """As narrow as the widest widget."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _gap(self) -> int:
        if self._spacing >= 0:
            return self._spacing
        parent = self.parentWidget()
        if parent is None:
            return 6
        return parent.style().pixelMetric(QStyle.PixelMetric.PM_LayoutHorizontalSpacing)

    def _arrange(self, rect: QRect, move: bool) -> int:
        m: QMargins = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        gap = max(self._gap(), 4)
        lines: list[list[QLayoutItem]] = [[]]
        x = 0
        for item in self._items:
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            w = item.sizeHint().width()
            if lines[-1] and x + w > area.width():
                lines.append([])
                x = 0
            lines[-1].append(item)
            x += w + gap
        y = area.y()
        for line in lines:
            if not line:
                continue
            height = max(i.sizeHint().height() for i in line)
            used = sum(i.sizeHint().width() for i in line) + gap * (len(line) - 1)
            spare = max(0, area.width() - used)
            fill = sum(1 for i in line if id(i) in self._stretch)
            x = area.x()
            for item in line:
                w = min(item.sizeHint().width(), area.width())
                if id(item) in self._stretch:
                    w += spare // fill
                if move:
                    widget = item.widget()
                    policy = widget.sizePolicy() if widget is not None else None
                    h = height if policy is None or policy.verticalPolicy() != (
                        QSizePolicy.Policy.Fixed) else item.sizeHint().height()
                    item.setGeometry(QRect(QPoint(x, y + (height - h) // 2), QSize(w, h)))
                x += w + gap
            y += height + gap
        return y - gap - rect.y() + m.bottom() if y > area.y() else m.top() + m.bottom()
