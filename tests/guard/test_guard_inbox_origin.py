"""The review inbox (core/guard/review.py) and agent provenance (core/guard/origin.py),
in-process: what the inbox lists and in which order, the exact refusals an operator
reads, the audit of approve / reject / edit, per-rule counts, and the origin an agent's
job carries (trimmed to its columns' sizes, never invented).
"""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.guard import review
from memdesk.core.guard.origin import (
    AgentOrigin,
    CuratedByOperator,
    check_agent_may_change,
    curated_ids_in,
    origin_of_job,
)
from memdesk.core.guard.screen import Finding, quarantine_in
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.write.intake import enqueue_from_agent
from memdesk.core.write.units import Turn

AT = datetime(2026, 1, 1)


def held(store: MemoryStore, text: str, *rules: str, user: str = "u", days: int = 0) -> str:
    mid = store.add(user_id=user, text=text, type="note",
                    created_at=AT.replace(day=1 + days)).id
    with store.write() as conn:
        quarantine_in(store, conn, mid, [Finding(r, f"because {r}", f"ev {r}") for r in rules])
    return mid


# -- the inbox -----------------------------------------------------------------------
def test_an_item_without_findings_is_held_for_review(store: MemoryStore) -> None:
    # held as an import brings it in: no rule, no reason row
    mid = store.add(user_id="u", text="t", type="note", quarantined_at=AT).id
    item = review.held_item(store, mid)
    assert item.findings == () and item.reasons == "held for review"
    assert item.origin is None


def test_an_items_reasons_and_json(store: MemoryStore) -> None:
    mid = held(store, "t", "r1", "r2")
    item = review.held_item(store, mid)
    assert item.reasons == "because r1\nbecause r2"
    data = item.to_json()
    assert data["id"] == mid and data["text"] == "t"
    assert data["reasons"] == [{"rule": "r1", "reason": "because r1", "evidence": "ev r1"},
                               {"rule": "r2", "reason": "because r2", "evidence": "ev r2"}]
    assert data["origin"] is None


def test_the_inbox_is_oldest_first_per_user_and_limited(store: MemoryStore) -> None:
    c = held(store, "c", "r", days=3)
    a = held(store, "a", "r", days=1)
    b = held(store, "b", "r", user="v", days=2)
    store.add(user_id="u", text="active", type="note")
    assert [i.memory.id for i in review.inbox(store)] == [a, b, c]
    assert [i.memory.id for i in review.inbox(store, limit=2)] == [a, b]
    assert [i.memory.id for i in review.inbox(store, user_id="u")] == [a, c]
    assert review.held_count(store) == 3
    assert [f.rule_id for f in review.inbox(store)[0].findings] == ["r"]


def test_rule_counts_are_distinct_memories_still_held(store: MemoryStore) -> None:
    one = held(store, "one", "r1", "r2")
    held(store, "two", "r1")
    gone = held(store, "gone", "r1", "r3")
    done = held(store, "done", "r4")
    review.reject(store, [gone])
    review.approve(store, [done])
    with store.write() as conn:  # a second finding of the same rule on the same memory
        quarantine_in(store, conn, one, [Finding("r1", "again", "")])
    assert review.rule_counts(store) == {"r1": 2, "r2": 1}


# -- decisions -----------------------------------------------------------------------
def test_approve_releases_and_audits_as_one_group(store: MemoryStore) -> None:
    a, b = held(store, "a", "r"), held(store, "b", "r")
    changes = review.approve(store, [a, b], note="looks fine", actor="worker")
    assert changes.memory_ids == (a, b) and changes.group_id is not None
    assert len(changes.event_ids) == 2
    for mid in (a, b):
        assert store.get(mid).status is Status.ACTIVE
        ev = [e for e in store.events(mid) if e.action == "approve"]
        assert [(e.actor, e.note, e.group_id, e.id in changes.event_ids) for e in ev] == [
            ("worker", "looks fine", changes.group_id, True)]
    assert review.held_count(store) == 0


def test_reject_deletes_with_the_operator_as_actor(store: MemoryStore) -> None:
    a = held(store, "a", "r")
    changes = review.reject(store, [a])
    assert store.get(a).status is Status.DELETED
    (ev,) = [e for e in store.events(a) if e.action == "reject"]
    assert (ev.actor, ev.note, ev.group_id) == ("operator", None, changes.group_id)
    assert changes.event_ids == (ev.id,)


