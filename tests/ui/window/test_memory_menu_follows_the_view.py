"""The Memory menu's commands act on the memories selected in Browse: from another view
(where that selection is hidden) they are disabled and do nothing; "New memory…" works
everywhere."""

from __future__ import annotations

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.window.main_window import MainWindow
from tests.helpers.windows import window_on_one_memory

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture
def window(qtbot, store: MemoryStore, offline_settings) -> MainWindow:
    return window_on_one_memory(qtbot, store, offline_settings)


def test_selection_commands_are_off_where_the_selection_is_hidden(
        qtbot, window: MainWindow, monkeypatch) -> None:
    view = window.views["browse"]
    assert isinstance(view, BrowserView)
    asked: list[str] = []
    from PySide6.QtWidgets import QInputDialog

    monkeypatch.setattr(QInputDialog, "getDouble",
                        lambda *a, **k: (asked.append("importance"), (0.9, False))[1])
    commands = (view.set_importance_action, view.set_type_action, view.set_topic_action,
                view.supersede_action, view.delete_action)
    assert all(a.isEnabled() for a in commands)
    window.show_view("overview")
    assert not any(a.isEnabled() for a in commands)
    view.set_importance_action.trigger()  # Ctrl+I from Overview
    assert asked == []
    window.show_view("browse")
    assert all(a.isEnabled() for a in commands)
    view.set_importance_action.trigger()
    assert asked == ["importance"]


def test_without_a_selection_the_selection_commands_are_off(qtbot, window: MainWindow
                                                            ) -> None:
    view = window.views["browse"]
    assert isinstance(view, BrowserView)
    view.table.clearSelection()
    assert not view.set_importance_action.isEnabled()
    view.table.selectRow(0)
    assert view.set_importance_action.isEnabled()
