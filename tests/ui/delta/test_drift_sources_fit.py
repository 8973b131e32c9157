"""The drift review's "Memory sources" pane shows every column a source has, weight to
effective weight, without scrolling sideways at the smallest supported window
(1280×700), and says the source's type in the name's tooltip (offscreen Qt)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


def test_sources_pane_fits_at_1280_and_names_the_type(qtbot, demo_store, desk_for) -> None:  # type: ignore[no-untyped-def]
    from memdesk.ui.delta.drift_view import DriftView

    view = DriftView(desk_for(demo_store))
    qtbot.addWidget(view)
    view.resize(1280 - 190, 700 - 60)  # what the window leaves it beside the view list
    view.show()
    qtbot.waitSignal(view.queueLoaded, timeout=10_000).wait()
    qtbot.wait(50)
    table, model = view.sources.table, view.sources.model
    shown = [c for c in range(model.columnCount()) if not table.isColumnHidden(c)]
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in shown]
    assert headers[0] == "Source" and headers[-1] == "Effective" and "Weight" in headers
    assert table.horizontalScrollBar().maximum() == 0, headers
    tip = model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole)
    assert tip and "source" in tip
    full = model.headerData(shown[-2], Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "confidence" in full.lower()