def test_a_decision_needs_held_memories(store: MemoryStore) -> None:
    with pytest.raises(ValidationError) as info:
        review.approve(store, [])
    assert str(info.value) == "ids: name at least one held memory"
    a = held(store, "a", "r")
    active = store.add(user_id="u", text="active", type="note").id
    with pytest.raises(ValidationError) as info:
        review.reject(store, [a, active])
    assert str(info.value) == f"id: memory {active} is active, not waiting for review"
    assert store.get(a).status is Status.QUARANTINED  # all or nothing


def test_edit_keeps_it_held_and_refuses_what_is_not_held(store: MemoryStore) -> None:
    a = held(store, "a", "r")
    review.edit(store, a, text="better", actor="worker")
    assert store.get(a).text == "better" and store.get(a).status is Status.QUARANTINED
    (ev,) = [e for e in store.events(a) if e.action == "edit"]
    assert (ev.actor, ev.note) == ("worker", "edited in review")
    review.approve(store, [a])
    with pytest.raises(ValidationError) as info:
        review.edit(store, a, text="again")
    assert str(info.value) == f"id: memory {a} is active, not waiting for review"


# -- origin --------------------------------------------------------------------------
def test_an_origin_as_json() -> None:
    o = AgentOrigin(client_name="c", session="s", transport="http", source="tool",
                    client_version="2", created_at=datetime(2026, 1, 2, 3, 4, 5))
    assert o.to_json() == {"actor": "agent", "client_name": "c", "client_version": "2",
                           "session": "s", "transport": "http", "source": "tool",
                           "created_at": "2026-01-02T03:04:05", "token": None}
    assert AgentOrigin("c", "s", "stdio").to_json()["created_at"] is None
    assert AgentOrigin("c", "s", "stdio").source == "user"


def test_an_origin_is_stored_trimmed_to_its_columns(store: MemoryStore) -> None:
    origin = AgentOrigin(client_name="n" * 250, session="s" * 100, transport="t" * 40,
                         source="document", client_version="v" * 250)
    job = enqueue_from_agent(store, Turn("hello", "u"), origin)
    with store.read() as conn:
        got = origin_of_job(conn, job)
        assert origin_of_job(conn, "no-such-job") is None
    assert got is not None and got.created_at is not None
    assert (got.client_name, got.session, got.transport, got.client_version) == (
        "n" * 200, "s" * 64, "t" * 32, "v" * 200)
    assert (got.source, got.actor) == ("document", "agent")


def test_an_unnamed_client_is_unknown_and_an_empty_version_none(store: MemoryStore) -> None:
    job = enqueue_from_agent(store, Turn("hello", "u"),
                             AgentOrigin(client_name="", session="s", transport="stdio",
                                         client_version=""))
    with store.read() as conn:
        got = origin_of_job(conn, job)
    assert got is not None
    assert (got.client_name, got.client_version, got.source) == ("unknown", None, "user")


def test_an_origin_with_an_unknown_source_is_refused(store: MemoryStore) -> None:
    with pytest.raises(ValueError):
        enqueue_from_agent(store, Turn("hello", "u"),
                           AgentOrigin(client_name="c", session="s", transport="stdio",
                                       source="web"))
    assert store.count() == 0


def test_curated_ids_are_those_an_operator_touched(store: MemoryStore) -> None:
    ids = store.add_many([{"user_id": "u", "text": f"t{i}", "type": "note"}
                          for i in range(502)], actor="operator")
    agents = store.add(user_id="u", text="a", type="note", actor="agent").id
    with store.read() as conn:
        assert curated_ids_in(conn, [*ids, agents]) == set(ids)
        assert curated_ids_in(conn, []) == set()
        with pytest.raises(CuratedByOperator) as info:
            check_agent_may_change(conn, ids[501])
        check_agent_may_change(conn, agents)
    assert str(info.value) == (
        f"memory {ids[501]} was curated by an operator; an agent cannot change or delete "
        "it (store a new memory instead: the operator reviews it)")
