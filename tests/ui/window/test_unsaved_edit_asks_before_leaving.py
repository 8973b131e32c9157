"""An edit typed in the detail pane and not applied is never lost without a question:
quitting (Ctrl+Q, the title bar's close), opening another store and opening the demo
store ask Apply / Discard / Cancel, and Cancel keeps everything as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.window.main_window import MainWindow
from tests.helpers.windows import browse, window_on_one_memory

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]
EDIT = "User prefers green tea."


class Asked(list[str]):
    """The questions asked; each is answered with the next of ``answers``."""

    answers: list[QMessageBox.StandardButton]


@pytest.fixture
def asked(monkeypatch) -> Asked:
    out = Asked()
    out_answers: list[QMessageBox.StandardButton] = []

    def fake_exec(self: QMessageBox) -> int:
        out.append(self.text())
        return int(out_answers.pop(0).value)

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    out.answers = out_answers
    return out


@pytest.fixture
def window(qtbot, store: MemoryStore, offline_settings) -> MainWindow:
    w = window_on_one_memory(qtbot, store, offline_settings)
    view = browse(w)
    view.detail.text.setPlainText(EDIT)
    assert view.detail.has_unsaved()
    return w


def pane_text(w: MainWindow) -> str:
    view = w.views["browse"]
    assert isinstance(view, BrowserView)
    return view.detail.text.toPlainText()


def test_quit_asks_and_cancel_keeps_the_window_and_the_edit(qtbot, window: MainWindow,
                                                            asked) -> None:
    asked.answers.append(QMessageBox.StandardButton.Cancel)
    window.quit_action.trigger()  # Ctrl+Q
    assert asked and "text" in asked[0]
    assert window.isVisible() and pane_text(window) == EDIT
    window.views["browse"].detail.reload()  # type: ignore[attr-defined]  # no ask at teardown


def test_the_title_bar_close_asks_and_discard_closes(qtbot, window: MainWindow, asked,
                                                     store: MemoryStore) -> None:
    asked.answers.append(QMessageBox.StandardButton.Discard)
    window.close()  # what the title bar's close button sends
    assert len(asked) == 1 and not window.isVisible()
    assert [r.text for r in store.page()] == ["User prefers tea."]


def test_apply_on_close_stores_the_edit(qtbot, window: MainWindow, asked,
                                        store: MemoryStore) -> None:
    asked.answers.append(QMessageBox.StandardButton.Apply)
    window.close()
    assert not window.isVisible()
    assert [r.text for r in store.page()] == [EDIT]


def test_opening_another_store_asks_and_cancel_stays(qtbot, window: MainWindow, asked,
                                                     store: MemoryStore, tmp_path: Path
                                                     ) -> None:
    other = tmp_path / "other.db"
    MemoryStore.open(other).close()
    asked.answers.append(QMessageBox.StandardButton.Cancel)
    assert not window.open_path(other)
    assert asked and window.store is store and pane_text(window) == EDIT
    window.views["browse"].detail.reload()  # type: ignore[attr-defined]


def test_opening_another_store_after_discard_asks_once(qtbot, window: MainWindow, asked,
                                                       tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    MemoryStore.open(other).close()
    asked.answers.append(QMessageBox.StandardButton.Discard)
    assert window.open_path(other)
    assert len(asked) == 1 and Path(window.store.engine.url.database or "") == other


def test_open_demo_store_asks_first_and_cancel_builds_nothing(qtbot, window: MainWindow,
                                                              asked, store: MemoryStore
                                                              ) -> None:
    asked.answers.append(QMessageBox.StandardButton.Cancel)
    window.demo_action.trigger()
    assert asked and window.store is store and pane_text(window) == EDIT
    assert window._builder is None
    window.views["browse"].detail.reload()  # type: ignore[attr-defined]


@pytest.mark.parametrize("answer", [QMessageBox.StandardButton.Cancel,
                                    QMessageBox.StandardButton.Discard])
@pytest.mark.parametrize("how", ["sort", "search"])
def test_a_sort_or_search_asks_once(qtbot, window: MainWindow, asked, store: MemoryStore,
                                    how: str, answer: QMessageBox.StandardButton) -> None:
    store.add(user_id="ana", text="User lives in Porto.", type="fact", importance=0.6)
    view = window.views["browse"]
    assert isinstance(view, BrowserView)
    asked.answers.extend([answer] * 3)
    if how == "sort":  # "User lives in Porto." first: another row comes to the top
        view.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    else:  # the memory being edited is not among the results
        view.filters.search.setText("Porto")
    total = 2 if how == "sort" else 1
    qtbot.waitUntil(lambda: not view.model.loading and view.model.total == total,
                    timeout=10_000)
    qtbot.wait(300)
    assert len(asked) == 1
    if answer == QMessageBox.StandardButton.Cancel:
        assert pane_text(window) == EDIT
    view.detail.reload()


def test_ctrl_c_asks_too_and_cancel_keeps_the_desk_running(qtbot, window: MainWindow,
                                                           asked, monkeypatch) -> None:
    import os
    import signal

    from PySide6.QtWidgets import QApplication

    from memdesk.app import gui

    exits: list[int] = []
    monkeypatch.setattr(QApplication, "exit", staticmethod(exits.append))
    launcher = gui.Launcher()
    launcher.window = window
    before = signal.getsignal(signal.SIGINT)
    try:
        ctrl_c = gui.CtrlC(launcher)
        ctrl_c.attach(QApplication.instance())
        qtbot.waitUntil(lambda: ctrl_c.running, timeout=5_000)
        asked.answers.append(QMessageBox.StandardButton.Cancel)
        os.kill(os.getpid(), signal.SIGINT)
        qtbot.waitUntil(lambda: bool(asked), timeout=5_000)
        assert window.isVisible() and pane_text(window) == EDIT and exits == []
    finally:
        signal.signal(signal.SIGINT, before)
        if ctrl_c.ticker is not None:
            ctrl_c.ticker.stop()
    window.views["browse"].detail.reload()  # type: ignore[attr-defined]
