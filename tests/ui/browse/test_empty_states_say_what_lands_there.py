"""An empty Review inbox and an empty Hypotheticals list say what would land there
(an empty table alone read as a view that never works)."""

from __future__ import annotations

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.browse.filters import builtin_filters
from memdesk.ui.review.view import ReviewView

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


def test_an_empty_inbox_says_what_lands_there(qtbot, store: MemoryStore, desk_for) -> None:
    v = ReviewView(desk_for(store))
    qtbot.addWidget(v)
    v.show()
    qtbot.waitUntil(lambda: v.empty.is_shown(), timeout=10_000)
    assert "poisoning guard holds it" in v.empty.text()


def test_an_empty_hypotheticals_list_says_what_one_is(qtbot, store: MemoryStore,
                                                      desk_for) -> None:
    store.add(user_id="ana", text="User prefers tea.", type="fact")
    v = BrowserView(desk_for(store))
    qtbot.addWidget(v)
    v.show()
    qtbot.waitUntil(lambda: v.model.total == 1, timeout=10_000)
    v.apply_filter(builtin_filters()["Hypotheticals"])
    qtbot.waitUntil(lambda: v.empty_note.is_shown(), timeout=10_000)
    assert "A hypothetical is a supposition" in v.empty_note.text()
    v.apply_filter(builtin_filters()["Preferences"])
    qtbot.waitUntil(lambda: v.empty_note.is_shown()
                    and "No memory matches" in v.empty_note.text(), timeout=10_000)
