"""The desk shows which agent wrote a memory and filters by it."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from memdesk.ui.browse.detail import DetailPane
from memdesk.ui.browse.filters import FilterBar, filter_from_dict, filter_to_dict


def app() -> QApplication:
    return QApplication.instance() or QApplication([])  # type: ignore[return-value]


def test_the_filter_bar_picks_an_agent_and_the_detail_pane_shows_it(store: MemoryStore) -> None:
    app()
    rec = store.add(user_id="u", text="likes tea", type="preference", agent_id="planner",
                    run_id="run-7")
    store.add(user_id="u", text="likes coffee", type="preference", agent_id="critic")
    bar = FilterBar()
    got: list[MemoryFilter] = []
    bar.changed.connect(got.append)
    bar.set_choices([], ["u"], store.distinct("agent_id"))
    bar.agent.setCurrentIndex(bar.agent.findText("planner"))
    assert got[-1].agent_ids == ("planner",)
    assert [r.id for r in store.page(got[-1])] == [rec.id]
    saved = filter_from_dict(filter_to_dict(got[-1]))
    assert saved.agent_ids == ("planner",)
    bar.clear()
    assert got[-1].agent_ids == ()

    pane = DetailPane(store)
    pane.show_memory(rec.id)
    assert pane.facts["agent_id"].text() == "planner"
    assert pane.facts["run_id"].text() == "run-7"
