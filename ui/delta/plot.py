"""The source-dominance plot: one goal's snapshots in time order (x = snapshot index),
each source's share of the weighted score as a stacked area, the dominance ratio as a
line, the dominance threshold dashed, and markers coloured by the health of the diff
that led to each snapshot.

Source names come from the store: the legend renders HTML, so they are escaped.  The
legend sits in headroom above the data (shares never exceed 1), so it never covers the
newest points, and the time axis picks its format from the time span shown (minutes
apart: times, not the same date ten times).

pyqtgraph is imported here, and this module only when a Snapshots view is created.
Curves are created once per series and updated with setData; they downsample (peak)
and clip to the view, so 10,000 snapshots stay responsive.
"""

from __future__ import annotations

import html
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPen
from PySide6.QtWidgets import QVBoxLayout, QWidget

from memdesk.core.delta.snapshots import SnapshotSeries
from memdesk.ui.delta.models import HEALTH_COLOURS, source_colour
from memdesk.ui.desk.text import elide, isolate, plain_label

Y_TOP = 1.32  # headroom above the data (≤ 1) where the legend sits


def time_format(span: timedelta) -> str:
    """A strftime format that tells ticks ``span`` apart in total."""
    if span < timedelta(days=1):
        return "%H:%M"
    if span < timedelta(days=4):
        return "%b %d %H:%M"
    if span < timedelta(days=300):
        return "%b %d"
    return "%Y-%m-%d"


def tick_labels(times: list[datetime | None]) -> list[str]:
    """Labels for ticks at ``times`` (None: no snapshot there): the format follows the
    span, and a label equal to the one before it is left out."""
    known = [t for t in times if t is not None]
    if not known:
        return ["" for _ in times]
    fmt = time_format(max(known) - min(known))
    out: list[str] = []
    last = None
    for t in times:
        text = t.strftime(fmt) if t is not None else ""
        out.append("" if text == last else text)
        last = text or last
    return out


EXPORT_WIDTH = 1800  # px of an exported plot (the widget is often half that)

class IndexDateAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph has no types: AxisItem is Any
    """Bottom axis: x is a snapshot index; ticks are labelled with that snapshot's time."""

    def __init__(self) -> None:
        super().__init__("bottom")
        self.times: list[datetime] = []

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        n = len(self.times)
        # Only whole indexes are snapshots: with two snapshots pyqtgraph puts ticks at
        # halves too, and rounding them labelled places between (or beside) the data.
        at = [int(np.rint(v)) if abs(v - np.rint(v)) < 1e-6 else -1 for v in values]
        return tick_labels([self.times[i] if 0 <= i < n else None for i in at])


