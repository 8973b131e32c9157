"""A sweep reviewed with the mouse alone: every decision the keys make has a button, and
the keys still work after a click."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memdesk.core.curation import sweep
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.sweep_view import SweepView

pytestmark = pytest.mark.gui


def test_sweep_review_by_mouse(qtbot, demo_store: MemoryStore, desk_for) -> None:
    view = SweepView(desk_for(demo_store))
    qtbot.addWidget(view)
    view.resize(1280, 700)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.start.user.count() > 1)
    view.start.n.setValue(4)
    view.start.seed.setText("9")
    qtbot.mouseClick(view.start.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.stack.currentWidget() is view.review, timeout=5000)
    sid = view.sweep_id
    items = sweep.get_sweep(demo_store, sid).items
    buttons = view.review.decision_buttons

    def click(name: str) -> None:
        b = buttons[name]
        assert b.isVisible() and b.isEnabled(), name
        qtbot.mouseClick(b, Qt.MouseButton.LeftButton)

    click("revalue 0.8")
    assert demo_store.get(items[0].memory_id).importance == 0.8
    click("keep")
    click("undo")
    assert view.review.progress.text() == "1 / 4"
    click("skip")
    # After a click the keyboard still drives the review (buttons take no focus).
    view.review.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view.review)
    qtbot.keyClick(view.review, Qt.Key.Key_K)
    assert view.review.progress.text() == "3 / 4"
    click("pause")
    assert view.stack.currentWidget() is view.start
    state = sweep.get_sweep(demo_store, sid)
    assert [it.decision for it in state.items][:3] == ["revalue", "skip", "keep"]
