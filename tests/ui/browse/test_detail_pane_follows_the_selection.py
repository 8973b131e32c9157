"""The detail pane shows nothing of a memory that is no longer selected, and a row
soft-deleted under a "Not deleted" filter is marked as deleted until the list is read
again."""

from __future__ import annotations

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture
def view(qtbot, store: MemoryStore, desk_for) -> BrowserView:
    store.add(user_id="ana", text="User prefers tea.", type="preference", importance=0.7,
              topic="food", entity="user", attribute="drink", value="tea")
    v = BrowserView(desk_for(store))
    qtbot.addWidget(v)
    v.resize(1280, 700)
    v.show()
    qtbot.waitUntil(lambda: v.detail.record is not None, timeout=10_000)
    return v


def test_nothing_selected_shows_no_memorys_values(qtbot, view: BrowserView) -> None:
    d = view.detail
    assert d.text.toPlainText() == "User prefers tea."
    view.table.clearSelection()
    assert d.record is None
    assert d.text.toPlainText() == ""
    assert (d.topic.text(), d.entity.text(), d.attribute.text(), d.value.text()) == ("",) * 4
    assert all(f.text() in ("", "—") for f in d.facts.values())


def test_a_soft_deleted_row_is_marked_in_the_list(qtbot, view: BrowserView) -> None:
    from PySide6.QtCore import Qt

    from memdesk.ui.browse.browser_model import COLUMN_KEYS

    view.table.selectRow(0)
    view.delete_selected()
    qtbot.waitUntil(lambda: view.model.row_at(0) is not None
                    and view.model.row_at(0).deleted_at is not None, timeout=5_000)
    status = view.model.index(0, COLUMN_KEYS.index("status"))
    assert status.data(Qt.ItemDataRole.DisplayRole) == "deleted"
    text = view.model.index(0, COLUMN_KEYS.index("text"))
    assert text.data(Qt.ItemDataRole.FontRole).strikeOut()


def test_opening_a_memory_while_ctrl_or_shift_is_held_selects_only_it(
        qtbot, view: BrowserView, store: MemoryStore) -> None:
    """A memory opened from code (a link, a reload after a shortcut) is the one selected
    row even while the shortcut's Ctrl or Shift is still down: a held key must not turn
    "show this" into "add this to the selection", which leaves the pane empty."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    tea = view.detail.record
    assert tea is not None
    walks = store.add(user_id="ana", text="User walks to work.", type="fact").id
    view.model.set_query()
    qtbot.waitUntil(lambda: view.model.row_of(walks) is not None, timeout=10_000)
    held = ((Qt.Key.Key_Control, Qt.KeyboardModifier.ControlModifier),
            (Qt.Key.Key_Shift, Qt.KeyboardModifier.ShiftModifier))
    for key, modifier in held:
        QTest.keyPress(view.table, key, modifier)  # down, and not yet up
        try:
            for target in (walks, tea.id):
                view.open_memory(target)
                rows = {i.row() for i in view.table.selectionModel().selectedRows()}
                assert rows == {view.model.row_of(target)}, (key, target)
                qtbot.waitUntil(lambda t=target: view.detail.record is not None
                                and view.detail.record.id == t, timeout=10_000)
        finally:
            QTest.keyRelease(view.table, key)
