"""Memory → Prune old episodes…: the dialog counts off the GUI thread for exactly the
options shown, Prune waits for that count, and the prune is one undoable desk action."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memdesk.core.ids import utcnow
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from tests.helpers.episodes import say

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]
LONG_AGO = datetime(2023, 5, 8, 13, 56)


@pytest.fixture(autouse=True)
def _no_leaked_windows(qapp):
    yield
    leaked = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    for w in leaked:
        w.close()
    assert not leaked, f"leaked top-level widgets: {leaked}"


def open_dialog(qtbot, store: MemoryStore, desk_for):  # type: ignore[no-untyped-def]
    view = BrowserView(desk_for(store))
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: not view.model.loading and view.model.total is not None)
    view.wait_idle()
    action = next(a for a in view.view_actions() if a.text() == "Prune old episodes…")
    assert not action.shortcut().isEmpty()
    action.trigger()
    dlg = view.prune_dialog
    assert dlg is not None and dlg.isVisible()
    qtbot.waitUntil(lambda: dlg.plan is not None, timeout=10_000)
    return view, dlg


def test_the_dry_run_follows_the_options_and_the_prune_undoes(
        qtbot, store: MemoryStore, desk_for) -> None:  # type: ignore[no-untyped-def]
    idle = say(store, "Noted, I will remember that.", speaker="assistant", said_at=LONG_AGO)
    kept = say(store, "I'm vegetarian.", said_at=LONG_AGO)  # its unit is still active
    recent = say(store, "Sounds good to me.", said_at=utcnow() - timedelta(days=2))
    view, dlg = open_dialog(qtbot, store, desk_for)
    assert dlg.plan.ids == (idle.episode_id,)
    assert dlg.figure.text().startswith("Would prune 1 episode said before ")
    assert dlg.prune_button.isEnabled()

    dlg.include_with_units.setChecked(True)  # the shown figure is stale at once
    assert dlg.plan is None and not dlg.prune_button.isEnabled()
    assert dlg.figure.text() == "Counting…"
    qtbot.waitUntil(lambda: dlg.plan is not None, timeout=10_000)
    assert set(dlg.plan.ids) == {idle.episode_id, kept.episode_id}
    assert "2 episodes" in dlg.figure.text()

    dlg.days.setValue(36_500)
    qtbot.waitUntil(lambda: dlg.plan is not None, timeout=10_000)
    assert dlg.plan.count == 0 and not dlg.prune_button.isEnabled()
    assert dlg.figure.text().startswith("Nothing to prune")

    dlg.days.setValue(30)
    dlg.include_with_units.setChecked(False)
    qtbot.waitUntil(lambda: dlg.plan is not None, timeout=10_000)
    qtbot.mouseClick(dlg.prune_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.desk.running, timeout=10_000)
    assert store.get(idle.episode_id).deleted_at is not None
    for other in (kept.episode_id, recent.episode_id, *kept.memory_ids):
        assert store.get(other).deleted_at is None
    stack = view.desk.undo_stack
    assert stack.count() == 1 and "prune" in stack.undoText().lower()
    stack.undo()
    assert store.get(idle.episode_id).deleted_at is None


def test_cancel_changes_nothing(qtbot, store: MemoryStore, desk_for) -> None:  # type: ignore[no-untyped-def]
    idle = say(store, "Noted, I will remember that.", speaker="assistant", said_at=LONG_AGO)
    view, dlg = open_dialog(qtbot, store, desk_for)
    assert dlg.plan.count == 1
    dlg.reject()
    qtbot.wait(50)
    assert store.get(idle.episode_id).deleted_at is None
    assert view.desk.undo_stack.count() == 0 and not view.desk.running
