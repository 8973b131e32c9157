"""The inspector's reason for an empty channel is read whole in a third of a 1280 px
window, and its summary counts in English (offscreen Qt)."""

from __future__ import annotations

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.retrieval.view import RetrievalView
from tests.helpers.read import put

pytestmark = pytest.mark.gui


def test_empty_channel_reason_fits_and_one_result_is_one(qtbot, store: MemoryStore,
                                                         desk_for) -> None:  # type: ignore[no-untyped-def]
    put(store, [{"text": "The kayak club meets on Tuesdays.", "entity": "kayak club",
                 "attribute": "meets_on", "value": "Tuesday"}], user="alice")
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    view.resize(1090, 600)  # the inspector's share of a 1280 px window
    view.show()
    view.wait_idle()
    view.prompt.setText("when does the kayak club meet?")
    view.user.setCurrentText("alice")
    view.inject.setChecked(False)
    view.retrieve()
    qtbot.waitUntil(lambda: view.result is not None, timeout=60_000)
    qtbot.wait(50)
    assert view.status.text().startswith("1 result (injection skipped)")

    view.prompt.setText("what is it about?")  # stop words and no entity of hers
    view.result = None
    view.retrieve()
    qtbot.waitUntil(lambda: view.result is not None, timeout=60_000)
    qtbot.wait(50)
    label = view.channel_notes["graph"].label
    assert label.isVisible()
    assert "names no entity or value of this user's triples" in label.text()
    assert label.heightForWidth(label.width()) <= label.height()  # wrapped, not cut
