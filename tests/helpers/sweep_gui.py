"""A sweep view at the smallest supported window size with a sweep started by mouse."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.sweep.view import SweepView


def started_sweep(qtbot: Any, desk_for: Any, store: MemoryStore, *, n: int,
                  seed: str) -> SweepView:
    """A shown SweepView (1280×700) on ``store`` whose Start button was clicked for a
    sweep of ``n`` items with ``seed``; returns once the review page is up."""
    view = SweepView(desk_for(store))
    qtbot.addWidget(view)
    view.resize(1280, 700)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.start.user.count() > 1)
    view.start.n.setValue(n)
    view.start.seed.setText(seed)
    qtbot.mouseClick(view.start.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.stack.currentWidget() is view.review, timeout=5000)
    return view
