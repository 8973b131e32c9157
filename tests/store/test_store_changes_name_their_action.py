"""What an edit returns names the declared action that made it (the undo label's verb),
whether the caller named the action by its text or used a bulk call."""

from __future__ import annotations

from memdesk.core.store.memory_store import MemoryStore


def test_an_edit_named_by_its_action_text_returns_that_action(store: MemoryStore) -> None:
    mid = store.add(user_id="u", text="Alice drinks tea", type="fact").id
    changes = store.update(mid, action="calibrate", importance=0.9)
    assert changes.action is not None and changes.action.verb == "calibrated importance"


def test_a_bulk_supersede_returns_the_supersede_action(store: MemoryStore) -> None:
    old = [store.add(user_id="u", text=f"Alice drinks tea {i}", type="fact").id
           for i in range(2)]
    new = store.add(user_id="u", text="Alice drinks coffee", type="fact").id
    changes = store.bulk_supersede(old, new)
    assert changes.action is not None and changes.action.verb == "supersede"
