"""Edit → Undo names each action the way the action registry declares it, in English:
one memory, several memories; undo and redo keep the names."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.window.main_window import MainWindow
from memdesk.ui.window.settings import Settings


@pytest.fixture
def window(qtbot, store: MemoryStore, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    settings = Settings(QSettings(str(tmp_path / "memdesk.ini"), QSettings.Format.IniFormat))
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.show()
    return w


@pytest.mark.gui
def test_edit_menu_labels_count_memories_in_english(window: MainWindow,
                                                    store: MemoryStore) -> None:
    ids = [store.add(user_id="u", text=f"memory {i}", type="fact").id for i in range(4)]
    browser = window.views["browse"]
    browser.delete_selected([ids[0]])
    assert window.undo_action.text() == "Undo soft-delete of 1 memory"
    browser.delete_selected(ids[1:])
    assert window.undo_action.text() == "Undo soft-delete of 3 memories"
    browser.bulk_set("topic", "t", ids[:1])
    assert window.undo_action.text() == "Undo edit of 1 memory"
    window.undo_stack.undo()
    assert window.undo_action.text() == "Undo soft-delete of 3 memories"
    assert window.redo_action.text() == "Redo edit of 1 memory"
    window.undo_stack.undo()
    assert all(store.get(i).deleted_at is None for i in ids[1:])
