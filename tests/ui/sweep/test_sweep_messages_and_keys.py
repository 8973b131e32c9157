"""The sweep's small things: a decision's "U or Ctrl+Z undoes it" becomes "Undone." after
the undo and is gone in the next sweep; the band estimate says it is computing and
follows the decisions once the sweep is paused; Ctrl+2 then Enter starts a sweep."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.window.main_window import MainWindow
from tests.helpers.sweep_gui import started_sweep

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


def test_undo_says_undone_and_a_new_sweep_starts_clean(qtbot, demo_store: MemoryStore,
                                                       desk_for) -> None:
    view = started_sweep(qtbot, desk_for, demo_store, n=3, seed="4")
    qtbot.keyClick(view.review, Qt.Key.Key_K)
    assert "undoes it" in view.review.status.text()
    qtbot.keyClick(view.review, Qt.Key.Key_U)
    assert view.review.status.text() == "Undone."
    view.desk.undo_stack.redo()
    view.desk.undo_stack.undo()  # Edit → Undo (Ctrl+Z) says the same
    assert view.review.status.text() == "Undone."
    qtbot.keyClick(view.review, Qt.Key.Key_Escape)  # pause
    view.start.seed.setText("5")
    view.start_from_form()
    qtbot.waitUntil(lambda: view.stack.currentWidget() is view.review
                    and view.state is not None and view.state.done == 0, timeout=5_000)
    assert view.review.status.text() == ""


def test_the_estimate_says_computing_then_follows_the_decisions(
        qtbot, demo_store: MemoryStore, desk_for) -> None:
    view = started_sweep(qtbot, desk_for, demo_store, n=3, seed="4")
    panel = view.start.learning
    before = panel.headline.text()
    for key in (Qt.Key.Key_3, Qt.Key.Key_K, Qt.Key.Key_8):
        qtbot.keyClick(view.review, key)
    qtbot.keyClick(view.report, Qt.Key.Key_Escape)
    assert panel.headline.text() == "Computing the estimate…"
    # The first estimate from decisions loads the statistics library: seconds on a busy
    # machine.
    qtbot.waitUntil(lambda: panel.headline.text() not in ("Computing the estimate…", before),
                    timeout=60_000)
    assert "would be raised" in panel.headline.text()


def test_a_new_panel_says_it_is_computing(qtbot, demo_store: MemoryStore, desk_for) -> None:
    from memdesk.ui.sweep.view import SweepView

    view = SweepView(desk_for(demo_store))
    qtbot.addWidget(view)
    view.show()
    assert view.start.learning.headline.text() == "Computing the estimate…"
    qtbot.waitUntil(lambda: view.start.learning.headline.text()
                    != "Computing the estimate…", timeout=20_000)


def test_ctrl_2_then_enter_starts_a_sweep(qtbot, demo_store: MemoryStore,
                                          offline_settings) -> None:
    w = MainWindow(demo_store, offline_settings)
    qtbot.addWidget(w)
    w.show()
    w.activateWindow()
    qtbot.waitActive(w)
    w.show_view("sweep")  # built before, as after a first visit
    w.show_view("browse")
    w.sidebar.setFocus()
    view_action = next(a for a in w.view_menu.actions() if a.text() == "Revaluation sweep")
    view_action.trigger()  # Ctrl+2
    sweep = w.views["sweep"]
    qtbot.waitUntil(lambda: sweep.start.user.count() > 1, timeout=10_000)
    focus = QApplication.focusWidget()
    assert focus is not None and sweep.isAncestorOf(focus), focus
    qtbot.keyClick(focus, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: sweep.stack.currentWidget() is sweep.review, timeout=10_000)

