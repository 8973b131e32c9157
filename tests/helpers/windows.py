"""The main window as the menu and dialog tests open it: a store holding one memory,
the window shown, and the Browse view's detail pane showing that memory."""

from __future__ import annotations

from typing import Any

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.window.main_window import MainWindow

TEXT = "User prefers tea."


def window_on_one_memory(qtbot: Any, store: MemoryStore, settings: Any) -> MainWindow:
    store.add(user_id="ana", text=TEXT, type="fact", importance=0.5)
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: browse(w).detail.record is not None, timeout=10_000)
    return w


def browse(w: MainWindow) -> BrowserView:
    view = w.views["browse"]
    assert isinstance(view, BrowserView)
    return view
