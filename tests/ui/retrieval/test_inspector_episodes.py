"""The inspector says which conversation turn each result is or came from (who said it,
when, and when what it tells of happened), opens that turn from its cell, and says in
its headers that a rank column left empty means that channel did not find the result."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.retrieval.view import RetrievalView
from tests.helpers.episodes import say

pytestmark = pytest.mark.gui
FSI, PDI = "\u2068", "\u2069"
EPISODE_COL = 11


def run(qtbot, view: RetrievalView, prompt: str, user: str = "mel") -> None:  # type: ignore[no-untyped-def]
    view.wait_idle()
    view.prompt.setText(prompt)
    view.user.setCurrentText(user)
    view.retrieve()
    qtbot.waitUntil(lambda: not view.status.text().startswith("Retrieving"), timeout=60_000)


def test_each_result_names_its_episode_and_the_cell_opens_it(
        qtbot, store: MemoryStore, desk_for) -> None:  # type: ignore[no-untyped-def]
    out = say(store, "I became vegetarian last Saturday.")
    [unit] = out.memory_ids
    plain = store.add(user_id="mel", text="Vegetarian recipes are in the blue folder.",
                      type="note")
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    run(qtbot, view, "vegetarian")
    rows = {view.fused.item(r, 0).data(Qt.ItemDataRole.UserRole): r
            for r in range(view.fused.rowCount())}
    assert {unit, out.episode_id, plain.id} <= set(rows)
    said = "said 2023-05-08 13:56 · happened 2023-05-06"
    unit_cell = view.fused.item(rows[unit], EPISODE_COL)
    assert unit_cell.text() == f"from {FSI}Melanie{PDI}'s turn · {said}"
    assert "Session: " in unit_cell.toolTip() and "last Saturday" in unit_cell.toolTip()
    own_cell = view.fused.item(rows[out.episode_id], EPISODE_COL)
    assert own_cell.text() == f"{FSI}Melanie{PDI} · {said}"
    assert view.fused.item(rows[plain.id], EPISODE_COL).text() == ""
    with qtbot.waitSignal(view.open_memory) as sig:  # the cell opens the turn itself
        view.fused_view.doubleClicked.emit(view.fused.index(rows[unit], EPISODE_COL))
    assert sig.args == [out.episode_id]
    with qtbot.waitSignal(view.open_memory) as sig:  # the text opens the unit
        view.fused_view.doubleClicked.emit(view.fused.index(rows[unit], 9))
    assert sig.args == [unit]
    tip = view.fused.headerData(3, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "full text channel" in tip and "did not find it" in tip
    assert view.fused.headerData(EPISODE_COL, Qt.Orientation.Horizontal) == "Episode"
