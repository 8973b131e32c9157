"""Store safety in the GUI: the conflict dialog for a stale edit, the banners, File →
Check store / Back up now / Restore…, asking before an upgrade."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

from memdesk.core.errors import EditConflictError
from memdesk.core.store.backup import list_backups
from memdesk.core.store.db import SqliteInfo
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.store_safety import safety as store_safety
from memdesk.ui.store_safety.safety import ConflictDialog
from memdesk.ui.window.main_window import MainWindow
from memdesk.ui.window.settings import Settings
from tests.helpers.recall import make_recall_store

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture(autouse=True)
def _backups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "backups"
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(folder))
    return folder


@pytest.fixture
def dialogs(monkeypatch) -> list[QMessageBox]:
    shown: list[QMessageBox] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda self: shown.append(self) or 0)
    monkeypatch.setattr(QMessageBox, "open", lambda self: shown.append(self))
    return shown


@pytest.fixture
def window(qtbot, demo_store: MemoryStore, tmp_path: Path):
    settings = Settings(QSettings(str(tmp_path / "m.ini"), QSettings.Format.IniFormat))
    settings.ollama_host = "http://127.0.0.1:9"
    w = MainWindow(demo_store, settings)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.safety.task.wait()
    w.safety.background.wait()
    w.close()
    leaked = [x for x in QApplication.topLevelWidgets() if x.isVisible()]
    assert not leaked, f"leaked top-level widgets: {leaked}"


def _view(qtbot, store: MemoryStore, desk_for) -> BrowserView:
    view = BrowserView(desk_for(store))
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: not view.model.loading and view.model.total is not None,
                    timeout=10_000)
    return view


def test_stale_edit_shows_both_versions_and_keeps_theirs(qtbot, demo_store, monkeypatch,
                                                         desk_for):
    view = _view(qtbot, demo_store, desk_for)
    view.table.selectRow(2)
    seen = demo_store.get(view.model.row_at(2).id)
    view.detail.show_memory(seen.id)  # the pane shows (and will edit) exactly this version
    assert view.detail.record == seen and view.detail.edited_fields() == {}
    other = MemoryStore.open(demo_store.engine.url.database)  # an agent, meanwhile
    other.update(seen.id, actor="agent", text="the agent's newer text")
    other.close()
    asked = []

    def ask(parent, mine, seen_rec, exc):  # type: ignore[no-untyped-def]
        asked.append((mine, seen_rec, exc))
        return ConflictDialog.KEEP

    monkeypatch.setattr(ConflictDialog, "ask", staticmethod(ask))
    view.detail.text.setPlainText("the operator's edit")
    view.detail.request_apply()
    assert len(asked) == 1
    mine, seen_rec, exc = asked[0]
    assert mine == {"text": "the operator's edit"} and seen_rec.text == seen.text
    assert exc.current.text == "the agent's newer text" and exc.actual == seen.version + 1
    assert demo_store.get(seen.id).text == "the agent's newer text"  # not overwritten

    monkeypatch.setattr(ConflictDialog, "ask", staticmethod(lambda *a: ConflictDialog.MINE))
    view.detail.show_memory(seen.id)
    other = MemoryStore.open(demo_store.engine.url.database)
    other.update(seen.id, actor="agent", topic="moved on")
    other.close()
    view.detail.text.setPlainText("the operator's edit")
    view.detail.request_apply()
    now = demo_store.get(seen.id)
    assert now.text == "the operator's edit" and now.topic == "moved on"


def test_conflict_dialog_lists_each_side_as_plain_text(qtbot, store: MemoryStore) -> None:
    rec = store.add(user_id="u", text="<b>seen</b>", type="note")
    store.update(rec.id, actor="agent", text="<i>theirs</i>")
    exc = EditConflictError(rec.id, rec.version, rec.version + 1, store.get(rec.id))
    dlg = ConflictDialog(None, {"text": "<u>mine</u>"}, rec, exc)
    qtbot.addWidget(dlg)
    cells = [dlg.table.item(0, c).text() for c in range(4)]
    assert cells == ["text", "<b>seen</b>", "<u>mine</u>", "<i>theirs</i>"]
    dlg.mine_button.click()
    assert dlg.choice == ConflictDialog.MINE


def test_damaged_store_opens_read_only_with_a_banner(qtbot, window, tmp_path, dialogs):
    bad = tmp_path / "bad.db"
    shutil.copyfile(window.store.engine.url.database, bad)
    data = bytearray(bad.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page * 3 : page * 3 + 48] = b"\xff" * 48
    bad.write_bytes(bytes(data))
    before = hashlib.sha256(bad.read_bytes()).hexdigest()
    assert window.open_path(bad)
    assert window.store.report.read_only
    assert window.safety.banner.isVisible() and "damaged" in window.safety.banner.label.text()
    window.safety.task.wait()
    window.safety.background.wait()
    assert hashlib.sha256(bad.read_bytes()).hexdigest() == before


def test_wal_reset_banner_only_for_an_affected_sqlite(qtbot, window, monkeypatch) -> None:
    assert not window.safety.banner.isVisible()  # pysqlite3 (or a fixed SQLite) here
    monkeypatch.setattr(store_safety, "sqlite_info", lambda: SqliteInfo("3.40.1", True))
    window.safety.on_store(window.store)
    assert window.safety.banner.isVisible()
    assert "WAL-reset" in window.safety.banner.label.text()


def test_file_menu_check_backup_and_restore(qtbot, window, monkeypatch, dialogs) -> None:
    safety = window.safety
    path = Path(window.store.engine.url.database)
    titles = [a.text() for a in store_safety.file_menu(window).actions()]
    assert {"Check store", "Back up now", "Restore…"} <= set(titles)
    safety.background.wait()
    safety.check_action.trigger()
    qtbot.waitUntil(lambda: "no damage" in safety.last_message.lower(), timeout=20_000)
    safety.backup_action.trigger()
    qtbot.waitUntil(lambda: safety.last_message.startswith("Backed up"), timeout=20_000)
    backups = list_backups(path)
    assert {"open", "manual"} <= {b.reason for b in backups}  # automatic on open + ours
    rec = window.store.add(user_id="u", text="written after the backup", type="note")
    monkeypatch.setattr(QInputDialog, "getItem",
                        staticmethod(lambda *a, **k: (a[3][0], True)))  # the newest
    safety.restore_action.trigger()
    qtbot.waitUntil(lambda: safety.last_message.startswith("Restored"), timeout=20_000)
    assert not [r for r in window.store.page(limit=None) if r.id == rec.id]
    assert any(b.reason == "replaced" for b in list_backups(path))


def test_older_store_is_upgraded_only_after_asking(qtbot, window, tmp_path, monkeypatch,
                                                   dialogs) -> None:
    old = make_recall_store(tmp_path / "recall.db", rows=3)
    before = hashlib.sha256(old.read_bytes()).hexdigest()
    monkeypatch.setattr(store_safety, "ask_upgrade", lambda parent, msg: False)
    assert not window.open_path(old)
    assert hashlib.sha256(old.read_bytes()).hexdigest() == before
    monkeypatch.setattr(store_safety, "ask_upgrade", lambda parent, msg: True)
    assert window.open_path(old)
    assert window.store.count() == 3 and window.store.report.upgraded_from == "0001"
    assert [b.reason for b in list_backups(old)] == ["pre-0001"]


def test_undecodable_row_gives_a_readable_message_in_the_browser(qtbot, store,
                                                                 desk_for) -> None:
    import sqlite3

    store.add(user_id="u", text="fine", type="note")
    conn = sqlite3.connect(store.engine.url.database)
    conn.execute("UPDATE memories SET text = CAST(X'66ff6f' AS TEXT)")
    conn.commit()
    conn.close()
    view = BrowserView(desk_for(store))
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: "cannot read" in view.summary.text(), timeout=10_000)
    assert "Query failed" not in view.summary.text()


def test_settings_show_the_backups_folder(qtbot, tmp_path, _backups) -> None:
    from memdesk.ui.window.settings import SettingsDialog

    dlg = SettingsDialog(Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)))
    qtbot.addWidget(dlg)
    assert dlg.backups.text() == str(_backups)
