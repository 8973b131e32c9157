"""The Duplicates view says why a pair below the threshold joined a cluster (both state
the same value), counts in English, and Home / End go to the first / last cluster."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.duplicates.view import DuplicatesView

pytestmark = pytest.mark.gui


def vec_at(cos: float) -> bytes:
    """A unit vector at ``cos`` from (1, 0, 0)."""
    v = np.array([cos, math.sqrt(1 - cos * cos), 0.0], dtype=np.float32)
    return v.astype("<f4").tobytes()


def shown(qtbot, desk) -> DuplicatesView:  # type: ignore[no-untyped-def]
    view = DuplicatesView(desk)
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    qtbot.waitUntil(lambda: not view.count.text().startswith("Scanning"), timeout=10000)
    return view


def test_a_pair_below_the_threshold_says_why(qtbot, store: MemoryStore, desk_for) -> None:
    for text, emb in (("User lives in Lisbon.", vec_at(1.0)),
                      ("Home for the user is Lisbon these days.", vec_at(0.75))):
        store.add(user_id="u", text=text, type="fact", entity="user", attribute="lives_in",
                  value="Lisbon", embedding=emb)
    view = shown(qtbot, desk_for(store))
    assert view.queue.count() == 1
    assert view.count.text().startswith("1 cluster at similarity ≥ 0.80 (≥ 0.65 ")
    cell = view.pairs.item(0, 2)
    assert cell.text() == "0.750 · same value"
    assert "same value" in cell.toolTip() and "0.65" in cell.toolTip()


def test_home_and_end_move_to_the_ends_of_the_queue(qtbot, store: MemoryStore,
                                                    desk_for) -> None:
    for user in ("a", "b", "c"):
        for text in ("User lives in Lisbon.", "user lives in lisbon"):
            store.add(user_id=user, text=text, type="fact")
    view = shown(qtbot, desk_for(store))
    assert view.queue.count() == 3
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert view.current_row() == 2
    qtbot.keyClick(view, Qt.Key.Key_Home)
    assert view.current_row() == 0
    assert view.queue.item(0).text().split("\n")[0].endswith("· 2 memories")
