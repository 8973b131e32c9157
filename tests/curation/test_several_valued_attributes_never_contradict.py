"""Two values of an attribute a person holds several of at once (two allergies, two
children, two languages) are two facts: the contradictions queue never groups them, while
two values of a one-at-a-time attribute still contradict.  The extractor reads the same
declaration: "Actually, … too" about an allergy is no correction."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from memdesk.app.main import main
from memdesk.core.curation.service import Contradictions
from memdesk.core.read.maintain import maintain
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig

T0 = datetime(2026, 3, 1)


def fact(store: MemoryStore, attribute: str, value: str, days: int) -> None:
    store.add(user_id="alice", text=f"Alice: {attribute} {value}", type="fact",
              entity="user", attribute=attribute, value=value, confidence=0.9,
              created_at=T0 + timedelta(days=days), source_session=f"s{days}")


def test_several_values_of_a_several_valued_attribute_form_no_group(
        store: MemoryStore, capsys) -> None:  # type: ignore[no-untyped-def]
    fact(store, "allergic_to", "peanuts", 0)
    fact(store, "allergic_to", "cats", 3)
    fact(store, "has_child", "Mila", 1)
    fact(store, "has_child", "Jonas", 9)
    fact(store, "Speaks", "Portuguese", 2)  # the attribute's spelling does not matter
    fact(store, "speaks", "German", 4)
    fact(store, "lives_in", "Lisbon", 0)  # one city at a time: these two contradict
    fact(store, "lives_in", "Porto", 20)
    groups = Contradictions(store).find()
    assert [g.attribute for g in groups] == ["lives_in"]
    db = str(store.engine.url.database)
    assert main(["contradictions", "list", "--db", db, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    rows = listed["groups"] if isinstance(listed, dict) else listed
    assert [g["attribute"] for g in rows] == ["lives_in"]


def test_a_second_allergy_said_with_actually_keeps_both(store: MemoryStore) -> None:
    for text in ("I'm allergic to peanuts.", "Actually, I'm allergic to cats too."):
        JobQueue(store).enqueue(Turn(text, "alice", "s1"))
        Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).run(drain=True)
    maintain(store)
    assert {(m.attribute, m.value) for m in store.active("alice") if m.type != "episode"} == {
        ("allergic_to", "peanuts"), ("allergic_to", "cats")}
    assert Contradictions(store).find() == []
