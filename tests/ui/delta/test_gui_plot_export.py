"""The source-dominance plot as an operator reports it: an exported picture with a title
and without the hover cursor, ticks only under snapshots, and a readout whose figures a
right-to-left label cannot reverse."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from memdesk.core.delta.snapshots import SnapshotSeries
from memdesk.ui.delta.plot import SnapshotPlot

pytestmark = [pytest.mark.gui]


def series(n: int, label: str = "#{i}", goal: str = "route tasks") -> SnapshotSeries:
    sources = ("context", "search")
    shares = np.vstack([np.linspace(0.3, 0.7, n), np.linspace(0.7, 0.3, n)])
    t0 = datetime(2026, 3, 1, 9)
    return SnapshotSeries(
        goal=goal, ids=[f"{i:032x}" for i in range(n)],
        times=[t0 + timedelta(days=i) for i in range(n)],
        labels=[label.format(i=i) for i in range(n)], sources=list(sources),
        shares={s: shares[k] for k, s in enumerate(sources)},
        aggregate=np.ones(n), dominance=shares.max(axis=0),
        status=[None] + ["suspicious"] * (n - 1),
        risk=np.r_[np.nan, np.full(n - 1, 0.399)], diff_ids=[None, *range(1, n)],
    )


@pytest.fixture
def plot(qtbot) -> SnapshotPlot:
    p = SnapshotPlot()
    qtbot.addWidget(p)
    p.resize(900, 450)
    p.show()
    return p


def _dark_rows(path: Path, rows: range) -> int:
    img = QImage(str(path))
    dark = 0
    for y in rows:
        for x in range(0, img.width(), 2):
            c = img.pixelColor(x, y)
            dark += c.lightness() < 80
    return dark


def test_export_has_a_title_and_no_cursor(qtbot, plot: SnapshotPlot, tmp_path: Path) -> None:
    plot.set_series(series(12), 0.6)
    assert "route tasks" in plot.export_title() and "12 snapshots" in plot.export_title()
    plain, hovered = tmp_path / "plain.png", tmp_path / "hovered.png"
    plot.export_png(plain)
    plot.hover_line.setValue(5)
    plot.hover_line.setVisible(True)
    plot.export_png(hovered)
    # The operator's mouse is not in the picture, and it is back on screen afterwards.
    assert QImage(str(plain)) == QImage(str(hovered))
    assert plot.hover_line.isVisible()
    assert not plot.plot.getPlotItem().titleLabel.isVisible()  # on screen: no title
    # The title is drawn: dark text in the picture's top band.
    assert _dark_rows(plain, range(2, 28)) > 20


def test_two_snapshots_label_only_their_own_ticks(qtbot, plot: SnapshotPlot) -> None:
    s = series(2)
    plot.set_series(s, 0.6)
    labels = plot.axis.tickStrings([-0.5, 0.0, 0.5, 1.0, 1.5], 1.0, 0.5)
    assert labels[0] == labels[2] == labels[4] == ""
    assert labels[1] and labels[3] and labels[1] != labels[3]


def test_a_right_to_left_label_cannot_reverse_the_figures(qtbot, plot: SnapshotPlot) -> None:
    plot.set_series(series(3, label="release \u202enaelc"), 0.6)
    line = plot.describe(2)
    start, end = line.index("\u2068"), line.index("\u2069")
    assert "⟨U+202E⟩" in line[start:end]  # the override is shown, not obeyed
    assert "\u202e" not in line
    assert "risk 0.399" in line[end:]


def test_the_exported_title_is_whole_and_the_picture_report_sized(
        qtbot, plot: SnapshotPlot, tmp_path: Path) -> None:
    plot.set_series(series(12), 0.6)
    out = tmp_path / "plot.png"
    plot.export_png(out)
    img = QImage(str(out))
    assert img.width() >= 1800  # not the 900 px of the widget
    # The title's glyphs start below the top edge: a title cut in half touches it.
    assert _dark_rows(out, range(0, 3)) == 0
    assert _dark_rows(out, range(3, 60)) > 40
