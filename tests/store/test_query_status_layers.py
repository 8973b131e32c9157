"""Status counts for held memories and the layer filter's NULL rule (store/query.py)."""

from __future__ import annotations

from datetime import datetime

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from tests.helpers.raw_sql import raw_sql


def test_a_held_memory_is_counted_and_sorted_as_held(store: MemoryStore) -> None:
    store.add(user_id="u", text="plain", type="note")
    held = store.add(user_id="u", text="held", type="note",
                     quarantined_at=datetime(2026, 11, 1))
    counts = store.counts()
    assert (counts["quarantined"], counts["active"], counts["total"]) == (1, 1, 2)
    everything = MemoryFilter(statuses=tuple(Status))
    rows = store.page(everything, order_by="status", descending=False, limit=None)
    assert [(r.id, r.status) for r in rows if r.id == held.id] == [(held.id,
                                                                     Status.QUARANTINED)]


def test_a_layer_filter_leaves_out_rows_without_a_layer_unless_asked(
        store: MemoryStore, store_path) -> None:  # type: ignore[no-untyped-def]
    semantic = store.add(user_id="u", text="a fact", type="fact").id  # routed: semantic
    bare = store.add(user_id="u", text="from an old store", type="fact").id
    raw_sql(store_path, "UPDATE memories SET layer = NULL WHERE id = ?", bare)

    def ids(*layers: str) -> set[str]:
        return {r.id for r in store.page(MemoryFilter(layers=layers), limit=None)}

    assert ids("semantic") == {semantic}
    assert ids("") == {bare}  # "" asks for the rows without a layer
    assert ids("semantic", "") == {semantic, bare}
    assert ids("episodic") == set()
