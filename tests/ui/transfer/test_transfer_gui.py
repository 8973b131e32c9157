"""File → Import… / Export…: background ops through the desk's pipeline, with a progress
dialog and Cancel, the import on the undo stack as one step."""

from __future__ import annotations

import io
import json
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox, QPushButton

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.transfer import formats
from memdesk.core.transfer.importer import Candidate, Source
from memdesk.core.transfer.jsonl import export_jsonl
from memdesk.ui.transfer.import_export import ImportOptions, browser_filter
from memdesk.ui.window.main_window import MainWindow
from memdesk.ui.window.settings import Settings

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture
def window(qtbot, store: MemoryStore, tmp_path: Path):
    settings = Settings(QSettings(str(tmp_path / "memdesk.ini"), QSettings.Format.IniFormat))
    settings.ollama_host = "http://127.0.0.1:9"  # nothing listens there: fails fast
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.desk.wait_idle()
    w.close()


def lines(n: int, bad: dict[int, str] | None = None) -> bytes:
    out = []
    for i in range(1, n + 1):
        out.append((bad or {}).get(i) or json.dumps(
            {"id": f"m{i}", "user_id": "u", "text": f"memory {i}", "type": "fact"}))
    return ("\n".join(out) + "\n").encode()


def test_file_menu_has_import_and_export(window: MainWindow) -> None:
    texts = [a.text() for a in window.all_actions()]
    assert "Import memories…" in texts and "Export memories…" in texts
    assert window.transfers.import_action.shortcut().toString() == "Ctrl+Shift+I"


def test_import_reports_and_undoes_as_one_step(qtbot, window: MainWindow,
                                               tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(lines(30, {7: '{"id": "m7", "user_id": "u", "text": "x", "type": "oops"}'}))
    changed: list = []
    window.changed.connect(changed.append)
    with qtbot.waitSignal(window.transfers.imported, timeout=30_000) as sig:
        window.transfers.start_import(str(src))
    report = sig.args[0]
    assert (report.imported, [b.number for b in report.bad]) == (29, [7])
    assert window.store.count() == 29
    dlg = window.transfers.report_dialog
    assert "imported 29" in dlg.summary.text()
    assert "line 7 (id m7): type: unknown type 'oops'" in dlg.details.toPlainText()
    # the window was told, and Edit → Undo takes the whole import back
    assert changed and set(changed[-1].memory_ids) == {f"m{i}" for i in range(1, 31)} - {"m7"}
    assert window.undo_stack.undoText() == "import of 29 memories"
    # the browser shows the new memories (its refresh alone only patches loaded rows)
    model = window.views["browse"].model
    qtbot.waitUntil(lambda: model.rowCount() == 29, timeout=10_000)
    window.undo_stack.undo()
    assert window.store.count() == 0 and window.store.counts()["deleted"] == 29
    window.undo_stack.redo()
    assert window.store.count() == 29
    dlg.close()


def test_import_failure_is_a_dialog(qtbot, window: MainWindow, tmp_path: Path,
                                    monkeypatch) -> None:
    shown: list[QMessageBox] = []
    monkeypatch.setattr(QMessageBox, "open", lambda self: shown.append(self))
    with qtbot.waitSignal(window.transfers.failed, timeout=30_000):
        window.transfers.start_import(str(tmp_path / "missing.jsonl"))
    assert shown and "There is no file" in shown[0].text()  # the desk's error channel
    assert window.store.count() == 0 and not window.transfers.busy
    assert window.undo_stack.count() == 0


def test_export_writes_the_same_bytes_as_the_core(qtbot, window: MainWindow,
                                                  tmp_path: Path) -> None:
    window.store.add_many([{"user_id": "u", "text": f"t{i}", "type": "note"}
                           for i in range(40)])
    out = tmp_path / "out.jsonl"
    with qtbot.waitSignal(window.transfers.exported, timeout=30_000) as sig:
        window.transfers.start_export(str(out))
    assert sig.args[0].written == 40
    expected = io.BytesIO()
    export_jsonl(window.store, expected)
    assert out.read_bytes() == expected.getvalue()
    assert "Exported 40 memories" in window.statusBar().currentMessage()


def test_export_of_what_the_browser_shows(qtbot, window: MainWindow, tmp_path: Path) -> None:
    ids = window.store.add_many([{"user_id": u, "text": f"t {u}", "type": "note"}
                                 for u in ("ann", "ann", "bob")])
    window.store.soft_delete(ids[1])
    window.show_view("browse")
    flt = browser_filter(window)
    assert flt is not None and Status.DELETED not in flt.statuses  # the browser hides them
    out = tmp_path / "shown.jsonl"
    with qtbot.waitSignal(window.transfers.exported, timeout=30_000):
        window.transfers.start_export(str(out), flt=flt.with_(user_ids=("ann",)))
    assert [json.loads(x)["id"] for x in out.read_bytes().splitlines()] == [ids[0]]


def test_export_onto_the_store_is_refused(qtbot, window: MainWindow, monkeypatch) -> None:
    shown: list[QMessageBox] = []
    monkeypatch.setattr(QMessageBox, "open", lambda self: shown.append(self))
    with qtbot.waitSignal(window.transfers.failed, timeout=30_000):
        window.transfers.start_export(str(window.store.engine.url.database))
    assert shown and "the store itself" in shown[0].text()


class GatedSource(Source):
    """Yields one memory, then waits for the test before yielding the next."""

    unit, kind, label = "line", "test", "gated"

    def __init__(self) -> None:
        super().__init__()
        self.waiting, self.gate = threading.Event(), threading.Event()

    def __iter__(self):
        for n in (1, 2, 3):
            if n == 2:
                self.waiting.set()
                assert self.gate.wait(20), "the test never opened the gate"
            yield Candidate(n, {"id": f"g{n}", "user_id": "u", "text": f"t{n}",
                                "type": "fact"}, None, n)


def test_cancel_keeps_what_was_imported_and_undoable(qtbot, window: MainWindow,
                                                     monkeypatch) -> None:
    source = GatedSource()

    @contextmanager
    def fake_open(*_a, **_k):
        yield source

    monkeypatch.setattr(formats, "open_source", fake_open)
    with qtbot.waitSignal(window.transfers.imported, timeout=30_000) as sig:
        window.transfers.start_import("gated.jsonl")
        assert source.waiting.wait(20)
        window.transfers.progress.findChild(QPushButton).click()  # the dialog's Cancel
        source.gate.set()
    report = sig.args[0]
    assert report.cancelled and report.imported == 1 and report.stopped_at == 1
    assert window.store.count() == 1 and not window.transfers.busy
    assert window.transfers.report_dialog.windowTitle() == "Import cancelled"
    window.undo_stack.undo()  # what a cancelled import wrote is still one undo step
    assert window.store.count() == 0
    window.transfers.report_dialog.close()


def test_import_options_dialog(qtbot) -> None:
    dlg = ImportOptions("/tmp/x.json")
    qtbot.addWidget(dlg)
    dlg.format.setCurrentIndex(dlg.format.findData("mem0"))
    dlg.on_existing.setCurrentIndex(1)
    dlg.default_user.setText("  ops ")
    assert dlg.values() == {"fmt": "mem0", "on_existing": "update", "default_user": "ops"}
