"""A long triple or text in the inspector does not push the columns after it out of
sight: it is cut in the middle on screen and whole in the tooltip (offscreen Qt)."""

from __future__ import annotations

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.retrieval.view import RetrievalView
from tests.helpers.read import put

pytestmark = pytest.mark.gui

CLUSTER = "kubernetes-production-cluster-in-the-frankfurt-region-eu-central-1-blue"
LONG = ("Production for Lantern runs on the Kubernetes cluster in Frankfurt, after the "
        "migration that Yuki planned over the summer, with the blue and green pools kept "
        "apart so that a failed rollout never reaches the customers of the Lantern app.")


def test_long_triples_and_texts_leave_every_column_visible(qtbot, store: MemoryStore,
                                                           desk_for) -> None:  # type: ignore[no-untyped-def]
    put(store, [
        {"text": LONG, "entity": "lantern", "attribute": "deploys_to", "value": CLUSTER,
         "days_ago": 1},
        {"text": "Blue-green deploys keep the old pool warm.", "entity": CLUSTER,
         "attribute": "strategy", "value": "blue-green", "days_ago": 2},
        {"text": "Continuous integration for Lantern is Jenkins.", "entity": "lantern",
         "attribute": "ci", "value": "Jenkins", "days_ago": 3},
    ], user="alice")
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    view.resize(1100, 700)
    view.show()
    view.wait_idle()
    view.prompt.setText("Where does Lantern run in production?")
    view.user.setCurrentText("alice")
    view.retrieve()
    qtbot.waitUntil(lambda: view.result is not None, timeout=60_000)
    qtbot.wait(50)

    graph, graph_model = view.channel_views["graph"], view.channel_models["graph"]
    matched = [graph_model.item(r, 1) for r in range(graph_model.rowCount())]
    long_one = next(it for it in matched if CLUSTER in it.text())
    assert CLUSTER in long_one.toolTip()  # the whole triple, whatever the width
    # The text of the memory stays in the pane, right of a capped "Matched" column.
    assert graph.columnViewportPosition(2) < graph.viewport().width() - 40

    fused = view.fused_view
    texts = [view.fused.item(r, 9) for r in range(view.fused.rowCount())]
    assert any(LONG in it.toolTip() for it in texts)
    assert fused.columnViewportPosition(10) < fused.viewport().width() - 20  # "Same as"
