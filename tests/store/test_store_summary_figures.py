"""core/store/summary.py: the overview figures (status counts, live rows by type and layer)."""

from __future__ import annotations

from sqlalchemy import update

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory
from memdesk.core.store.summary import StoreSummary, summarize


def test_empty_store(store: MemoryStore) -> None:
    assert summarize(store) == StoreSummary(
        0, {"active": 0, "superseded": 0, "expired": 0, "deleted": 0, "quarantined": 0,
                        "archived": 0, "hypothetical": 0}, {}, {})


def test_counts_by_status_type_and_layer(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="likes tea", type="preference", layer="semantic")
    store.add(user_id="u", text="works at acme", type="fact", layer="semantic")
    bob = store.add(user_id="u", text="met bob", type="fact")
    with store.write() as conn:  # rows from older stores or other programs: no layer
        conn.execute(update(Memory.__table__).where(Memory.__table__.c.id == bob.id)
                     .values(layer=None))
    gone = store.add(user_id="u", text="old note", type="note", layer="episodic")
    store.soft_delete(gone.id)
    s = summarize(store)
    assert s.total == 4  # deleted rows included in the total
    assert s.by_status == {"active": 4 - 1, "superseded": 0, "expired": 0, "deleted": 1,
                           "quarantined": 0, "archived": 0, "hypothetical": 0}
    # Live rows only (the deleted "note" is not counted), keys in sorted order;
    # a row without a layer is counted under "".
    assert s.by_type == {"fact": 2, "preference": 1}
    assert list(s.by_type) == ["fact", "preference"]
    assert s.by_layer == {"": 1, "semantic": 2}
    assert list(s.by_layer) == ["", "semantic"]
    assert a.id in {r.id for r in store.active()}
