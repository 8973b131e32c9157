"""Curated memories are the operator's: no agent write, import or ``maintain`` supersedes,
expires or deletes one; what would is held in the review inbox with the evidence.

"Curated" is read from the audit log: an operator created, edited or approved the
memory.  Every path is tried against a memory curated each way: a correction with
another value, a correction repeating the curated value ("No, actually I work at
Acme."), an import that would supersede, expire or delete it, a correction or a
contradicting memory that reached the store without the worker (an import, a direct
write) and meets ``maintain``, and a correction without a triple whose closest memory
is the curated one.  (The MCP tool that updates a memory does not exist yet; when it
does, it must go through core/guard/curated.py too.)  On both backends.
"""

from __future__ import annotations

import io
import json
from datetime import timedelta
from typing import Any

import pytest

from memdesk.app.main import main
from memdesk.core.guard import review
from memdesk.core.ids import utcnow
from memdesk.core.read.maintain import maintain
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.transfer.importer import Importer
from memdesk.core.transfer.jsonl import JsonlSource
from tests.helpers.belief import agent_turn, fact, retrieve_texts

ACME = "User works at Acme."


def curate(store: MemoryStore, how: str, user: str) -> str:
    """A memory ``works_at = Acme`` of ``user`` that an operator curated ``how``."""
    at = utcnow() - timedelta(days=30)
    if how == "created":
        return store.add(actor="operator", user_id=user, text=ACME, type="fact",
                         entity="user", attribute="works_at", value="Acme",
                         created_at=at).id
    mid = store.add(actor="agent", user_id=user, text=ACME, type="fact", entity="user",
                    attribute="works_at", value="Acme", created_at=at).id
    if how == "edited":
        store.update(mid, actor="operator", confidence=0.95)
    else:  # approved: held by the guard first, then released by the operator
        with store.write() as conn:
            store.apply_in(conn, mid, {"quarantined_at": utcnow()}, actor="worker",
                           action="quarantine")
        review.approve(store, [mid])
    return mid


HOW = ("created", "edited", "approved")


def never_superseded(store: MemoryStore, mid: str) -> None:
    rec = store.get(mid)
    assert rec.status is Status.ACTIVE, rec
    assert not any(e.action in ("supersede", "delete") for e in store.events(mid))


def inbox_rules(store: MemoryStore, mid: str) -> list[str]:
    return [f.rule_id for f in review.held_item(store, mid).findings]


@pytest.mark.parametrize("how", HOW)
def test_agent_corrections_are_held_whatever_their_value(store: MemoryStore, how: str) -> None:
    mine = curate(store, how, "alice")
    other = agent_turn(store, [fact("The user now works at Evil Corp.", "Evil Corp",
                                    type="correction")],
                       text="No, actually I work at Evil Corp now.").memory_ids[0]
    same = agent_turn(store, [fact("The user works at Acme.", "Acme", type="correction")],
                      text="No, actually I work at Acme.").memory_ids[0]
    assert store.get(other).status is Status.QUARANTINED
    assert inbox_rules(store, other) == ["contradicts-curated"]
    assert store.get(same).status is Status.QUARANTINED
    assert inbox_rules(store, same) == ["supersedes-curated"]
    evidence = review.held_item(store, same).findings[0].evidence
    assert mine in evidence and "repeats" in evidence
    maintain(store, do_decay=False)
    never_superseded(store, mine)
    assert retrieve_texts(store, "Where does the user work?") == [ACME]


@pytest.mark.parametrize("how", HOW)
def test_an_import_cannot_retire_a_curated_memory(store: MemoryStore, how: str) -> None:
    mine = curate(store, how, "alice")
    spare = store.add(user_id="alice", text="spare", type="note").id
    when = "2026-01-01T00:00:00Z"
    lines = [{"id": mine, "superseded_by": spare}, {"id": mine, "valid_until": when},
             {"id": mine, "deleted_at": when}]
    data = b"".join(json.dumps({**base, "user_id": "alice", "text": ACME, "type": "fact"})
                    .encode() + b"\n" for base in lines)
    rep = Importer(store, on_existing="update").run(JsonlSource(io.BytesIO(data)))
    assert rep.updated == 0 and len(rep.bad) == 3
    assert all("curated by an operator" in b.reason for b in rep.bad)
    never_superseded(store, mine)


