"""Memory → Erase permanently…: the dialog names what will be gone (a turn's units too),
Erase waits for that list and the operator's "I understand", the purge runs off the GUI
thread and is not put on the undo stack, and the receipt can be saved (no text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memdesk.core.errors import NotFoundError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from tests.helpers.episodes import say

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture(autouse=True)
def _no_leaked_windows(qapp):  # type: ignore[no-untyped-def]
    yield
    leaked = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    for w in leaked:
        w.close()
    assert not leaked, f"leaked top-level widgets: {leaked}"


def open_dialog(qtbot, store: MemoryStore, desk_for, memory_id: str):  # type: ignore[no-untyped-def]
    view = BrowserView(desk_for(store))
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: not view.model.loading and view.model.total is not None)
    view.wait_idle()
    row = next(i for i in range(view.model.rowCount())
               if view.model.row_at(i).id == memory_id)
    view.table.selectRow(row)
    action = next(a for a in view.view_actions() if a.text() == "Erase permanently…")
    assert action in view.table.actions()  # the table's context menu holds it too
    action.trigger()
    dlg = view.erase_dialog
    assert dlg is not None and dlg.isVisible()
    qtbot.waitUntil(lambda: dlg.plan is not None, timeout=10_000)
    return view, dlg


def test_the_dialog_names_the_family_and_erasing_cannot_be_undone(
        qtbot, store: MemoryStore, desk_for, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = say(store, "I live in Zqvorthax and I love blemmivants.")
    store.add(user_id="mel", text="Mel likes green tea", type="preference", actor="operator")
    view, dlg = open_dialog(qtbot, store, desk_for, out.memory_ids[0])
    shown = dlg.what.text()
    assert "Erases 3 memories" in shown and "Zqvorthax" in shown
    for mid in (out.episode_id, *out.memory_ids):
        assert mid in shown
    assert not dlg.erase_button.isEnabled()  # not before "I understand"
    dlg.understood.setChecked(True)
    assert dlg.erase_button.isEnabled()
    qtbot.mouseClick(dlg.erase_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.receipt_dialog is not None, timeout=30_000)
    qtbot.waitUntil(lambda: not view.desk.running, timeout=10_000)
    for mid in (out.episode_id, *out.memory_ids):
        with pytest.raises(NotFoundError, match="erased permanently"):
            store.get(mid)
    assert view.desk.undo_stack.count() == 0  # nothing to undo: it is gone
    receipt = view.receipt_dialog
    assert "erased — 3 memories" in receipt.summary.text()
    path = tmp_path / "receipt.json"
    receipt.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["verdict"] == "erased" and len(data["erased"]) == 3
    assert "zqvorthax" not in path.read_text(encoding="utf-8").lower()
    receipt.close()


def test_cancel_and_refusals_erase_nothing(qtbot, store: MemoryStore, desk_for) -> None:  # type: ignore[no-untyped-def]
    mid = store.add(user_id="mel", text="Mel's Vexquillan locker", type="fact").id
    view, dlg = open_dialog(qtbot, store, desk_for, mid)
    dlg.understood.setChecked(True)
    dlg.reject()
    assert store.get(mid).text == "Mel's Vexquillan locker"
    view.erase(mid)
    qtbot.waitUntil(lambda: view.receipt_dialog is not None, timeout=30_000)
    view.receipt_dialog.close()
    view.erase(mid)  # again: already erased, said as the desk says every failure
    qtbot.waitUntil(lambda: not view.desk.running, timeout=10_000)
    assert "erased permanently" in (view.desk.last_error or "")