class SnapshotPlot(QWidget):
    """The plot plus a plain-text hover readout.  ``snapshotClicked(index)`` on click."""

    snapshotClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.axis = IndexDateAxis()
        self.plot = pg.PlotWidget(axisItems={"bottom": self.axis})
        self.plot.setBackground("w")
        self.plot.setMenuEnabled(False)
        pi = self.plot.getPlotItem()
        pi.showGrid(x=False, y=True, alpha=0.2)
        pi.setLabel("left", "share of weighted score")
        pi.setLabel("bottom", "snapshot (time order)")
        pi.setYRange(0, Y_TOP, padding=0)
        pi.getViewBox().setMouseEnabled(x=True, y=False)
        pi.getViewBox().setLimits(yMin=-0.05, yMax=Y_TOP + 0.02)
        pi.getAxis("left").setTicks([[(v / 5, f"{v / 5:.1f}") for v in range(6)]])
        self.legend = pi.addLegend(offset=(10, 4), labelTextColor="k", colCount=4,
                                   brush=pg.mkBrush(255, 255, 255, 230))
        self.readout = plain_label("Hover over the plot to read a snapshot's figures.")
        self.readout.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.readout)

        self.series: SnapshotSeries | None = None
        self.source_curves: dict[str, pg.PlotDataItem] = {}
        self.markers: dict[str, pg.ScatterPlotItem] = {}
        self.dominance_curve = self._curve(pg.mkPen(QColor(20, 20, 20), width=2))
        self.threshold_line = pg.InfiniteLine(
            pos=0.6, angle=0, movable=False,
            pen=pg.mkPen(QColor(90, 90, 90), width=1.5, style=Qt.PenStyle.DashLine),
            label="dominance threshold {value:.2f}",
            labelOpts={"position": 0.06, "color": (60, 60, 60), "anchors": [(0, 1), (0, 1)]},
        )
        pi.addItem(self.threshold_line)
        self.hover_line = pg.InfiniteLine(angle=90, movable=False,
                                      pen=pg.mkPen(QColor(0, 0, 0, 90), width=1))
        self.hover_line.setVisible(False)
        pi.addItem(self.hover_line, ignoreBounds=True)
        for status, colour in HEALTH_COLOURS.items():
            sc = pg.ScatterPlotItem(size=7, pen=pg.mkPen(QColor(255, 255, 255), width=0.8),
                                    brush=pg.mkBrush(colour), name=None)
            sc.setZValue(20)
            pi.addItem(sc)
            self.markers[status] = sc
        self.plot.scene().sigMouseMoved.connect(self._hover)
        self.plot.scene().sigMouseClicked.connect(self._click)

    def _curve(self, pen: QPen) -> pg.PlotDataItem:
        c = pg.PlotDataItem(pen=pen)
        c.setDownsampling(auto=True, method="peak")
        c.setClipToView(True)
        self.plot.getPlotItem().addItem(c)
        return c

    # -- data -----------------------------------------------------------------------
    def set_series(self, series: SnapshotSeries, threshold: float) -> None:
        """Show ``series``: rebuilds the stack only when the set of sources changed."""
        self.series = series
        self.axis.times = series.times
        n = len(series)
        x = np.arange(n, dtype=float)
        if list(self.source_curves) != series.sources:
            self._rebuild_stack(series.sources)
        lower = np.zeros(n)
        for name in series.sources:
            upper = lower + series.shares[name]
            self.source_curves[name].setData(x, upper)
            lower = upper
        self.dominance_curve.setData(x, series.dominance)
        status = np.array([s or "" for s in series.status])
        for st, sc in self.markers.items():
            mask = status == st
            sc.setData(x[mask], series.dominance[mask])
        self.threshold_line.setValue(threshold)
        pi = self.plot.getPlotItem()
        pi.setXRange(-0.5, max(0.5, n - 0.5), padding=0.01)
        self.readout.setText(
            f"{n:,} snapshots of {isolate(elide(series.goal, 80))}. Hover for figures; click a "
            "snapshot to open the diff from the one before it."
        )

    def _rebuild_stack(self, sources: list[str]) -> None:
        """One filled curve per source, of the cumulative share up to that source.

        Painter's algorithm instead of FillBetweenItem: every cumulative curve is filled
        down to 0 with an opaque colour and the lower ones are drawn on top, which looks
        the same as bands between curves but renders thousands of points quickly
        (FillBetweenItem took ~0.5 s for 2,000 jagged points and crashed at 10,000).
        """
        pi = self.plot.getPlotItem()
        for item in self.source_curves.values():
            pi.removeItem(item)
        self.legend.clear()
        self.source_curves.clear()
        for i, name in enumerate(sources):
            colour = source_colour(name, sources)
            fill = QColor(colour).lighter(135)
            curve = self._curve(pg.mkPen(colour.darker(115), width=1))
            curve.setFillLevel(0.0)
            curve.setBrush(pg.mkBrush(fill))
            curve.setZValue(-1 - i)  # lower bands drawn last, over the higher ones
            self.source_curves[name] = curve
            self.legend.addItem(curve, html.escape(name))  # legend labels are HTML
        # Sources first, then the line and the health markers, whatever the rebuild order.
        self.legend.addItem(self.dominance_curve, "dominance ratio")
        for st, sc in self.markers.items():
            self.legend.addItem(sc, f"{st} change")

    # -- interaction ------------------------------------------------------------------
    def index_at(self, scene_pos: QPointF) -> int | None:
        if self.series is None or not len(self.series):
            return None
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        x = vb.mapSceneToView(scene_pos).x()
        return int(min(len(self.series) - 1, max(0, round(x))))

    def describe(self, i: int) -> str:
        s = self.series
        assert s is not None
        shares = ", ".join(f"{name} {s.shares[name][i]:.2f}" for name in s.sources)
        health = s.status[i]
        risk = "" if health is None else f", risk {s.risk[i]:.3f}"
        # The label is isolated: a right-to-left override in it must not reverse the
        # figures that follow ("risk 0.399" read "993.0 ksir").
        return (f"#{i + 1} · {s.times[i]:%Y-%m-%d %H:%M} · {isolate(elide(s.labels[i], 40))} — "
                f"{shares}; dominance {s.dominance[i]:.3f}; aggregate {s.aggregate[i]:.3f}; "
                f"health {health or 'first snapshot'}{risk}")

    def _hover(self, pos: QPointF) -> None:
        i = self.index_at(pos)
        if i is None:
            self.hover_line.setVisible(False)
            return
        self.hover_line.setValue(i)
        self.hover_line.setVisible(True)
        self.readout.setText(self.describe(i))

    def _click(self, event: pg.GraphicsScene.mouseEvents.MouseClickEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        i = self.index_at(event.scenePos())
        if i is not None:
            self.snapshotClicked.emit(i)

    def export_title(self) -> str:
        s = self.series
        if s is None or not len(s):
            return "Source dominance"
        return (f"Source dominance — {elide(s.goal, 80)} — {len(s):,} snapshots, "
                f"{s.times[0]:%Y-%m-%d} to {s.times[-1]:%Y-%m-%d}")

    def export_png(self, path: str | Path) -> None:
        """The plot as a picture for a report: with a title saying what it shows, and
        without the hover cursor (the operator's mouse is not part of the data).

        The title is drawn in a band above the exported plot, not as the plot's own
        title: that one takes its room only when the layout runs again, and exported
        at once it came out cut in half.  The picture is ``EXPORT_WIDTH`` wide at the
        least (a report's size, not the widget's)."""
        from pyqtgraph.exporters import ImageExporter

        pi = self.plot.getPlotItem()
        hover_was = self.hover_line.isVisible()
        self.hover_line.setVisible(False)
        try:
            exporter = ImageExporter(pi)
            exporter.parameters()["width"] = max(EXPORT_WIDTH, self.plot.width())
            body = exporter.export(toBytes=True)
        finally:
            self.hover_line.setVisible(hover_was)
        assert isinstance(body, QImage)  # what toBytes gives
        font = QFont(self.font())
        font.setPixelSize(max(18, body.width() // 70))
        band = QFontMetrics(font).height() * 2
        out = QImage(body.width(), body.height() + band, QImage.Format.Format_ARGB32)
        out.fill(QColor("white"))
        painter = QPainter(out)
        try:
            painter.setFont(font)
            painter.setPen(QColor("black"))
            # Plain text: a goal's markup or override is drawn as the characters it is.
            painter.drawText(QRectF(0, 0, out.width(), band), Qt.AlignmentFlag.AlignCenter,
                             self.export_title())
            painter.drawImage(0, band, body)
        finally:
            painter.end()
        if not out.save(str(path)):
            raise OSError(f"could not write {path}")
