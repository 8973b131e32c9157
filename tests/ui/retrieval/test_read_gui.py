"""The retrieval inspector and the detail pane's recall line (offscreen Qt)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.detail import DetailPane
from memdesk.ui.retrieval.view import RetrievalView
from tests.helpers.read import NOW, put

pytestmark = pytest.mark.gui


@pytest.fixture
def filled(store: MemoryStore) -> tuple[MemoryStore, list[str]]:
    ids = put(store, [
        {"text": "The <b>kayak</b> club meets on Tuesdays.", "days_ago": 0},
        {"text": "The kayak club's boats are stored in shed 4.", "days_ago": 1},
        {"text": "Kayak club dues are paid in March.", "days_ago": 2},
        {"type": "preference", "text": "Prefer short answers.", "days_ago": 30},
        {"type": "decision", "text": "Using PostgreSQL for analytics.", "days_ago": 40},
    ], user="alice")
    return store, ids


def run(qtbot, view: RetrievalView) -> None:  # type: ignore[no-untyped-def]
    """Run the inspector's retrieval and wait until its status line reports the outcome."""
    view.retrieve()
    qtbot.waitUntil(lambda: not view.status.text().startswith("Retrieving"), timeout=60_000)


def test_inspector_shows_channels_fused_removed_and_preferences(qtbot, filled, desk_for) -> None:  # type: ignore[no-untyped-def]
    store, ids = filled
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    view.wait_idle()
    view.prompt.setText("kayak club")
    view.user.setCurrentText("alice")
    run(qtbot, view)
    res = view.result
    # two per ISO week first, then the place left filled: all three kayak memories
    assert view.fused.rowCount() == len(res.results) == 3
    assert view.fused.item(0, 9).text() == res.results[0].text  # plain text, not rendered
    assert view.channel_models["fts"].rowCount() == 3
    assert view.channel_models["vector"].rowCount() >= 3
    removed = {view.dropped.item(r, 0).text() for r in range(view.dropped.rowCount())}
    assert removed == {"relevance floor"}
    assert view.prefs.item(0, 2).text() == "Prefer short answers."
    shown = [view.fused.item(r, 9) for r in range(view.fused.rowCount())]
    hostile = next(it for it in shown if "kayak</b>" in it.text())
    assert "&lt;b&gt;kayak&lt;/b&gt;" in hostile.toolTip()  # escaped: tooltips are rich text
    # A dry run: the inspector never changes what agents see.
    assert store.get(ids[0]).access_count == 0


def test_inspector_isolates_channels_and_skips_injection(qtbot, filled, desk_for) -> None:  # type: ignore[no-untyped-def]
    store, _ids = filled
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    view.prompt.setText("kayak club")
    view.user.setCurrentText("alice")
    view.channel_boxes["vector"].setChecked(False)
    view.channel_boxes["graph"].setChecked(False)
    run(qtbot, view)
    assert view.result.channels == ("fts",) and view.prefs.rowCount() == 0
    # A switched-off channel ranks nothing and says so in its own table.
    assert view.channel_models["vector"].rowCount() == 0
    note = view.channel_notes["vector"]
    assert note.is_shown() and note.text() == "Nothing ranked: switched off for this retrieval."
    assert not view.channel_notes["fts"].is_shown()
    assert "injection skipped" in view.status.text()


def test_inspector_reports_bad_input_without_a_traceback(qtbot, filled, desk_for) -> None:  # type: ignore[no-untyped-def]
    store, _ids = filled
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    view.prompt.setText("   ")
    view.user.setCurrentText("alice")
    view.retrieve()
    qtbot.waitUntil(lambda: view.status.text() == "query: is empty", timeout=30_000)


def test_activating_a_row_asks_to_open_the_memory(qtbot, filled, desk_for) -> None:  # type: ignore[no-untyped-def]
    store, _ids = filled
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    view.prompt.setText("kayak club")
    view.user.setCurrentText("alice")
    run(qtbot, view)
    with qtbot.waitSignal(view.open_memory) as sig:
        view.fused_view.doubleClicked.emit(view.fused.index(0, 9))
    assert sig.args == [view.result.results[0].id]


def test_detail_pane_says_how_often_and_when_recalled(qtbot, filled) -> None:  # type: ignore[no-untyped-def]
    store, ids = filled
    pane = DetailPane(store)
    qtbot.addWidget(pane)
    pane.show_memory(ids[0])
    assert pane.facts["recalled"].text().startswith("never")
    r = Retriever(store, clock=lambda: NOW)
    r.retrieve("kayak club", "alice")
    r.retrieve("kayak club", "alice")
    r.flush()
    pane.show_memory(ids[0])
    text = pane.facts["recalled"].text()
    assert text.startswith("2× (2 as a result, 0 injected)")
    assert NOW.strftime("%Y-%m-%d %H:%M") in text
    assert pane.facts["recalled"].textFormat() == Qt.TextFormat.PlainText
