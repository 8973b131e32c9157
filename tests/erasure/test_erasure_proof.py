"""The key test of proven erasure: texts spread everywhere memdesk copies text (a turn
through the job queue and the worker, its episode and units held by the guard, an
edited correction, vectors, the retrieval log, delta snapshots and their diffs, a
sweep, the planner's statistics), then purged; an oracle that shares no code with the
purge then finds none of their words in any table, index, vector or log, nor in the
raw bytes of the file and its WAL."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core.erasure.service import Erasure
from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.undo.generic import undo_changes, undo_event
from tests.erasure.helpers import (
    FACT_EDITED,
    FACT_WORDS,
    KEPT,
    TURN_WORDS,
    World,
    spread,
    traces,
)
from tests.helpers.embedders import CountingEmbedder


@pytest.fixture
def world(store: MemoryStore) -> World:
    return spread(store)


def db_path(store: MemoryStore) -> Path:
    return Path(store.engine.url.database or "")


def test_everything_is_where_the_oracle_looks_before_the_purge(
        store: MemoryStore, world: World) -> None:
    """The oracle sees the texts before: it is not blind."""
    found = traces(db_path(store), TURN_WORDS + FACT_WORDS)
    for place in ("memories.text", "memory_events.after", "jobs.text",
                  "quarantine_reasons.evidence", "retrievals.query", "memory_sets.query",
                  "memory_set_items.text", "memories_fts_data.block"):
        assert any(f.startswith(place) for f in found), place


def test_a_purge_leaves_no_trace_in_any_table_index_vector_log_or_byte(
        store: MemoryStore, world: World) -> None:
    erasure = Erasure(store)
    by_unit = erasure.purge(world.units[0])  # a unit takes its episode and siblings
    fact = erasure.purge(world.fact)
    assert {e["id"] for e in by_unit.receipt["erased"]} == {world.episode, *world.units}
    assert by_unit.verdict == fact.verdict == "erased"
    assert by_unit.receipt["proof"]["clean"] and fact.receipt["proof"]["clean"]
    vectors = [CountingEmbedder.vector(t) for t in (FACT_EDITED,)]
    assert traces(db_path(store), TURN_WORDS + FACT_WORDS, vectors) == []
    # Nothing else was harmed: the rest of the store is whole and still found.
    assert store.get(world.kept).text == KEPT
    with store.read() as conn:
        assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
        conn.exec_driver_sql(
            "INSERT INTO memories_fts(memories_fts) VALUES ('integrity-check')")
        hits = conn.exec_driver_sql("SELECT rowid FROM memories_fts WHERE memories_fts "
                                    "MATCH 'green tea'").all()
    assert len(hits) == 1
    # The memory the erased correction had superseded stays retired.
    assert store.get(world.retired).status is not Status.ACTIVE


def test_the_receipt_holds_no_text_and_says_where_it_was_removed_from(
        store: MemoryStore, world: World) -> None:
    erased = Erasure(store).purge(world.fact, who="test")
    raw = str(erased.receipt).lower()
    assert not any(w in raw for w in FACT_WORDS)
    places = erased.receipt["removed_from"]
    assert places["memories"] == 1
    assert places["memory_events (audit rows turned into tombstones)"] >= 2
    assert any(p.startswith("retrieval_items") for p in places)
    assert any(p.startswith("memory_set_items") for p in places)
    assert erased.receipt["by"] == {"actor": "operator", "who": "test"}
    assert erased.receipt["erased"][0]["text_sha256"]
    # The store keeps it too (no text), and lists it.
    [info] = Erasure(store).receipts()
    assert info.verdict == "erased" and info.receipt(store) == erased.receipt


def test_the_history_keeps_tombstones_that_cannot_be_undone(
        store: MemoryStore, world: World) -> None:
    before = [e.id for e in store.events(world.fact)]
    erased = Erasure(store).purge(world.fact)
    events = store.events(world.fact)
    assert {e.id for e in events} >= set(before)
    for ev in events:
        assert ev.before == {}
        assert ev.after["erased"]["id"] == world.fact
        assert ev.after["erased"]["erasure"] == erased.erasure_id
    assert not erased.changes.undoable
    with pytest.raises(ValidationError, match="cannot be undone"):
        undo_changes(store, erased.changes)
    with pytest.raises(NotFoundError, match="erased permanently"):
        undo_event(store, before[0])


def test_bad_input_is_refused_and_changes_nothing(store: MemoryStore, world: World) -> None:
    erasure = Erasure(store)
    with pytest.raises(NotFoundError, match="No memory with id 'nope'"):
        erasure.purge("nope")
    erasure.purge(world.fact)
    with pytest.raises(NotFoundError, match="was erased permanently on"):
        erasure.purge(world.fact)
    with pytest.raises(NotFoundError, match="was erased permanently"):
        store.update(world.fact, text="back")
    assert len(erasure.receipts()) == 1


def test_a_held_memory_is_erased_for_the_operator(store: MemoryStore, world: World) -> None:
    assert store.get(world.episode).status is Status.QUARANTINED
    plan = Erasure(store).preview(world.episode)
    assert plan.held and {t.id for t in plan.targets} == {world.episode, *world.units}
    assert Erasure(store).purge(world.episode).verdict == "erased"


def test_the_same_text_stored_again_goes_too_and_another_users_is_left(
        store: MemoryStore) -> None:
    said = "Mel's Vexquillan locker is at the Drubbleforth gym"
    first = store.add(user_id="mel", text=said, type="fact").id
    again = store.add(user_id="mel", text=said, type="fact").id
    bobs = store.add(user_id="bob", text=said, type="fact").id
    plan = Erasure(store).preview(first)
    assert [t.id for t in plan.targets] == [first, again]
    assert plan.targets[1].why == f"the same text as {first}, stored again"
    erased = Erasure(store).purge(first)
    assert erased.verdict == "erased"
    assert erased.receipt["still_held_by"]["other_users_memories"] == [bobs]
    assert store.get(bobs).text == said
    assert any("other user(s)' memories say exactly the same" in s for s in erased.summary())
