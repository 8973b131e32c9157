"""The inspector's note about memories without vectors names the desk's command for it
(File → Embed missing vectors…), not the CLI's."""

from __future__ import annotations

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.retrieval.view import RetrievalView

pytestmark = pytest.mark.gui


def test_the_no_vector_note_names_the_menu_command(qtbot, store: MemoryStore,
                                                   desk_for) -> None:  # type: ignore[no-untyped-def]
    store.add(user_id="alice", text="The kayak club meets on Tuesdays.", type="fact")
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    view.resize(1090, 600)
    view.show()
    view.wait_idle()
    view.prompt.setText("when does the kayak club meet?")
    view.user.setCurrentText("alice")
    view.retrieve()
    qtbot.waitUntil(lambda: view.result is not None, timeout=180_000)  # loads the model
    qtbot.wait(50)
    vector = view.channel_notes["vector"].label
    shown = view.status.text() + "\n" + vector.text()
    assert "Embed missing vectors" in shown, shown
    assert "memdesk embed" not in shown
