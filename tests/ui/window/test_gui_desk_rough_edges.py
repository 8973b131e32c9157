"""What a new operator hits first in the desk: shortcuts that work, an edit that is never
lost without asking, ids shown whole, empty tables that explain themselves, undo labels
in English, hidden characters made visible, an About dialog."""

from __future__ import annotations

from collections import defaultdict

import pytest
from PySide6.QtCore import QItemSelectionModel
from PySide6.QtGui import QShortcut
from PySide6.QtWidgets import QApplication, QMessageBox

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.jobs.view import JobsView
from memdesk.ui.window.about import AboutDialog
from memdesk.ui.window.main_window import MainWindow

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture
def small_store(store: MemoryStore) -> MemoryStore:
    for i, text in enumerate(["User prefers tea.", "User lives in Porto.",
                              "User works at Acme Robotics as a firmware engineer."]):
        store.add(user_id="ana", text=text, type="fact", importance=0.4 + i / 10,
                  entity="user", attribute=f"a{i}", value=f"v{i}")
    return store


@pytest.fixture
def view(qtbot, small_store: MemoryStore, desk_for) -> BrowserView:
    v = BrowserView(desk_for(small_store))
    qtbot.addWidget(v)
    v.resize(1280, 700)
    v.show()
    qtbot.waitUntil(lambda: not v.model.loading and v.model.total == 3, timeout=10_000)
    qtbot.waitUntil(lambda: v.detail.record is not None, timeout=5_000)
    return v


class Answers(list):
    """Buttons to answer the next questions with, and the questions asked."""

    asked: list[str]


@pytest.fixture
def answers(monkeypatch) -> Answers:
    """Answers the unsaved-edit question with the queued buttons (nothing blocks)."""
    queue = Answers()
    queue.asked = []

    def fake_exec(self: QMessageBox) -> int:
        queue.asked.append(self.text())
        return int(queue.pop(0).value)

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    return queue


def test_no_two_commands_share_a_shortcut(qtbot, store: MemoryStore, offline_settings) -> None:
    w = MainWindow(store, offline_settings)
    qtbot.addWidget(w)
    w.show()
    owners: dict[str, list[str]] = defaultdict(list)
    for a in w.all_actions():
        for seq in a.shortcuts():
            owners[seq.toString()].append(a.text())
    for sc in w.findChildren(QShortcut):
        # Pane-local shortcuts (Ctrl+Return in the detail pane) mirror a menu command of
        # the same name; only window-wide ones can collide.
        if sc.context().name == "WindowShortcut" and not sc.key().isEmpty():
            owners[sc.key().toString()].append(f"shortcut of {sc.parent().objectName()}")
    twice = {k: v for k, v in owners.items() if len(set(v)) > 1}
    assert not twice, f"shortcuts bound twice (Qt then runs neither): {twice}"
    assert {"Embed missing vectors…", "Export memories…", "Import memories…",
            "Set importance…", "About memdesk"} <= {a.text() for a in w.all_actions()}
    w.close()


def test_about_says_which_version_and_libraries(qtbot) -> None:
    dlg = AboutDialog()
    qtbot.addWidget(dlg)
    text = dlg.details.text()
    assert text.startswith("memdesk ")
    for part in ("Python ", "SQLite ", "Qt ", "PySide6 "):
        assert part in text
    dlg.close()


def pick(view: BrowserView, row: int) -> None:
    """Select exactly ``row``, as a plain click does (QTableView.selectRow follows the
    keyboard modifiers Qt believes are held, which earlier tests' key events can leave)."""
    sm = view.table.selectionModel()
    flags = (QItemSelectionModel.SelectionFlag.ClearAndSelect
             | QItemSelectionModel.SelectionFlag.Rows
             | QItemSelectionModel.SelectionFlag.Current)
    sm.setCurrentIndex(view.model.index(row, 0), flags)


def _type_an_edit(qtbot, view: BrowserView) -> str:
    pick(view, 0)
    first = view.detail.record.id
    view.detail.text.setPlainText("User prefers green tea.")
    assert view.detail.has_unsaved()
    return first


def test_cancel_keeps_the_typed_edit_and_the_row(qtbot, view: BrowserView, answers) -> None:
    first = _type_an_edit(qtbot, view)
    answers.append(QMessageBox.StandardButton.Cancel)
    pick(view, 1)
    assert answers.asked and "text" in answers.asked[0]
    assert view.detail.record.id == first
    assert view.detail.text.toPlainText() == "User prefers green tea."
    assert view.selected_ids() == [first]


def test_discard_drops_the_edit_and_moves_on(qtbot, view: BrowserView, answers,
                                             small_store: MemoryStore) -> None:
    first = _type_an_edit(qtbot, view)
    answers.append(QMessageBox.StandardButton.Discard)
    pick(view, 1)
    assert view.detail.record.id != first
    assert small_store.get(first).text != "User prefers green tea."


def test_apply_stores_the_edit_then_moves_on(qtbot, view: BrowserView, answers,
                                             small_store: MemoryStore) -> None:
    first = _type_an_edit(qtbot, view)
    answers.append(QMessageBox.StandardButton.Apply)
    pick(view, 1)
    qtbot.waitUntil(lambda: small_store.get(first).text == "User prefers green tea.",
                    timeout=5_000)
    assert view.detail.record.id != first


