"""pytest-qt: the Duplicates view opens at the store's threshold, "Save threshold" stores
the box's value as one undo step, and an undo brings the box back with the store."""

from __future__ import annotations

import pytest

from memdesk.core.curation.duplicates import Duplicates
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.duplicates.view import DuplicatesView

pytestmark = pytest.mark.gui


def test_the_view_follows_and_saves_the_stored_threshold(
        qtbot, store: MemoryStore, desk_for) -> None:
    Duplicates(store).set_threshold(0.9)
    desk = desk_for(store)
    view = DuplicatesView(desk)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.count.text().startswith("0 cluster"), timeout=10000)
    assert view.threshold.value() == pytest.approx(0.9)
    assert "at similarity ≥ 0.90" in view.count.text()
    view.threshold.setValue(0.72)
    view.threshold.editingFinished.emit()
    view.save_threshold.click()
    qtbot.waitUntil(lambda: Duplicates(store).threshold() == pytest.approx(0.72),
                    timeout=10000)
    # The value is stored on a worker thread; the undo step follows on the GUI thread.
    qtbot.waitUntil(lambda: desk.undo_stack.undoText() == "change of 1 setting",
                    timeout=10000)
    desk.undo_stack.undo()
    qtbot.waitUntil(lambda: view.threshold.value() == pytest.approx(0.9), timeout=10000)
    assert Duplicates(store).threshold() == pytest.approx(0.9)
