"""The inspector shows repeats collapsed into one result ("same as") and why a channel
came back empty (offscreen Qt)."""

from __future__ import annotations

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.retrieval.view import RetrievalView
from tests.helpers.read import put

pytestmark = pytest.mark.gui


def test_repeats_are_one_row_that_lists_the_others(qtbot, store: MemoryStore, desk_for) -> None:  # type: ignore[no-untyped-def]
    put(store, [{"text": "User formats code with autopep8.", "days_ago": i}
                for i in range(6)] + [{"text": "The kayak club meets on Tuesdays.",
                                       "days_ago": 3}], user="alice")
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    view.wait_idle()
    view.prompt.setText("which code formatter do I use?")
    view.user.setCurrentText("alice")
    view.k.setValue(10)
    view.retrieve()
    qtbot.waitUntil(lambda: not view.status.text().startswith("Retrieving"), timeout=60_000)
    rows = [view.fused.item(r, 9).text() for r in range(view.fused.rowCount())]
    assert rows.count("User formats code with autopep8.") == 1
    same = view.fused.item(rows.index("User formats code with autopep8."), 10)
    assert same.text() == "5 more"
    assert same.toolTip().count("User formats code with autopep8.") == 5
    # No memory carries a triple: the graph's table says so instead of staying blank.
    assert view.channel_models["graph"].rowCount() == 0
    note = view.channel_notes["graph"]
    assert note.is_shown()
    assert note.text() == "Nothing ranked: this user's memories carry no triples."
