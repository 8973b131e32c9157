"""The Retrieval inspector shows what the agent would get: an archived memory is in no
channel, fused result or injected preference, and the "Removed" tab lists it as
"archived" with the reason, so the operator sees it was excluded and why."""

from __future__ import annotations

import pytest

from memdesk.core.read.archived import archived_matches
from memdesk.core.store.archive import Archive
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.retrieval.view import RetrievalView
from tests.helpers.read import put

pytestmark = pytest.mark.gui


def test_archived_is_excluded_and_said(qtbot, store: MemoryStore, desk_for) -> None:  # type: ignore[no-untyped-def]
    kept, gone, pref = put(store, [
        {"text": "The kayak club meets on Tuesdays.", "days_ago": 0},
        {"text": "The kayak club's boats are stored in shed 4.", "days_ago": 1},
        {"type": "preference", "text": "Prefer short answers about kayak trips.",
         "days_ago": 30},
    ], user="alice")
    Archive(store).archive([gone, pref])
    view = RetrievalView(desk_for(store))
    qtbot.addWidget(view)
    view.wait_idle()
    view.prompt.setText("kayak club")
    view.user.setCurrentText("alice")
    view.retrieve()
    qtbot.waitUntil(lambda: view.result is not None, timeout=60_000)
    res = view.result
    seen = ({h.id for h in res.results} | {p.id for p in res.preferences}
            | {h.id for hits in res.per_channel.values() for h in hits}
            | {d.hit.id for d in res.dropped})
    assert kept in seen and not seen & {gone, pref}
    rows = {view.dropped.item(r, 5).text(): (view.dropped.item(r, 0).text(),
                                             view.dropped.item(r, 1).text())
            for r in range(view.dropped.rowCount())}
    for text in ("The kayak club's boats are stored in shed 4.",
                 "Prefer short answers about kayak trips."):
        removed_by, why = rows[text]
        assert removed_by == "archived" and "never recalled" in why


def test_archived_matches_hold_a_query_word(store: MemoryStore) -> None:
    a, b = put(store, [{"text": "Kayaks are stored in shed 4."},
                       {"text": "Dues are paid in March."}], user="alice", embed=False)
    Archive(store).archive([a, b])
    assert [m.id for m in archived_matches(store, "where is my kayak stored?", "alice")] == [a]
    assert archived_matches(store, "kayak", "bob") == []
    assert archived_matches(store, "the and of", "alice") == []
