"""A sweep reviewed with the mouse alone: every decision the keys make has a button, and
the keys still work after a click."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memdesk.core.curation.service import Sweeps
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.sweep_gui import started_sweep

pytestmark = pytest.mark.gui


def test_sweep_review_by_mouse(qtbot, demo_store: MemoryStore, desk_for) -> None:
    view = started_sweep(qtbot, desk_for, demo_store, n=4, seed="9")
    sid = view.sweep_id
    items = Sweeps(demo_store).get(sid).items
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
    state = Sweeps(demo_store).get(sid)
    assert [it.decision for it in state.items][:3] == ["revalue", "skip", "keep"]
