"""Archive and unarchive in the desk: Memory → Archive / Unarchive and the table's context
menu act on the Browse selection as one undoable action; the rows stay listed, marked
"archived" (italic) and found by the "Archived" filter; the detail pane says the memory
is archived; the shortcuts act only while the Browse view has the focus; a selection
the command cannot apply to is said, changing nothing."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QApplication

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.browse.browser_model import COLUMN_KEYS
from memdesk.ui.browse.filters import builtin_filters
from memdesk.ui.window.main_window import MainWindow

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(qtbot, store: MemoryStore, offline_settings):
    for i in range(4):
        store.add(user_id="alice", text=f"alice fact {i}", type="fact")
    w = MainWindow(store, offline_settings)
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    yield w
    w.close()


def browse(qtbot, w: MainWindow) -> BrowserView:
    view = w.views["browse"]
    assert isinstance(view, BrowserView)
    qtbot.waitUntil(lambda: not view.model.loading and view.model.rowCount() == 4,
                    timeout=10_000)
    return view


def select(view: BrowserView, rows: list[int]) -> list[str]:
    sm = view.table.selectionModel()
    sm.clearSelection()
    for r in rows:
        sm.select(view.model.index(r, 0), QItemSelectionModel.SelectionFlag.Select
                  | QItemSelectionModel.SelectionFlag.Rows)
    sm.setCurrentIndex(view.model.index(rows[-1], 0), QItemSelectionModel.SelectionFlag.NoUpdate)
    return [view.model.row_at(r).id for r in rows]


def status_cell(view: BrowserView, memory_id: str) -> tuple[str, bool]:
    row = view.model.row_of(memory_id)
    idx = view.model.index(row, COLUMN_KEYS.index("status"))
    font = view.model.data(idx, Qt.ItemDataRole.FontRole)
    return view.model.data(idx), bool(font is not None and font.italic())


def test_archive_by_shortcut_undo_and_unarchive_from_the_context_menu(
        qtbot, window: MainWindow, store: MemoryStore) -> None:
    view = browse(qtbot, window)
    ids = select(view, [0, 1])
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_A, CTRL_SHIFT)
    qtbot.waitUntil(lambda: store.get(ids[0]).status is Status.ARCHIVED, timeout=5000)
    assert [store.get(i).status for i in ids] == [Status.ARCHIVED] * 2
    # Still listed, marked; the detail pane says what it means.
    qtbot.waitUntil(lambda: status_cell(view, ids[0]) == ("archived", True), timeout=5000)
    select(view, [view.model.row_of(ids[1])])
    qtbot.waitUntil(lambda: view.detail.record is not None
                    and view.detail.record.id == ids[1], timeout=5000)
    assert "never recalled or injected" in view.detail.facts["status"].text()
    assert "archived" in view.detail.heading.text()
    assert window.undo_action.text() == "Undo archive of 2 memories"
    window.undo_action.trigger()
    qtbot.waitUntil(lambda: store.get(ids[0]).status is Status.ACTIVE, timeout=5000)
    window.redo_action.trigger()
    qtbot.waitUntil(lambda: store.get(ids[0]).status is Status.ARCHIVED, timeout=5000)
    # The context menu holds both; unarchive takes only the archived rows of a mixed
    # selection, archive only the others.
    assert {"Archive", "Unarchive"} <= {a.text() for a in view.table.actions()}
    rows = [view.model.row_of(i) for i in ids] + [2]
    select(view, rows)
    view.archiving.unarchive_action.trigger()
    qtbot.waitUntil(lambda: store.get(ids[0]).status is Status.ACTIVE, timeout=5000)
    assert [store.get(i).status for i in ids] == [Status.ACTIVE] * 2


def test_the_archived_filter_and_the_memory_menu(qtbot, window: MainWindow,
                                                 store: MemoryStore) -> None:
    view = browse(qtbot, window)
    [mid] = select(view, [3])
    assert {"Archive", "Unarchive"} <= {a.text() for a in window.memory_menu.actions()}
    view.archiving.archive_action.trigger()
    qtbot.waitUntil(lambda: store.get(mid).status is Status.ARCHIVED, timeout=5000)
    view.apply_filter(builtin_filters()["Archived"])
    qtbot.waitUntil(lambda: not view.model.loading and view.model.rowCount() == 1,
                    timeout=5000)
    assert view.model.row_at(0).id == mid


def test_a_selection_the_command_cannot_take_is_said(qtbot, window: MainWindow,
                                                     store: MemoryStore) -> None:
    view = browse(qtbot, window)
    [mid] = select(view, [0])
    view.archiving.unarchive_action.trigger()
    assert view.summary.text() == "None of the selected memories is archived."
    view.table.clearSelection()
    view.archiving.archive_action.trigger()
    assert view.summary.text() == "Select one or more memories first."
    assert store.get(mid).status is Status.ACTIVE and store.counts()["archived"] == 0


def test_the_shortcut_does_nothing_where_no_memory_selection_is_shown(
        qtbot, window: MainWindow, store: MemoryStore) -> None:
    view = browse(qtbot, window)
    ids = select(view, [0, 1, 2, 3])
    window.show_view("jobs")
    jobs = window.views["jobs"]
    qtbot.waitUntil(lambda: jobs.isVisible(), timeout=5000)
    jobs.setFocus()
    target = QApplication.focusWidget() or jobs
    qtbot.keyClick(target, Qt.Key.Key_A, CTRL_SHIFT)
    qtbot.wait(200)
    assert [store.get(i).status for i in ids] == [Status.ACTIVE] * 4
