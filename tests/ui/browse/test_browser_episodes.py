"""Episodes in the browser: the "Episodes" filter finds the turns, the table names who
said each, and the detail pane shows a unit's source turn and an episode's units, both
openable — with the agent's text shown as plain, revealed text."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.browse.browser_model import COLUMN_KEYS, BrowserModel
from memdesk.ui.browse.filters import builtin_filters
from tests.helpers.episodes import say

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]
FSI, PDI = "\u2068", "\u2069"


@pytest.fixture(autouse=True)
def _no_leaked_windows(qapp):
    yield
    leaked = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    for w in leaked:
        w.close()
    assert not leaked, f"leaked top-level widgets: {leaked}"


def wait_loaded(qtbot, model: BrowserModel) -> None:
    qtbot.waitUntil(lambda: not model.loading and model.total is not None, timeout=10_000)


def make_view(qtbot, store: MemoryStore, desk_for) -> BrowserView:
    view = BrowserView(desk_for(store))
    qtbot.addWidget(view)
    wait_loaded(qtbot, view.model)
    return view


def cell(model: BrowserModel, memory_id: str, key: str,
         role: Qt.ItemDataRole = Qt.ItemDataRole.DisplayRole) -> str:
    row = model.row_of(memory_id)
    assert row is not None
    return str(model.index(row, COLUMN_KEYS.index(key)).data(role))


def test_the_episodes_filter_lists_the_turns_and_names_their_speaker(
        qtbot, desk_for, store: MemoryStore) -> None:
    moved = say(store, "I moved to Lisbon last Saturday and I work at Siemens now.")
    noted = say(store, "Noted, I will remember that.", speaker="assistant")
    store.add(user_id="mel", text="Operator note: Mel prefers email.", type="note")
    view = make_view(qtbot, store, desk_for)
    assert view.filters.type.findText("episode") >= 0  # the type picker offers it
    view.apply_filter(builtin_filters()["Episodes"])
    wait_loaded(qtbot, view.model)
    shown = {view.model.row_at(i).id for i in range(view.model.rowCount())}
    assert shown == {moved.episode_id, noted.episode_id} and view.model.total == 2
    text = cell(view.model, moved.episode_id, "text")
    assert text == f"{FSI}Melanie{PDI}: I moved to Lisbon last Saturday and I work at " \
        "Siemens now."
    assert cell(view.model, noted.episode_id, "text").startswith(f"{FSI}assistant{PDI}: ")
    tip = cell(view.model, moved.episode_id, "text", Qt.ItemDataRole.ToolTipRole)
    assert "Said at: 2023-05-08 13:56" in tip and "Happened: 2023-05-06" in tip
    assert "last Saturday" in tip
    view.wait_idle()


def test_a_units_pane_shows_its_turn_and_opens_it_and_back(
        qtbot, desk_for, store: MemoryStore) -> None:
    out = say(store, "I moved to Lisbon last Saturday and I work at Siemens now.")
    unit = out.memory_ids[0]
    view = make_view(qtbot, store, desk_for)
    view.open_memory(unit)
    panel = view.detail.episode
    assert view.detail.record is not None and view.detail.record.id == unit
    assert not panel.isHidden() and not panel.source_box.isHidden()
    assert panel.fields["speaker"].text() == f"{FSI}Melanie{PDI}"
    assert panel.fields["session"].text() == f"{FSI}s1{PDI}"
    assert panel.fields["said_at"].text() == "2023-05-08 13:56"
    assert panel.fields["happened"].text().startswith("2023-05-06 (from ")
    assert panel.turn.toPlainText() == "I moved to Lisbon last Saturday and I work at " \
        "Siemens now."
    qtbot.mouseClick(panel.open_button, Qt.MouseButton.LeftButton)
    assert view.detail.record.id == out.episode_id
    # The episode itself: its units, openable; no source turn of its own.
    assert panel.source_box.isHidden() and not panel.units_box.isHidden()
    assert panel.unit_ids == out.memory_ids
    assert panel.units_model.rowCount() == len(out.memory_ids)
    assert "2 units extracted" in panel.units_note.text()
    panel.units_view.activated.emit(panel.units_model.index(1, 2))
    assert view.detail.record.id == out.memory_ids[1]
    view.wait_idle()


def test_an_episode_with_no_time_says_why_and_one_with_no_units_says_so(
        qtbot, desk_for, store: MemoryStore) -> None:
    vague = say(store, "We met the whole team the other day.")
    undated = say(store, "Noted, I will remember that.", speaker=None, said_at=None)
    view = make_view(qtbot, store, desk_for)
    panel = view.detail.episode
    view.open_memory(vague.episode_id)
    assert panel.fields["happened"].text().startswith("not dated: ")
    assert "too vague to date" in panel.fields["happened"].text()
    view.open_memory(undated.episode_id)
    assert panel.fields["speaker"].text() == "not given"
    assert panel.fields["said_at"].text().startswith("not given")
    assert panel.fields["happened"].text() == "names no time"
    assert panel.unit_ids == [] and "No unit was extracted" in panel.units_note.text()
    assert panel.units_view.isHidden()
    view.wait_idle()


def test_a_memory_with_no_episode_hides_the_box(qtbot, desk_for, store: MemoryStore) -> None:
    added = store.add(user_id="mel", text="Operator note: Mel prefers email.", type="note")
    out = say(store, "I'm vegetarian.")
    view = make_view(qtbot, store, desk_for)
    view.open_memory(out.memory_ids[0])
    assert not view.detail.episode.isHidden()
    view.open_memory(added.id)
    assert view.detail.episode.isHidden()
    view.wait_idle()


def test_hostile_turn_and_speaker_stay_plain_text(qtbot, desk_for, store: MemoryStore) -> None:
    rlo = "\u202e"
    out = say(store, f"I'm vegetarian. <b>bold</b> <img src=x> fdp.{rlo}exe",
              speaker=f"Mel{rlo}anie\nSYSTEM")
    view = make_view(qtbot, store, desk_for)
    view.open_memory(out.memory_ids[0])
    panel = view.detail.episode
    shown = panel.turn.toPlainText()
    assert "<b>bold</b> <img src=x>" in shown and "⟨U+202E⟩" in shown and rlo not in shown
    assert "1 hidden character" in panel.turn_note.text()
    speaker = panel.fields["speaker"].text()
    assert speaker == f"{FSI}Mel⟨U+202E⟩anie⟨U+000A⟩SYSTEM{PDI}"
    assert panel.fields["speaker"].textFormat() == Qt.TextFormat.PlainText
    view.wait_idle()


def test_a_stored_value_with_spaces_is_no_unsaved_edit(qtbot, desk_for,
                                                       store: MemoryStore) -> None:
    """The demo's planted duplicate "User lives in  lisbon " stores " lisbon ": shown
    and left untouched, it must not ask "Unsaved edit" (a modal that blocked the way to
    the next memory and its episode)."""
    spaced = store.add(user_id="mel", text="User lives in  lisbon ", type="fact",
                       entity="user", attribute="lives_in", value=" lisbon ", topic=" home ")
    out = say(store, "I'm vegetarian.")
    view = make_view(qtbot, store, desk_for)
    view.open_memory(spaced.id)
    assert view.detail.record is not None and view.detail.record.id == spaced.id
    assert view.detail.edited_fields() == {} and not view.detail.has_unsaved()
    view.open_memory(out.memory_ids[0])  # no question asked: it simply goes there
    assert view.detail.record.id == out.memory_ids[0]
    view.open_memory(spaced.id)
    view.detail.value.setText("Porto")  # a real edit still counts
    assert view.detail.edited_fields() == {"value": "Porto"}
    view.wait_idle()
