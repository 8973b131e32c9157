"""The browser's user filter and the sweep's user picker list a user id with line
breaks, overrides or great length as one short visible row, and still pick that user
(offscreen Qt)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from memdesk.core.curation.service import Sweeps
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.sweep.view import SweepView

pytestmark = pytest.mark.gui

ODD = "bob\nDROP TABLE memories;\nline three"
RTL = "\u202eevil-user.exe"
LONG = "a-very-long-user-id-" + "x" * 90 + "-end"


@pytest.fixture
def odd_users(store: MemoryStore) -> MemoryStore:
    for user in ("alice", ODD, RTL, LONG):
        store.add(user_id=user, text=f"A note of {len(user)} characters.", type="note",
                  importance=0.4)
    return store


def test_browser_user_filter_lists_and_picks_odd_ids(qtbot, odd_users: MemoryStore,
                                                     desk_for) -> None:  # type: ignore[no-untyped-def]
    view = BrowserView(desk_for(odd_users))
    qtbot.addWidget(view)
    view.resize(1280, 700)
    view.show()
    box = view.filters.user
    qtbot.waitUntil(lambda: box.count() == 5, timeout=10_000)
    shown = [box.itemText(i) for i in range(1, box.count())]
    assert "bob⟨U+000A⟩DROP TABLE memories;⟨U+000A⟩line three" in shown
    assert "⟨U+202E⟩evil-user.exe" in shown
    assert all("\n" not in s and "\u202e" not in s and len(s) <= 60 for s in shown)
    assert box.width() < 300  # a long id does not widen the filter bar
    box.setCurrentIndex(box.findData(box.itemData(shown.index(
        "bob⟨U+000A⟩DROP TABLE memories;⟨U+000A⟩line three") + 1)))
    qtbot.waitUntil(lambda: not view.model.loading and view.model.total == 1, timeout=10_000)
    assert view.model.row_at(0).user_id == ODD


def test_sweep_user_picker_lists_and_picks_odd_ids(qtbot, odd_users: MemoryStore,
                                                   desk_for) -> None:  # type: ignore[no-untyped-def]
    view = SweepView(desk_for(odd_users))
    qtbot.addWidget(view)
    view.show()
    combo = view.start.user
    qtbot.waitUntil(lambda: combo.count() == 5, timeout=10_000)
    shown = [combo.itemText(i) for i in range(1, combo.count())]
    assert all("\n" not in s and "\u202e" not in s and len(s) <= 60 for s in shown)
    combo.setCurrentIndex(combo.findData(ODD))
    qtbot.mouseClick(view.start.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.stack.currentWidget() is view.review, timeout=5000)
    sweep = Sweeps(odd_users).get(view.sweep_id)
    assert [odd_users.get(i.memory_id).user_id for i in sweep.items] == [ODD]
