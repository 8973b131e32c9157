"""File → Import's preview: computed off the GUI thread with a progress dialog and
Cancel, shown before anything is written, then import all, import without the
duplicates, or cancel."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QPushButton

from memdesk.core import embeddings
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.transfer import formats
from memdesk.core.transfer.importer import Candidate, Source
from memdesk.core.write.embed import backfill
from memdesk.ui.transfer.import_export import ImportOptions
from memdesk.ui.window.main_window import MainWindow
from memdesk.ui.window.settings import Settings
from tests.helpers.import_preview import NearEmbedder, jsonl

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]
NEAR = ("User likes jazz music", "User enjoys listening to jazz")


@pytest.fixture
def window(qtbot, store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    e = NearEmbedder(NEAR)
    monkeypatch.setattr(embeddings, "default_embedder", lambda: e)
    store.add_many([{"id": "s1", "user_id": "ann", "text": "User likes jazz music",
                     "type": "preference"},
                    {"id": "s2", "user_id": "ann", "text": "User lives in Lisbon",
                     "type": "fact", "entity": "user", "attribute": "home_city",
                     "value": "Lisbon"}])
    backfill(store, embedder=e)
    settings = Settings(QSettings(str(tmp_path / "memdesk.ini"), QSettings.Format.IniFormat))
    settings.ollama_host = "http://127.0.0.1:9"  # nothing listens there: fails fast
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.desk.wait_idle()
    w.close()


def source_file(tmp_path: Path) -> Path:
    return jsonl(tmp_path / "in.jsonl", [
        {"id": "n1", "user_id": "ann", "text": "User enjoys listening to jazz",
         "type": "preference"},
        {"id": "n2", "user_id": "ann", "text": "User lives in Porto", "type": "fact",
         "entity": "user", "attribute": "home_city", "value": "Porto"},
        {"id": "n3", "user_id": "bob", "text": "Bob plays chess", "type": "fact"},
        {"id": "n4", "user_id": "bob", "text": "bob plays chess!", "type": "fact"},
        {"id": "n5", "user_id": "bob", "text": "My password is hunter2, remember it",
         "type": "fact"},
        "not json",
    ])


def events(store: MemoryStore) -> int:
    with store.read() as conn:
        return int(conn.exec_driver_sql("SELECT count(*) FROM memory_events").scalar_one())


def preview_of(qtbot, window: MainWindow, path: Path):
    with qtbot.waitSignal(window.transfers.previewed, timeout=60_000) as sig:
        assert window.transfers.start_preview(str(path))
    return sig.args[0], window.transfers.preview_dialog


def test_the_preview_shows_what_would_happen_and_writes_nothing(
        qtbot, window: MainWindow, tmp_path: Path) -> None:
    before = (window.store.count(), events(window.store))
    preview, dlg = preview_of(qtbot, window, source_file(tmp_path))
    assert (window.store.count(), events(window.store)) == before
    assert not preview.cancelled and preview.skip == {1, 3}  # n1 (of the store), n3
    summary = dlg.summary.text()
    assert "would add 5 memories (3 without the duplicates)" in summary
    assert "would duplicate 2: 1 what the store holds, 1 each other" in summary
    assert "would contradict 1: 1 what the store holds" in summary
    assert "secrets or personal data found in 1" in summary
    assert "bad lines (not importable): 1" in summary
    details = dlg.details.toPlainText()
    assert "line 6: not JSON" in details and "[Lisbon] User lives in Lisbon" in details
    assert dlg.import_all.text() == "Import all (5)"
    assert dlg.without.text() == "Import without the duplicates (3)"
    dlg.cancel.click()
    assert (window.store.count(), events(window.store)) == before
    assert "nothing was written" in window.statusBar().currentMessage()
    assert window.undo_stack.count() == 0


def test_import_without_the_duplicates_is_one_undo_step(qtbot, window: MainWindow,
                                                        tmp_path: Path) -> None:
    _, dlg = preview_of(qtbot, window, source_file(tmp_path))
    with qtbot.waitSignal(window.transfers.imported, timeout=30_000) as sig:
        dlg.without.click()
    report = sig.args[0]
    assert (report.imported, report.skipped_duplicates) == (3, 2)
    assert window.store.count() == 2 + 3
    assert {window.store.get(i).id for i in ("n2", "n4", "n5")} == {"n2", "n4", "n5"}
    assert "left out 2 duplicates" in window.transfers.report_dialog.summary.text()
    window.undo_stack.undo()
    assert window.store.count() == 2
    window.transfers.report_dialog.close()


def test_import_all_imports_every_good_item(qtbot, window: MainWindow, tmp_path: Path) -> None:
    _, dlg = preview_of(qtbot, window, source_file(tmp_path))
    with qtbot.waitSignal(window.transfers.imported, timeout=30_000) as sig:
        dlg.import_all.click()
    assert sig.args[0].imported == 5 and window.store.count() == 7
    window.transfers.report_dialog.close()


def test_file_import_goes_through_the_preview(qtbot, window: MainWindow, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = source_file(tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_a, **_k: (str(path), ""))
    monkeypatch.setattr(ImportOptions, "exec", lambda self: 1)
    with qtbot.waitSignal(window.transfers.previewed, timeout=60_000):
        window.transfers.import_action.trigger()
    assert window.store.count() == 2  # only previewed: the choice is the operator's
    window.transfers.preview_dialog.cancel.click()


class GatedSource(Source):
    """Yields one batch of memories, then waits for the test; records its thread."""

    unit, kind, label, total = "line", "test", "gated", 2000

    def __init__(self) -> None:
        super().__init__()
        self.waiting, self.gate = threading.Event(), threading.Event()
        self.threads: set[str] = set()

    def __iter__(self):
        for n in range(1, 2001):
            self.threads.add(threading.current_thread().name)
            if n == 600:
                self.waiting.set()
                assert self.gate.wait(20), "the test never opened the gate"
            yield Candidate(n, {"id": f"g{n}", "user_id": "u", "text": f"t{n}",
                                "type": "fact"}, None, n)


def test_cancel_stops_the_preview_off_the_gui_thread(qtbot, window: MainWindow,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    source = GatedSource()

    @contextmanager
    def fake_open(*_a, **_k):
        yield source

    monkeypatch.setattr(formats, "open_source", fake_open)
    before = (window.store.count(), events(window.store))
    with qtbot.waitSignal(window.transfers.previewed, timeout=30_000) as sig:
        window.transfers.start_preview("gated.jsonl")
        assert source.waiting.wait(20)
        progress = window.transfers.progress
        qtbot.waitUntil(lambda: progress.value() > 0, timeout=10_000)  # the bar moved
        progress.findChild(QPushButton).click()  # the progress dialog's Cancel
        source.gate.set()
    preview = sig.args[0]
    assert preview.cancelled and preview.stopped_at is not None and preview.stopped_at < 2000
    assert threading.main_thread().name not in source.threads
    assert (window.store.count(), events(window.store)) == before
    assert window.transfers.preview_dialog is None and not window.transfers.busy
    assert "Import preview cancelled; nothing was written" in (
        window.statusBar().currentMessage())


def test_an_unusable_file_is_the_desks_error(qtbot, window: MainWindow, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    shown: list[QMessageBox] = []
    monkeypatch.setattr(QMessageBox, "open", lambda self: shown.append(self))
    f = tmp_path / "photo.jpg"
    f.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" * 50)
    with qtbot.waitSignal(window.transfers.failed, timeout=30_000):
        window.transfers.start_preview(str(f))
    assert shown and "is a binary file, not memories" in shown[0].text()
    assert window.store.count() == 2 and not window.transfers.busy


def test_an_empty_file_offers_nothing_to_import(qtbot, window: MainWindow,
                                                tmp_path: Path) -> None:
    f = tmp_path / "empty.jsonl"
    f.write_text("")
    _, dlg = preview_of(qtbot, window, f)
    assert "holds no memories" in dlg.summary.text()
    assert not dlg.import_all.isEnabled() and not dlg.without.isEnabled()
    dlg.cancel.click()


def test_hidden_characters_in_memories_are_shown(qtbot, window: MainWindow,
                                                 tmp_path: Path) -> None:
    f = tmp_path / "bidi.jsonl"
    f.write_text(json.dumps({"user_id": "ann", "text": "User likes jazz music\u202e",
                             "type": "preference"}) + "\n")
    _, dlg = preview_of(qtbot, window, f)
    assert "U+202E" in dlg.details.toPlainText() and "\u202e" not in dlg.details.toPlainText()
    dlg.cancel.click()


def test_a_file_changed_since_its_preview_is_not_imported_without_duplicates(
        qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    shown: list[QMessageBox] = []
    monkeypatch.setattr(QMessageBox, "open", lambda self: shown.append(self))
    path = source_file(tmp_path)
    _, dlg = preview_of(qtbot, window, path)
    with path.open("a") as f:  # another line since: the preview's skips no longer fit
        f.write(json.dumps({"user_id": "bob", "text": "Bob plays chess", "type": "fact"}) + "\n")
    with qtbot.waitSignal(window.transfers.failed, timeout=30_000):
        dlg.without.click()
    assert shown and "changed since it was previewed" in shown[0].text()
    assert window.store.count() == 2