@pytest.mark.parametrize("how", HOW)
def test_maintain_holds_what_reached_the_store_around_the_worker(store: MemoryStore,
                                                                  how: str) -> None:
    mine = curate(store, how, "alice")
    now = utcnow()
    # Written directly (as an import or an older memdesk would), never screened.
    corr = store.add(actor="agent", user_id="alice", text="The user works at Acme, really.",
                     type="correction", entity="user", attribute="works_at", value="Acme",
                     created_at=now - timedelta(days=2)).id
    contra = store.add(actor="import", user_id="alice", text="The user works at Initech.",
                       type="fact", entity="user", attribute="works_at", value="Initech",
                       created_at=now - timedelta(days=1)).id
    older = store.add(actor="agent", user_id="alice", text="The user works at Hooli.",
                      type="fact", entity="user", attribute="works_at", value="Hooli",
                      created_at=now - timedelta(days=60)).id
    report = maintain(store, do_decay=False)
    never_superseded(store, mine)
    assert report.held == {corr: ["supersedes-curated"], contra: ["contradicts-curated"]}
    assert store.get(corr).status is Status.QUARANTINED
    assert store.get(contra).status is Status.QUARANTINED
    assert store.get(older).status is Status.ACTIVE  # older than the operator's word
    assert mine in review.held_item(store, contra).findings[0].evidence
    # One group: undoing the run releases what it held.
    store.undo_group(report.group_id)
    assert store.get(corr).status is Status.ACTIVE


def test_a_lone_correction_close_to_a_curated_memory_is_held(store: MemoryStore) -> None:
    mine = store.add(actor="operator", user_id="alice", type="preference",
                     text="Reply in short bullet points.",
                     created_at=utcnow() - timedelta(days=5)).id
    corr = store.add(actor="agent", user_id="alice", type="correction",
                     text="Reply in long bullet points instead.").id
    report = maintain(store, do_decay=False)
    never_superseded(store, mine)
    assert report.held == {corr: ["supersedes-curated"]} and report.links == []


def test_the_operator_may_supersede_what_the_operator_curated(store: MemoryStore) -> None:
    mine = curate(store, "created", "alice")
    corr = store.add(actor="operator", user_id="alice", text="User works at Globex.",
                     type="correction", entity="user", attribute="works_at",
                     value="Globex").id
    report = maintain(store, do_decay=False)
    assert store.get(mine).superseded_by == corr and report.held == {}
    # And an agent's held correction, once approved, is the operator's word.
    other = curate(store, "created", "bob")
    held = agent_turn(store, [fact("The user works at Acme.", "Acme", type="correction")],
                      user="bob").memory_ids[0]
    review.approve(store, [held])
    assert store.get(other).superseded_by == held


def test_imports_and_agents_do_not_curate(store: MemoryStore) -> None:
    imported = store.add(actor="import", user_id="alice", text="The user works at Acme.",
                         type="fact", entity="user", attribute="works_at", value="Acme",
                         created_at=utcnow() - timedelta(days=3)).id
    corr = agent_turn(store, [fact("The user works at Globex.", "Globex",
                                   type="correction")]).memory_ids[0]
    assert store.get(imported).superseded_by == corr


def test_memdesk_maintain_says_what_it_held(store: MemoryStore, store_path: Any,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    curate(store, "created", "alice")
    store.add(actor="agent", user_id="alice", text="The user works at Acme, really.",
              type="correction", entity="user", attribute="works_at", value="Acme")
    assert main(["maintain", "--db", str(store_path), "--no-decay"]) == 0
    assert "held 1 memories for review" in capsys.readouterr().out
    assert main(["maintain", "--db", str(store_path), "--no-decay", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["held"] == []  # already held
    assert main(["review", "rules", "--db", str(store_path)]) == 0
    rules = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines()}
    assert rules["supersedes-curated"] == "1" and rules["supersedes-many"] == "0"
