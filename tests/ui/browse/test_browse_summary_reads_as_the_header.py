"""The line under the list says how it is sorted in words that agree with the header
(Qt draws a descending sort as an arrow pointing up: the line's "↓" read the other
way), and counts in English ("1 memory matches")."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.browse.browser_model import COLUMN_KEYS

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


def test_the_summary_says_the_order_and_the_count_in_words(qtbot, store: MemoryStore,
                                                           desk_for) -> None:
    store.add(user_id="ana", text="User prefers tea.", type="fact", importance=0.5)
    v = BrowserView(desk_for(store))
    qtbot.addWidget(v)
    v.show()
    qtbot.waitUntil(lambda: v.model.total == 1, timeout=10_000)
    assert v.summary.text().startswith("1 memory matches · ")
    assert "sorted by created, newest first" in v.summary.text()
    assert "↓" not in v.summary.text() and "↑" not in v.summary.text()
    v.table.sortByColumn(COLUMN_KEYS.index("importance"), Qt.SortOrder.AscendingOrder)
    qtbot.waitUntil(lambda: not v.model.loading, timeout=10_000)
    assert "sorted by importance, lowest first" in v.summary.text()
