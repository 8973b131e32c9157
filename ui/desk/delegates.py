"""Item delegates for the browser table: small score bars for importance and confidence.

Colours come from the widget's palette (so light and dark themes both work); the
"low confidence" warning colour is derived from the palette too, not hard-coded.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

# The model returns the raw score under this role (DisplayRole is the formatted text).
ScoreRole = Qt.ItemDataRole.UserRole + 1
LowRole = Qt.ItemDataRole.UserRole + 2


def warning_color(palette: QPalette) -> QColor:
    """A red that reads on this palette: lighter on dark backgrounds, darker on light."""
    dark = palette.color(QPalette.ColorRole.Base).lightnessF() < 0.5
    return QColor.fromHslF(0.0, 0.75, 0.62 if dark else 0.45)


class ScoreBarDelegate(QStyledItemDelegate):
    """Draws a score in [0, 1] as a bar with its value; ``LowRole`` rows in warning colour."""

    BAR_WIDTH = 48

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        score = index.data(ScoreRole)
        if not isinstance(score, float):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)

        pal = opt.palette
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        low = bool(index.data(LowRole))
        r = opt.rect.adjusted(4, 0, -4, 0)
        bar_w = min(self.BAR_WIDTH, max(16, r.width() // 2))
        track = QRect(r.left(), r.center().y() - 4, bar_w, 8)
        fill = QRect(track.left(), track.top(), round(bar_w * max(0.0, min(1.0, score))), 8)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(pal.color(QPalette.ColorRole.Midlight if not selected
                                   else QPalette.ColorRole.Dark))
        painter.drawRoundedRect(track, 3, 3)
        bar = warning_color(pal) if low else pal.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Highlight
        )
        painter.setBrush(bar)
        if fill.width() > 0:
            painter.drawRoundedRect(fill, 3, 3)
        text_rect = QRect(track.right() + 6, r.top(), r.right() - track.right() - 6, r.height())
        if low and not selected:
            painter.setPen(warning_color(pal))
        else:
            painter.setPen(pal.color(QPalette.ColorRole.HighlightedText if selected
                                     else QPalette.ColorRole.Text))
        if low:
            f = painter.font()
            f.setBold(True)
            painter.setFont(f)
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                         text)
        painter.restore()
