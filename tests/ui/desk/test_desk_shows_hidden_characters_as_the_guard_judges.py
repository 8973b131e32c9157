"""The desk shows a text's hidden characters as ⟨U+XXXX⟩ exactly where the guard finds
something hidden (never its own second opinion), and the Retrieval inspector lists user
ids with line breaks, controls or overrides one per row, visible and isolated."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from memdesk.core.guard.reveal import reveal as guard_reveal
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.desk.text import FSI, PDI, hidden_count, reveal
from memdesk.ui.retrieval.view import RetrievalView

pytestmark = pytest.mark.gui

# (text, what the desk shows): real writing kept, hiding characters shown.
CASES = [
    ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),  # an emoji family's joiners
    ("می\u200cخواهم", "می\u200cخواهم"),  # a Persian non-joiner
    ("\u2067שלום\u2069 עולם", "\u2067שלום\u2069 עולם"),  # balanced isolates, Hebrew
    ("ภาษา\u200bไทย", "ภาษา\u200bไทย"),  # a word break in Thai
    ("\ufeffstart", "\ufeffstart"),  # a byte-order mark at the start
    ("ad\u200dmin", "ad⟨U+200D⟩min"),  # a joiner inside a Latin word
    ("mid\ufeffdle", "mid⟨U+FEFF⟩dle"),  # a byte-order mark inside
    ("שלום \u202eabc", "שלום ⟨U+202E⟩abc"),  # an override, even in Hebrew text
    ("\u2067unbalanced", "⟨U+2067⟩unbalanced"),  # an isolate never closed
    ("a\u200bb", "a⟨U+200B⟩b"),  # a zero-width space between Latin letters
    ("x\U000e0041\U000e0042", "x⟨U+E0041⟩⟨U+E0042⟩"),  # tag characters spelling "AB"
    ("bell\x07 and\u2028sep", "bell⟨U+0007⟩ and⟨U+2028⟩sep"),  # breaks the desk's lines
    ("two\nlines\tand a tab", "two\nlines\tand a tab"),  # layout the detail pane keeps
]


@pytest.mark.parametrize(("text", "shown"), CASES)
def test_the_desk_reveals_what_the_guard_finds_hidden(text: str, shown: str) -> None:
    assert reveal(text) == shown
    # The guard's count of hidden characters and the desk's agree (the desk adds only
    # the control characters and separators that would break its own lines).
    guard_hidden = sum(int(h.split(" × ")[0]) for h in guard_reveal(text).hidden)
    layout = sum(1 for ch in text if ch in "\x07\u2028")
    assert hidden_count(text) == guard_hidden + layout


def test_user_ids_are_listed_one_per_row_visible_and_isolated(
        qtbot, store: MemoryStore, desk_for) -> None:  # type: ignore[no-untyped-def]
    odd = "eve\n\n\n\n\nmallory\u202egpj.exe"
    long = "team-" + "x" * 190
    for user in ("alice", odd, long):
        store.add(user_id=user, text=f"{len(user)} characters of user id", type="note")
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: view.user.count() == 3, timeout=10_000)
    entries = [view.user.itemText(i) for i in range(view.user.count())]
    assert "alice" in entries  # a plain id is shown as it is
    shown = next(e for e in entries if e.startswith(FSI + "eve"))
    assert "\n" not in shown and "\u202e" not in shown and shown.endswith(PDI)
    assert shown == FSI + "eve" + "⟨U+000A⟩" * 5 + "mallory⟨U+202E⟩gpj.exe" + PDI
    cut = next(e for e in entries if e.startswith(FSI + "team-"))
    assert "…" in cut and len(cut) < 80  # one short row, not 195 characters
    i = entries.index(cut)
    assert "x" * 190 in view.user.itemData(i, Qt.ItemDataRole.ToolTipRole)
    # Picking an entry retrieves for the real id, not for its display.
    view.user.setCurrentIndex(entries.index(shown))
    assert view.selected_user() == odd
    view.user.setCurrentIndex(i)
    assert view.selected_user() == long
    view.user.setCurrentText("alice")
    assert view.selected_user() == "alice"
    view.user.setCurrentText("  typed-by-hand ")
    assert view.selected_user() == "typed-by-hand"
    assert view.user.sizeHint().width() < 400  # the long id does not widen the prompt row
