"""A hypothetical ("Imagine I worked at a bank") is kept for the operator but is no
belief: stored with its framing at confidence 0.3 or less, out of retrieval, out of
contradiction groups, out of the default lists of the CLI, the desk and the agents'
search, shown under its own status, carried by export and import, and never
superseded or superseding.  On both backends."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from memdesk.core.curation.service import Contradictions
from memdesk.core.errors import ValidationError
from memdesk.core.guard.agent_api import agent_filter, agent_view
from memdesk.core.read.maintain import maintain
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.transfer.jsonl import export_jsonl
from memdesk.ui.browse.filters import builtin_filters
from tests.helpers.belief import agent_turn, fact, job_notes, retrieve_texts

BANK = fact("The user imagines working at a bank.", "a bank", framing="hypothetical",
            confidence=0.9)
ACME = fact("The user works at Acme.", "Acme")


def stored(store: MemoryStore) -> tuple[str, str]:
    out = agent_turn(store, [ACME, BANK], text="I work at Acme. Imagine I worked at a bank.")
    assert out.status == "done" and len(out.memory_ids) == 2
    acme, bank = out.memory_ids
    return acme, bank


def test_a_hypothetical_is_kept_capped_and_no_belief(store: MemoryStore) -> None:
    acme, bank = stored(store)
    rec = store.get(bank)
    assert rec.framing == "hypothetical" and rec.status is Status.HYPOTHETICAL
    assert rec.confidence == pytest.approx(0.3)  # the extractor said 0.9
    out_notes = " ".join(job_notes(store, agent_turn(store, [BANK]).job_id))
    assert "hypothetical" in out_notes and "0.3" in out_notes
    assert store.get(acme).status is Status.ACTIVE
    assert [r.id for r in store.active("alice") if r.type != "episode"] == [acme]
    assert not rec.is_active


def test_hypotheticals_stay_out_of_retrieval_and_contradictions(store: MemoryStore) -> None:
    stored(store)
    texts = retrieve_texts(store, "Where does the user work? bank Acme")
    assert "The user works at Acme." in texts
    assert "The user imagines working at a bank." not in texts
    # works_at = a bank against works_at = Acme would be a false contradiction group.
    assert Contradictions(store).find(user="alice") == []


def test_default_lists_leave_them_out_their_own_status_finds_them(store: MemoryStore) -> None:
    acme, bank = stored(store)
    facts = MemoryFilter(types=("fact",))  # the turn itself is kept too, as an episode
    assert [r.id for r in store.page(facts)] == [acme]
    assert store.count(facts) == 1
    assert [r.id for r in store.page(MemoryFilter(statuses=(Status.HYPOTHETICAL,)))] == [bank]
    assert [r.id for r in store.page(builtin_filters()["Hypotheticals"])] == [bank]
    # active: the unit and the turn's episode (what was said, a supposition included)
    assert store.counts()["hypothetical"] == 1 and store.counts()["active"] == 2
    # A hypothetical the operator deleted is deleted, not hypothetical.
    store.soft_delete(bank, actor="operator")
    assert store.count(MemoryFilter(statuses=(Status.HYPOTHETICAL,))) == 0
    assert store.get(bank).status is Status.DELETED


def test_agents_search_never_lists_them_and_a_direct_read_says_what_they_are(
        store: MemoryStore) -> None:
    acme, bank = stored(store)
    for status in ("active", "any"):
        flt = agent_filter("alice", status=status, attribute="works_at")
        assert [r.id for r in store.page(flt)] == [acme]
    assert agent_view(store.get(bank))["status"] == "hypothetical"


def test_a_correction_neither_supersedes_nor_is_superseded_by_one(store: MemoryStore) -> None:
    acme, bank = stored(store)
    out = agent_turn(store, [fact("The user imagines a job at a school.", "a school",
                                  type="correction", framing="hypothetical", confidence=0.2)])
    assert store.get(acme).status is Status.ACTIVE  # a supposed correction changes nothing
    new = agent_turn(store, [fact("The user now works at Globex.", "Globex",
                                  type="correction")])
    assert store.get(acme).superseded_by == new.memory_ids[0]
    assert store.get(bank).status is Status.HYPOTHETICAL  # no belief to supersede
    assert store.get(out.memory_ids[0]).status is Status.HYPOTHETICAL
    assert maintain(store, do_decay=False).links == []


def test_a_supposition_against_a_curated_memory_is_not_held(store: MemoryStore) -> None:
    curated = store.add(actor="operator", user_id="alice", text="User works at Acme.",
                        type="fact", entity="user", attribute="works_at", value="Acme")
    bank = agent_turn(store, [BANK]).memory_ids[0]
    assert store.get(bank).status is Status.HYPOTHETICAL
    assert store.get(curated.id).status is Status.ACTIVE


def test_export_and_import_keep_the_framing(store: MemoryStore, tmp_path: Path) -> None:
    from memdesk.core.transfer.importer import Importer
    from memdesk.core.transfer.jsonl import JsonlSource

    _acme, bank = stored(store)
    buf = io.BytesIO()
    export_jsonl(store, buf)
    lines = [json.loads(x) for x in buf.getvalue().splitlines()]
    assert {x["id"]: x["framing"] for x in lines}[bank] == "hypothetical"
    other = MemoryStore.open(tmp_path / "other.db")
    try:
        Importer(other).run(JsonlSource(io.BytesIO(buf.getvalue())))
        assert other.get(bank).framing == "hypothetical"
        assert other.get(bank).status is Status.HYPOTHETICAL
        assert other.count(MemoryFilter(types=("fact",))) == 1
    finally:
        other.close()


def test_bad_framing_and_an_uncapped_hypothetical_are_refused(store: MemoryStore) -> None:
    with pytest.raises(ValidationError, match="framing"):
        store.add(user_id="u", text="x", type="fact", framing="dream")
    with pytest.raises(ValidationError, match=r"confidence.*0\.3"):
        store.add(user_id="u", text="x", type="fact", framing="hypothetical", confidence=0.8)
    rec = store.add(user_id="u", text="x", type="fact", framing="Hypothetical ",
                    confidence=0.2)
    assert rec.framing == "hypothetical"


def test_the_operator_can_confirm_a_hypothetical_as_a_belief(store: MemoryStore) -> None:
    _acme, bank = stored(store)
    changes = store.update(bank, actor="operator", framing=None)
    assert store.get(bank).status is Status.ACTIVE
    store.undo(changes.event_ids[0])
    assert store.get(bank).status is Status.HYPOTHETICAL
