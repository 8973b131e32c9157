"""The memory router (the memory-types decision record): every insert gets a layer; working memory
is never stored."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from memdesk.core.errors import ValidationError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.router import ROUTES, is_session_scoped, route
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig
from memdesk.core.write.working import WorkingMemory

# The table of docs/write-path.md, written out independently of ROUTES.
EXPECTED = {
    "preference": "procedural", "procedure": "procedural", "fact": "semantic",
    "decision": "episodic", "correction": "episodic", "error": "episodic",
    "note": "episodic", "reasoning": "episodic", "episode": "episodic",
}


def rows(store: MemoryStore, table=Memory) -> int:  # type: ignore[no-untyped-def]
    with store.read() as conn:
        return int(conn.execute(select(func.count()).select_from(table.__table__)).scalar_one())


@pytest.mark.parametrize(("type_", "layer"), sorted(EXPECTED.items()))
def test_add_without_a_layer_is_routed(store: MemoryStore, type_: str, layer: str) -> None:
    assert route(type_).value == layer
    assert store.add(user_id="u", text="some memory", type=type_).layer == layer
    assert store.add(user_id="u", text="some memory", type=type_, layer="").layer == layer


def test_the_table_covers_every_type() -> None:
    assert {str(k) for k in ROUTES} == set(EXPECTED)


def test_an_explicit_layer_is_kept(store: MemoryStore) -> None:
    assert store.add(user_id="u", text="t", type="fact", layer="episodic").layer == "episodic"


def test_add_many_routes_every_row(store: MemoryStore) -> None:
    ids = store.add_many([{"user_id": "u", "text": f"m{t}", "type": t} for t in EXPECTED])
    got = {r.type: r.layer for r in store.get_many(ids)}
    assert got == EXPECTED


def test_demo_store_has_no_empty_or_working_layer(demo_store: MemoryStore) -> None:
    layers = set(demo_store.distinct("layer"))
    assert "working" not in layers
    with demo_store.read() as conn:
        empty = conn.execute(select(func.count()).where(Memory.layer.is_(None))).scalar_one()
    assert empty == 0


@pytest.mark.parametrize("how", ["add", "add_many"])
def test_working_layer_is_refused_and_nothing_is_written(store: MemoryStore, how: str) -> None:
    fields = {"user_id": "u", "text": "use Python for this task", "type": "decision",
              "layer": "working"}
    with pytest.raises(ValidationError, match=r"working memory .* never stored"):
        if how == "add":
            store.add(**fields)
        else:
            store.add_many([{**fields, "layer": None, "text": "ok"}, fields])
    assert rows(store) == 0 and rows(store, MemoryEvent) == 0


@pytest.mark.parametrize("text", [
    "We decided to use Python for this task.",
    "For now, I prefer short answers.",
    "Right now I prefer the terse output.",
    "In this session I'd rather you skip the tests.",
])
def test_session_scoped_phrases(text: str) -> None:
    assert is_session_scoped(text)


@pytest.mark.parametrize("text", ["I prefer short answers.", "We chose PostgreSQL.",
                                  "The user works at Nowhere Labs."])
def test_lasting_statements_are_not_session_scoped(text: str) -> None:
    assert not is_session_scoped(text)


def test_session_scoped_units_stay_in_working_memory_and_no_row_is_written(
        store: MemoryStore) -> None:
    working = WorkingMemory()
    job = JobQueue(store).enqueue(Turn("We decided to use Python for this task.", "ann", "s9"))
    worker = Worker(store, HeuristicExtractor(), WorkerConfig(embed=False), working=working)
    assert worker.run(drain=True) == 1
    done = JobQueue(store).get(job)
    assert done.status == "done" and done.memory_ids == ()
    assert any("working memory" in e["msg"] for e in done.log)
    # no unit is written; the turn itself is kept as said (its episode), nothing else
    assert rows(store) == 1 and rows(store, MemoryEvent) == 1
    [episode] = store.active("ann")
    assert (episode.type, episode.text) == ("episode", "We decided to use Python for this task.")
    [item] = working.get("ann", "s9")
    assert item.unit.type == "decision" and "Python" in item.unit.text
    assert working.get("ann", "other session") == []
    working.end_session("ann", "s9")
    assert working.get("ann", "s9") == []


def test_working_memory_forgets_the_least_recently_used_session(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from memdesk.core.write import working as working_mod
    from memdesk.core.write.units import Unit

    monkeypatch.setattr(working_mod, "MAX_SESSIONS", 2)
    wm = WorkingMemory()
    note = Unit("We decided to use Python for this task.", "decision", 0.5, 0.5)
    wm.add("ann", "s1", note)
    wm.add("ann", "s2", note)
    wm.add("ann", "s1", note)  # s1 used again: now s2 is the oldest
    wm.add("bob", None, note)  # a third session: s2 goes
    assert len(wm.get("ann", "s1")) == 2 and len(wm.get("bob", None)) == 1
    assert wm.get("ann", "s2") == []
