"""A done job's details name the episode it kept: who said the turn and when."""

from __future__ import annotations

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.jobs.view import JobsView
from tests.helpers.episodes import say

pytestmark = pytest.mark.gui
FSI, PDI = "\u2068", "\u2069"


def test_a_done_jobs_details_name_its_episode(qtbot, store: MemoryStore, desk_for) -> None:  # type: ignore[no-untyped-def]
    out = say(store, "I moved to Lisbon last Saturday.")
    view = JobsView(desk_for(store))
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=10_000)
    view.table.selectRow(0)
    qtbot.waitUntil(lambda: "Memories created" in view.details.toPlainText(), timeout=10_000)
    text = view.details.toPlainText()
    assert (f"Episode {out.episode_id} (the turn kept as said): {FSI}Melanie{PDI} · "
            "said 2023-05-08 13:56 · happened 2023-05-06") in text
    view.wait_idle()
