"""Memory → New memory… (Ctrl+N) writes one memory the way `memdesk add` does: audited
as the operator's "add", undoable from Edit → Undo; empty fields are refused in the
dialog, which keeps what was typed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.browse.new_memory import NewMemoryDialog
from memdesk.ui.window.main_window import MainWindow
from tests.helpers.windows import window_on_one_memory

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture
def window(qtbot, store: MemoryStore, offline_settings) -> MainWindow:
    w = window_on_one_memory(qtbot, store, offline_settings)
    w.show_view("overview")
    return w


def fill_and_accept(qtbot, window: MainWindow, fill) -> list[NewMemoryDialog]:  # type: ignore[no-untyped-def]
    seen: list[NewMemoryDialog] = []

    def answer() -> None:
        dlg = next(d for d in QApplication.topLevelWidgets()
                   if isinstance(d, NewMemoryDialog) and d.isVisible())
        seen.append(dlg)
        fill(dlg)
        dlg.accept()
        if dlg.isVisible():  # refused: look, then give up
            seen.append(dlg)
            dlg.reject()

    QTimer.singleShot(200, answer)
    assert window.new_memory_action.isEnabled()  # from Overview too
    window.new_memory_action.trigger()
    return seen


def test_new_memory_is_an_audited_undoable_operator_add(qtbot, window: MainWindow,
                                                        store: MemoryStore) -> None:
    def fill(dlg: NewMemoryDialog) -> None:
        dlg.user.setEditText("bo")
        dlg.type.setCurrentText("preference")
        dlg.text.setPlainText("User likes window seats.")
        dlg.importance.setValue(0.7)

    fill_and_accept(qtbot, window, fill)
    rows = [r for r in store.page() if r.user_id == "bo"]
    assert [(r.text, r.type, r.importance) for r in rows] == [
        ("User likes window seats.", "preference", 0.7)]
    ev = store.events(rows[0].id)[0]
    assert (ev.action, ev.actor) == ("add", "operator")
    browse = window.views["browse"]
    assert isinstance(browse, BrowserView)
    qtbot.waitUntil(lambda: browse.detail.record is not None
                    and browse.detail.record.id == rows[0].id, timeout=5_000)
    window.undo_action.trigger()
    assert store.get(rows[0].id).deleted_at is not None


def test_an_empty_text_is_refused_in_the_dialog(qtbot, window: MainWindow,
                                                store: MemoryStore) -> None:
    def fill(dlg: NewMemoryDialog) -> None:
        dlg.user.setEditText("bo")
        dlg.text.setPlainText("   ")

    seen = fill_and_accept(qtbot, window, fill)
    assert len(seen) == 2, "the dialog closed on an empty text"
    assert "text" in seen[0].message.text() and seen[0].user.currentText() == "bo"
    assert not [r for r in store.page() if r.user_id == "bo"]


def test_ctrl_n_is_new_memory_and_new_store_moved(qtbot, window: MainWindow) -> None:
    assert window.new_memory_action.shortcut().toString() == "Ctrl+N"
    assert window.new_action.shortcut().toString() == "Ctrl+Shift+N"
