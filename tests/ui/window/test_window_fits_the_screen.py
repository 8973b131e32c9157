"""The desk's window opens no larger than the screen it is on (offscreen Qt)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.app import gui
from memdesk.core.store.memory_store import MemoryStore

pytestmark = pytest.mark.gui


def test_the_window_opens_within_the_screen(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "small.db"
    MemoryStore.open(path).close()
    launcher = gui.Launcher()
    assert launcher.open(path)
    w = launcher.window
    qtbot.addWidget(w)
    room = w.screen().availableGeometry()
    assert w.height() <= room.height()
    assert w.width() <= max(room.width(), w.minimumSizeHint().width())
    w.close()
