"""The status bar's counts follow a write made outside the window (the CLI's `add`, an
agent) within a few seconds, without F5."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.window.main_window import MainWindow

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


def test_counts_follow_a_write_from_another_process(qtbot, tmp_path: Path,
                                                     offline_settings) -> None:
    path = tmp_path / "store.db"
    store = MemoryStore.open(path)
    store.add(user_id="ana", text="User prefers tea.", type="fact")
    w = MainWindow(store, offline_settings)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: "total 1" in w.counts_label.text(), timeout=10_000)
    qtbot.wait(2500)  # a poll or two with nothing new
    other = MemoryStore.open(path)  # as `memdesk add` does, in its own connection
    other.add(user_id="bo", text="User lives in Porto.", type="fact", actor="operator")
    other.close()
    qtbot.waitUntil(lambda: "total 2" in w.counts_label.text(), timeout=10_000)
    w.close()
    store.close()
