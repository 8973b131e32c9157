"""pytest-qt: the Duplicates view lists clusters (texts as plain text, cosine per pair),
preselects the suggested memory to keep, merges by keyboard as one undo step, remembers
"not duplicates", and explains an empty queue."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.duplicates.view import DuplicatesView

pytestmark = pytest.mark.gui


def vec(*xs: float) -> bytes:
    v = np.array(xs, dtype=np.float32)
    return (v / np.linalg.norm(v)).astype("<f4").tobytes()


def shown(qtbot, desk) -> DuplicatesView:
    view = DuplicatesView(desk)
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    qtbot.waitExposed(view)
    view.activateWindow()
    qtbot.waitUntil(lambda: not view.count.text().startswith("Scanning"), timeout=10000)
    return view


def press(qtbot, key: Qt.Key) -> None:
    target = QApplication.focusWidget()
    assert target is not None, "nothing has keyboard focus"
    qtbot.keyClick(target, key)


def test_merge_by_keyboard_keeps_the_chosen_one_and_undo_restores_all(
        qtbot, store: MemoryStore, desk_for) -> None:
    ids = [store.add(user_id="u", text=t, type="fact", confidence=c).id
           for t, c in (("User lives in Lisbon.", 0.9), ("user lives in <Lisbon>", 0.4),
                        ("User lives in Lisbon!", 0.9))]
    desk = desk_for(store)
    view = shown(qtbot, desk)
    assert view.queue.count() == 1 and not view.empty.is_shown()
    texts = {view.members.item(r, 1).text() for r in range(view.members.rowCount())}
    assert "user lives in <Lisbon>" in texts  # markup stays text
    suggested = ids[2]  # the newest of the highest confidence
    keep_col = [view.members.item(r, 0).text() for r in range(3)]
    assert keep_col[[m.id for m in view.cluster.members].index(suggested)] == (
        "✔ keep (suggested)")
    row_of_first = [m.id for m in view.cluster.members].index(ids[0])
    view.setFocus()
    press(qtbot, getattr(Qt.Key, f"Key_{row_of_first + 1}"))  # keep the first instead
    press(qtbot, Qt.Key.Key_M)
    qtbot.waitUntil(lambda: not store.get(ids[1]).is_active, timeout=10000)
    assert store.get(ids[0]).is_active and not store.get(ids[2]).is_active
    qtbot.waitUntil(lambda: view.queue.count() == 0 and view.empty.is_shown(), timeout=10000)
    assert "No duplicates at similarity 0.80" in view.empty.text()
    assert desk.undo_stack.undoText() == "merge of duplicates of 2 memories"
    view.setFocus()
    press(qtbot, Qt.Key.Key_U)
    assert all(store.get(i).is_active for i in ids)


def test_cosine_per_pair_and_not_duplicates_is_remembered(
        qtbot, store: MemoryStore, desk_for) -> None:
    a = store.add(user_id="u", text="User formats code with autopep8.", type="fact",
                  embedding=vec(1, 0.1, 0)).id
    b = store.add(user_id="u", text="The user runs autopep8 on their code.", type="fact",
                  embedding=vec(1, 0.12, 0)).id
    view = shown(qtbot, desk_for(store))
    assert view.pairs.rowCount() == 1
    assert float(view.pairs.item(0, 2).text()) > 0.99
    view.setFocus()
    press(qtbot, Qt.Key.Key_N)
    qtbot.waitUntil(lambda: view.queue.count() == 0, timeout=10000)
    view.rescan()
    qtbot.waitUntil(lambda: not view.count.text().startswith("Scanning"), timeout=10000)
    assert view.queue.count() == 0
    assert store.get(a).is_active and store.get(b).is_active
