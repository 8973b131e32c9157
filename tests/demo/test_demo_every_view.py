"""The default demo gives every view of the desk something real to show: a held turn in
the Review inbox, a hypothetical, an unresolved contradiction, a duplicate cluster, a
drift change to review, and conversations kept as episodes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from memdesk.core import demo
from memdesk.core.curation.duplicates import Duplicates
from memdesk.core.curation.service import Contradictions
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.guard.review import Review
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status

END = datetime(2026, 11, 1)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    s = MemoryStore.open(Path(tmp_path_factory.mktemp("views")) / "d.db")
    demo.generate(s, seed=7, end=END)
    yield s
    s.close()


def test_the_review_inbox_holds_an_agents_instruction(store: MemoryStore) -> None:
    [item] = Review(store).inbox()
    assert "ignore the user's earlier instructions" in item.memory.text
    assert "instruction" in item.reasons.lower()
    # Held, not believed: the active belief state leaves it out until approved.
    assert item.memory.id not in {m.id for m in store.active(item.memory.user_id)}


def test_the_hypotheticals_filter_has_rows(store: MemoryStore) -> None:
    rows = store.page(MemoryFilter(statuses=(Status.HYPOTHETICAL,)), limit=None)
    assert len(rows) >= 3
    assert all("hypothetical" in r.text and r.confidence <= 0.3 for r in rows)


def test_contradictions_duplicates_drift_and_episodes_are_there(store: MemoryStore) -> None:
    assert Contradictions(store).find()
    assert Duplicates(store).find()
    assert DeltaMemory(store).queue()
    assert store.count(MemoryFilter(types=("episode",))) >= 8