def test_no_question_without_an_edit(qtbot, view: BrowserView, answers) -> None:
    pick(view, 0)
    pick(view, 1)
    assert answers.asked == []


def test_the_id_is_shown_whole_and_can_be_copied(qtbot, view: BrowserView) -> None:
    pick(view, 2)
    rec = view.detail.record
    box = view.detail.id_field
    assert box.toPlainText() == rec.id  # copied as it is stored
    assert box.isReadOnly()
    # Whole on screen: the pane fits its scroll area, and the id's lines fit its box.
    qtbot.waitUntil(lambda: box.document().size().height() > 0)
    assert box.verticalScrollBar().maximum() == 0
    pane = view.detail
    assert pane.apply_button.mapTo(pane, pane.apply_button.rect().topRight()).x() <= pane.width()


def test_a_search_without_results_says_so_and_empties_the_pane(qtbot, view: BrowserView
                                                               ) -> None:
    view.set_filter(MemoryFilter(text="zebraxylophone"))
    qtbot.waitUntil(lambda: not view.model.loading and view.model.total == 0, timeout=5_000)
    qtbot.waitUntil(lambda: view.empty_note.is_shown(), timeout=5_000)
    assert "No memory matches" in view.empty_note.text()
    assert view.detail.record is None
    view.set_filter(MemoryFilter())
    qtbot.waitUntil(lambda: view.model.total == 3, timeout=5_000)
    qtbot.waitUntil(lambda: not view.empty_note.is_shown(), timeout=5_000)


def test_an_empty_job_queue_says_what_a_job_is(qtbot, store: MemoryStore, desk_for) -> None:
    v = JobsView(desk_for(store))
    qtbot.addWidget(v)
    v.show()
    qtbot.waitUntil(lambda: v.empty_note.is_shown(), timeout=5_000)
    assert "A job is one conversation turn" in v.empty_note.text()


def test_undo_labels_read_as_english(qtbot, view: BrowserView) -> None:
    pick(view, 0)
    view.delete_selected()
    qtbot.waitUntil(lambda: view.undo_stack.count() == 1, timeout=5_000)
    assert view.undo_stack.undoText() == "soft-delete of 1 memory"
    view.table.selectAll()
    view.delete_selected()
    qtbot.waitUntil(lambda: view.undo_stack.count() == 2, timeout=5_000)
    assert view.undo_stack.undoText().endswith(" memories")


def test_hidden_characters_are_shown_not_obeyed(qtbot, store: MemoryStore, desk_for) -> None:
    tricky = "Invoice for Bob: report\u202egpj.exe, paid\u200b in full"
    rec = store.add(user_id="ana", text=tricky, type="note", importance=0.5)
    v = BrowserView(desk_for(store))
    qtbot.addWidget(v)
    v.show()
    qtbot.waitUntil(lambda: v.detail.record is not None, timeout=10_000)
    assert v.detail.record.id == rec.id
    note = v.detail.hidden_note
    assert not note.isHidden()
    assert "2 invisible or direction-control characters" in note.text()
    assert "report⟨U+202E⟩gpj.exe" in note.text() and "paid⟨U+200B⟩" in note.text()
    # The editor keeps the stored text exactly: applying nothing changes nothing.
    assert v.detail.text.toPlainText() == tricky
    assert v.detail.edited_fields() == {}


def test_writing_in_other_scripts_is_not_flagged(qtbot, store: MemoryStore, desk_for) -> None:
    store.add(user_id="ana", text="המשפחה שלי 👨\u200d👩\u200d👧 گفت\u200cوگو", type="note",
              importance=0.5)
    v = BrowserView(desk_for(store))
    qtbot.addWidget(v)
    v.show()
    qtbot.waitUntil(lambda: v.detail.record is not None, timeout=10_000)
    assert v.detail.hidden_note.isHidden()


def test_no_leaked_dialogs(qapp) -> None:
    assert not [w for w in QApplication.topLevelWidgets()
                if isinstance(w, QMessageBox) and w.isVisible()]


def test_user_text_in_the_apps_own_lines_is_isolated_and_revealed() -> None:
    from memdesk.ui.desk.text import count_of, elide_middle, isolate, reveal

    name = "txt\u202eexe.doc"
    line = f"Edited {isolate(name)} · risk 0.399"
    assert line.endswith("\u2069 · risk 0.399")  # what follows the value is the app's
    assert "\u202e" not in line and "⟨U+202E⟩" in line
    assert reveal("a\u200bb\nc\td") == "a⟨U+200B⟩b\nc\td"  # layout characters stay
    assert reveal("\U000e0049\U000e0067") == "⟨U+E0049⟩⟨U+E0067⟩"  # tag characters
    # Genuine writing is untouched: joiners inside emoji and Persian, Hebrew as it is.
    for text in ("👨\u200d👩\u200d👧", "می\u200cخواهم", "שלום עולם"):
        assert reveal(text) == text
    assert reveal("ad\u200dmin") == "ad⟨U+200D⟩min"  # a joiner hiding inside a word
    assert count_of(1, "memory", "memories") == "1 memory"
    assert count_of(1200, "memory", "memories") == "1,200 memories"
    assert elide_middle("/home/ana/.local/share/memdesk/backups/memdesk-20261125.db", 30
                        ).endswith("memdesk-20261125.db")
