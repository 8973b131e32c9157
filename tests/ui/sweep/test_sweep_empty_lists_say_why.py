"""The sweep's "Same session" list and its list of unfinished sweeps say why they are
empty instead of staying blank (offscreen Qt)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.sweep.view import SweepView
from tests.helpers.read import put
from tests.helpers.sweep_gui import started_sweep

pytestmark = pytest.mark.gui


def test_same_session_pane_explains_an_empty_list(qtbot, store: MemoryStore, desk_for) -> None:  # type: ignore[no-untyped-def]
    put(store, [
        {"text": "Alone in its session.", "importance": 0.4, "source_session": "s-alone"},
        {"text": "Written without a session.", "importance": 0.4},
        {"text": "One of a pair.", "importance": 0.4, "source_session": "s-pair"},
        {"text": "The other of the pair.", "importance": 0.9, "source_session": "s-pair"},
    ], embed=False, user="alice")
    view = started_sweep(qtbot, desk_for, store, n=3, seed="1")
    review = view.review
    note = review.neighbour_list.viewport().findChild(QLabel, "sameSessionEmpty")
    seen = {}
    for _ in range(3):
        text = review.text.toPlainText()
        seen[text] = (review.neighbours.rowCount(), note.isVisible(), note.text())
        qtbot.mouseClick(review.decision_buttons["keep"], Qt.MouseButton.LeftButton)
        qtbot.wait(50)
    assert seen["Alone in its session."] == (
        0, True, "No other memory of this user came from this session.")
    assert seen["Written without a session."] == (
        0, True, "This memory does not say which session it came from.")
    rows, shown, _ = seen["One of a pair."]
    assert rows == 1 and not shown


def test_no_unfinished_sweeps_says_what_would_be_there(qtbot, store: MemoryStore,
                                                       desk_for) -> None:  # type: ignore[no-untyped-def]
    put(store, [{"text": "A memory in the band.", "importance": 0.4}], embed=False)
    view = SweepView(desk_for(store))
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.start.user.count() > 1)
    assert view.start.no_sweeps.isVisible() and "pause" in view.start.no_sweeps.text()
    assert not view.start.resume_button.isEnabled()
