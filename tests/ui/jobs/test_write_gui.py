"""The write path in the app: the worker thread processes queued jobs, the status bar
counts pending and failed jobs, the Jobs view shows and retries them, the detail pane
shows provenance, and "Embed missing vectors" fills vectors off the GUI thread."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QProgressDialog

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed
from memdesk.core.write.embed import missing_count
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from memdesk.ui.window.main_window import MainWindow
from memdesk.ui.window.settings import Settings

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    s = Settings(QSettings(str(tmp_path / "memdesk.ini"), QSettings.Format.IniFormat))
    s.ollama_host = "http://127.0.0.1:9"  # nothing listens: the heuristic fallback runs
    return s


@pytest.fixture
def window(qtbot, store: MemoryStore, settings: Settings):
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.close()
    assert not w.write_service.worker_running
    leaked = [x for x in QApplication.topLevelWidgets() if x.isVisible()]
    assert not leaked, f"leaked top-level widgets: {leaked}"


def test_worker_thread_processes_jobs_and_views_update(qtbot, window: MainWindow) -> None:
    store = window.store
    assert window.write_service.worker_running
    queue = JobQueue(store)
    failed = JobQueue(store).enqueue(Turn("I use vim", "zed"))
    queue.claim("elsewhere:1:x")
    queue.fail(failed, "elsewhere:1:x", "model 'big' not found")
    with qtbot.waitSignal(window.write_service.job_finished, timeout=60_000) as blocker:
        job_id = JobQueue(store).enqueue(Turn("I'm allergic to peanuts. Thanks!", "amy", "s1"))
    outcome = blocker.args[0]
    assert outcome.job_id == job_id and outcome.status == "done"
    [mid] = outcome.memory_ids
    label = window.write_service.label
    qtbot.waitUntil(lambda: label.text() == "Jobs: 0 pending · 1 failed", timeout=10_000)

    window.show_view("jobs")
    view = window.views["jobs"]
    qtbot.waitUntil(lambda: view.model.rowCount() == 2, timeout=10_000)
    rows = {view.model.row_at(r).id: r for r in range(2)}
    view.table.selectRow(rows[failed])
    assert view.retry_button.isEnabled()
    qtbot.waitUntil(lambda: "model 'big' not found" in view.details.toPlainText())
    view.table.selectRow(rows[job_id])
    assert not view.retry_button.isEnabled()
    qtbot.waitUntil(lambda: "amy" in view.details.toPlainText()
                    and "allergic to peanuts" in view.details.toPlainText(), timeout=10_000)
    assert "ollama failed" in view.details.toPlainText()  # the fallback reason, logged

    view.table.selectRow(rows[failed])
    with qtbot.waitSignal(window.write_service.job_finished, timeout=60_000) as blocker:
        view.retry_button.click()
    assert blocker.args[0].job_id == failed and blocker.args[0].status == "done"
    qtbot.waitUntil(lambda: label.text() == "Jobs: 0 pending · 0 failed", timeout=10_000)

    # the detail pane says which extractor wrote the memory
    window.show_view("browse")
    browser = window.views["browse"]
    detail = browser.detail
    detail.show_memory(mid)
    assert detail.facts["extracted_by"].text().startswith("heuristic, job ")
    rec = store.add(user_id="u", text="typed", type="note")
    detail.show_memory(rec.id)
    assert "not extracted" in detail.facts["extracted_by"].text()


def test_embed_missing_vectors_runs_off_the_gui_thread(qtbot, window: MainWindow,
                                                       embedder) -> None:  # type: ignore[no-untyped-def]
    store = window.store
    store.add_many([{"user_id": "u", "text": f"memory {i}", "type": "note"} for i in range(7)])
    assert missing_count(store) == 7
    # Through the desk's pipeline: its busy/idle signals and one broadcast of Changes.
    with qtbot.waitSignal(window.desk.busy) as busy, \
            qtbot.waitSignal(window.desk.changed, timeout=60_000) as changed:
        dialog = window.write_service.embed()
        assert isinstance(dialog, QProgressDialog) and dialog.isVisible()
    assert busy.args == ["Embed missing vectors"]
    assert changed.args[0].touches(Changed.MEMORIES) and missing_count(store) == 0
    assert not dialog.isVisible()
    assert dialog.labelText() == "Embedded 7 memories with all-MiniLM-L6-v2."


def test_embed_without_the_package_says_why(qtbot, window: MainWindow,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with qtbot.waitSignal(window.desk.failed) as blocker:
        assert window.write_service.embed() is None
    name, message = blocker.args
    assert name == "Embed missing vectors" and "sentence-transformers" in message
    [box] = [w for w in QApplication.topLevelWidgets()
             if isinstance(w, QMessageBox) and w.isVisible()]
    assert box.textFormat() == Qt.TextFormat.PlainText and "sentence-transformers" in box.text()
    box.close()


def test_the_embed_action_is_in_the_file_menu(window: MainWindow) -> None:
    assert window.write_service.embed_action in window.all_actions()
