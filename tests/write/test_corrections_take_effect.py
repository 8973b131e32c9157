"""A correction takes effect in the job that writes it: the worker supersedes what it
corrects in the same transaction, so the agent's next retrieve sees the new value
without ``memdesk maintain``.  What it may supersede: memories of the same user,
entity and specific attribute, active, older, not curated, and not a crowd of
answers at once (a generic ``prefers`` names no attribute).  On both backends; the MCP
path over stdio on SQLite."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio

from memdesk.core.guard.review import Review
from memdesk.core.ids import utcnow
from memdesk.core.read.maintain import maintain
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from tests.helpers.belief import agent_turn, fact, job_notes, retrieve_texts
from tests.helpers.mcp_stdio import call, client, store_and_wait

ACME = fact("The user works at Acme.", "Acme")
GLOBEX = fact("The user now works at Globex.", "Globex", type="correction")


def test_the_next_retrieve_sees_the_correction_without_maintain(store: MemoryStore) -> None:
    acme = agent_turn(store, [ACME]).memory_ids[0]
    assert "The user works at Acme." in retrieve_texts(store, "Where does the user work?")
    out = agent_turn(store, [GLOBEX], text="Actually, I work at Globex now.")
    globex = out.memory_ids[0]
    old = store.get(acme)
    assert old.superseded_by == globex and old.valid_until is not None
    assert old.status is Status.SUPERSEDED
    texts = retrieve_texts(store, "Where does the user work?")
    assert "The user now works at Globex." in texts and "The user works at Acme." not in texts
    ev = store.events(acme)[0]  # newest first
    assert (ev.actor, ev.action) == ("worker", "supersede") and out.job_id in (ev.note or "")
    assert any("superseded 1 memory" in n for n in job_notes(store, out.job_id))
    assert maintain(store, do_decay=False).links == []  # nothing left for the backfill
    # One undo takes the job's links back.
    assert ev.group_id is not None
    store.undo_group(ev.group_id)
    assert store.get(acme).status is Status.ACTIVE


def test_only_the_same_question_active_and_older_is_superseded(store: MemoryStore) -> None:
    """The issue's "56 of 57": a correction retires the memories of its own question,
    nothing else."""
    now = utcnow()

    def add(text: str, value: str, *, user: str = "alice", entity: str = "user",
            attribute: str = "works_at", days: float = 10, **extra: Any) -> str:
        return store.add(user_id=user, text=text, type="fact", entity=entity,
                         attribute=attribute, value=value,
                         created_at=now - timedelta(days=days), **extra).id

    same = [add("The user works at Initech.", "Initech"),
            add("User works at Hooli.", "Hooli", entity=" User ", attribute="Works_At "),
            add("The user works at Initech.", " initech", days=1)]  # two answers
    other_user = add("Bob works at Acme.", "Acme", user="bob")
    other_entity = add("Emma works at a school.", "a school", entity="emma")
    other_attr = add("The user lives in Lisbon.", "Lisbon", attribute="lives_in")
    expired = add("The user worked at Umbrella.", "Umbrella", valid_until=now - timedelta(1))
    hypo = add("Imagine working at a bank.", "a bank", framing="hypothetical",
               confidence=0.2)
    deleted = add("The user works at Vandelay.", "Vandelay")
    store.soft_delete(deleted, actor="agent")
    newer = add("The user works at Pied Piper.", "Pied Piper", days=-1)  # after it

    out = agent_turn(store, [GLOBEX])
    globex = out.memory_ids[0]
    assert {i for i in same if store.get(i).superseded_by == globex} == set(same)
    for untouched in (other_user, other_entity, other_attr, expired, hypo, deleted, newer):
        assert store.get(untouched).superseded_by is None, store.get(untouched).text
    assert store.get(globex).status is Status.ACTIVE


def test_a_crowd_of_answers_is_held_for_review_and_approving_it_applies_it(
        store: MemoryStore) -> None:
    """Repeated mentions of the old answers are retired together; a question that has
    more than two answers alive is the operator's to settle."""
    repeated = [agent_turn(store, [fact(f"The user works at Co{i % 2}.", f"Co{i % 2}")])
                .memory_ids[0] for i in range(12)]
    out = agent_turn(store, [GLOBEX])
    assert all(store.get(i).superseded_by == out.memory_ids[0] for i in repeated)

    crowd = [agent_turn(store, [fact(f"The user works at Big{i % 3}.", f"Big{i % 3}")],
                        user="carol").memory_ids[0] for i in range(6)]
    held = agent_turn(store, [GLOBEX], user="carol")
    c = held.memory_ids[0]
    assert store.get(c).status is Status.QUARANTINED
    assert all(store.get(i).status is Status.ACTIVE for i in crowd)
    item = Review(store).item(c)
    assert [f.rule_id for f in item.findings] == ["supersedes-many"]
    assert "6 memories holding 3 different values" in item.reasons
    assert "Big0" in item.findings[0].evidence
    assert any("held for review" in n for n in job_notes(store, held.job_id))
    assert maintain(store, do_decay=False).links == []  # held is held, at maintain too

    changes = Review(store).approve([c])  # the operator decides: it applies at once
    assert all(store.get(i).superseded_by == c for i in crowd)
    assert set(crowd) <= set(changes.memory_ids)
    store.undo_group(changes.group_id)
    assert store.get(c).status is Status.QUARANTINED
    assert all(store.get(i).status is Status.ACTIVE for i in crowd)


def test_a_generic_attribute_supersedes_nothing(store: MemoryStore) -> None:
    """"Actually, I prefer light mode now." with the generic attribute ``prefers``
    must not retire the tabs and Python preferences (in the job or at maintain)."""
    prefs = [agent_turn(store, [fact(t, v, "prefers", type="preference")]).memory_ids[0]
             for t, v in (("The user prefers tabs.", "tabs"),
                          ("The user prefers Python.", "Python"))]
    agent_turn(store, [fact("The user prefers light mode now.", "light mode", "prefers",
                            type="correction")])
    assert all(store.get(i).status is Status.ACTIVE for i in prefs)
    maintain(store, do_decay=False)
    assert all(store.get(i).status is Status.ACTIVE for i in prefs)


# -- the MCP server's store_memory: the same worker, in the server process ------------
def test_mcp_store_memory_correction_is_seen_by_the_next_retrieve(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    MemoryStore.open(db).close()

    async def main() -> None:
        with anyio.fail_after(90):
            async with client(db, tmp_path) as s:
                first = await store_and_wait(s, "I work at Acme.", user_id="alice")
                assert first["status"] == "done", first
                second = await store_and_wait(s, "Actually, I work at Globex now.",
                                              user_id="alice")
                assert second["status"] == "done", second
                got = await call(s, "retrieve", query="Where does the user work?",
                                 user_id="alice")
                texts = " ".join(h["text"] for h in got["results"])
                assert "Globex" in texts and "Acme" not in texts
                old = await call(s, "get_memory", memory_id=first["memory_ids"][0])
                assert old["status"] == "superseded"

    anyio.run(main)
