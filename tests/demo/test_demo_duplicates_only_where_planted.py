"""The demo store's duplicates queue holds exactly what the demo planted: a user's fact
said twice.  Without vectors the queue compares texts, so it finds the respelt ones
("User lives in  lisbon " / "User lives in Lisbon.") and nothing else; the reworded ones
wait for vectors (bench: 22 of 26 found with MiniLM on 2,000 rows, nothing unplanted)."""

from __future__ import annotations

from datetime import datetime

from memdesk.core import demo
from memdesk.core.curation.duplicates import Duplicates
from memdesk.core.demo.truth import planted_duplicates
from memdesk.core.store.memory_store import MemoryStore

END = datetime(2026, 11, 1)


def test_the_queue_finds_only_planted_duplicates(store: MemoryStore) -> None:
    demo.generate(store, 4000, seed=7, end=END)
    planted = set(planted_duplicates(store))
    assert len(planted) >= 16  # the eight scenario cities, and some said-again facts
    found = {frozenset(c.member_ids) for c in Duplicates(store).find()}
    assert found and found <= planted
    # Every planted pair is one user's one fact, said twice.
    for pair in planted:
        a, b = store.get_many(list(pair))
        assert a.user_id == b.user_id and a.id != b.id
        assert (a.entity, a.attribute) == (b.entity, b.attribute)
        assert a.value.strip().casefold() == b.value.strip().casefold()


def test_a_store_the_demo_did_not_fill_has_no_planted_duplicates(store: MemoryStore) -> None:
    store.add(user_id="u", text="User lives in Porto.", type="fact")
    assert planted_duplicates(store) == ()
