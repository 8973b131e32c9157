"""Settings' OK checks what was typed, says what is wrong in the dialog and keeps it
open; a good OK leaves the operator in the view they were in."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.window.main_window import MainWindow
from memdesk.ui.window.settings import Settings, SettingsDialog

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    s = Settings(QSettings(str(tmp_path / "memdesk.ini"), QSettings.Format.IniFormat))
    s.ollama_host = "http://127.0.0.1:9"
    return s


@pytest.mark.parametrize(("field", "value", "said"), [
    ("store_path", "/no/such/folder/memories.db", "does not exist"),
    ("store_path", "{tmp}", "is a folder"),
    ("ollama_host", "not a url <b>x</b>", "must be a web address"),
    ("ollama_host", "ftp://example.org", "must be a web address"),
])
def test_a_bad_value_is_said_and_nothing_is_saved(qtbot, settings: Settings, tmp_path: Path,
                                                  field: str, value: str, said: str) -> None:
    dlg = SettingsDialog(settings)
    qtbot.addWidget(dlg)
    dlg.show()
    getattr(dlg, field).setText(value.format(tmp=tmp_path))
    dlg.accept()
    assert dlg.isVisible() and said in dlg.message.text()
    assert settings.store_path == "" and settings.ollama_host == "http://127.0.0.1:9"
    dlg.reject()


def test_good_values_are_saved(qtbot, settings: Settings, tmp_path: Path) -> None:
    dlg = SettingsDialog(settings)
    qtbot.addWidget(dlg)
    dlg.store_path.setText(str(tmp_path / "mine.db"))
    dlg.ollama_host.setText("http://gpu-box:11434")
    dlg.accept()
    assert dlg.result() == SettingsDialog.DialogCode.Accepted
    assert settings.store_path == str(tmp_path / "mine.db")
    assert settings.ollama_host == "http://gpu-box:11434"


def test_ok_keeps_the_view_shown(qtbot, store: MemoryStore, settings: Settings) -> None:
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.show()
    w.show_view("duplicates")

    def ok() -> None:
        dlg = next(d for d in QApplication.topLevelWidgets()
                   if isinstance(d, SettingsDialog) and d.isVisible())
        dlg.low_conf.setValue(0.35)
        dlg.accept()

    QTimer.singleShot(100, ok)
    w.edit_settings()
    assert w.stack.currentWidget() is w.views["duplicates"]
