"""The detail pane shows a memory's entity, attribute and value whole at 1280×700 and
at the default size (offscreen Qt)."""

from __future__ import annotations

import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("size", [(1280, 700), (1440, 860)])
def test_triple_fields_are_wide_enough_for_their_values(qtbot, store: MemoryStore, desk_for,
                                                        size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    store.add(user_id="carol", text="The Compass service keeps its data in PostgreSQL.",
              type="fact", entity="compass-service", attribute="primary_database",
              value="PostgreSQL 16")
    view = BrowserView(desk_for(store))
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitUntil(lambda: view.detail.record is not None, timeout=10_000)
    qtbot.wait(50)
    d = view.detail
    for field in (d.entity, d.attribute, d.value):
        needed = field.fontMetrics().horizontalAdvance(field.text())
        assert needed + 12 <= field.width(), (field.text(), field.width())
