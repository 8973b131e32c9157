"""Archive and unarchive through the façade (core/store/archive.py): an archived memory is
kept, listed and searchable for the operator, and never recalled or injected, nor queued
as a duplicate or a contradiction, nor sampled by a sweep; both actions are audited in
one group, undone and redone; every bad request changes nothing and says why."""

from __future__ import annotations

import pytest

from memdesk.core.curation.duplicates import Duplicates
from memdesk.core.curation.service import Contradictions, Sweeps
from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.guard.agent_api import agent_filter
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store import actions as acts
from memdesk.core.store.archive import Archive, ArchiveStateError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.undo.generic import undo_changes
from tests.helpers.embedders import CountingEmbedder


def retriever(store: MemoryStore) -> Retriever:
    return Retriever(store, ReadConfig(record=False), embedder=CountingEmbedder())


def recalled(store: MemoryStore, query: str, user: str) -> set[str]:
    res = retriever(store).retrieve(query, user, dry_run=True)
    return {h.id for h in res.results} | {p.id for p in res.preferences}


def test_archived_is_kept_and_shown_but_never_recalled(store: MemoryStore) -> None:
    tea = store.add(user_id="u", text="I prefer green tea in the morning", type="preference",
                    actor="operator")
    oslo = store.add(user_id="u", text="The user lives in Oslo near the fjord", type="fact")
    assert {tea.id, oslo.id} <= recalled(store, "green tea Oslo fjord", "u")

    changes = Archive(store).archive([tea.id, oslo.id])
    assert changes.action is acts.ARCHIVE and changes.undo_label() == (
        "Undo archive of 2 memories")
    # Kept: the default listing, the full-text search and the "archived" status show it.
    assert {tea.id, oslo.id} <= {r.id for r in store.page(limit=None)}
    assert {r.id for r in store.page(MemoryFilter(text="fjord"), limit=None)} == {oslo.id}
    assert {r.id for r in store.page(MemoryFilter(statuses=(Status.ARCHIVED,)),
                                     limit=None)} == {tea.id, oslo.id}
    assert store.get(tea.id).status is Status.ARCHIVED
    assert store.counts()["archived"] == 2 == Archive(store).count()
    # Never recalled: no channel ranks it, no preference injects it (the snapshot the
    # first retrieval built is invalidated by the audited archive).
    assert recalled(store, "green tea Oslo fjord", "u") == set()
    assert store.active("u") == []
    # An agent's listings reach no archived row, whatever status it asks for.
    for status in ("active", "superseded", "expired", "any"):
        assert store.page(agent_filter("u", status=status), limit=None) == []

    Archive(store).unarchive([oslo.id])
    assert recalled(store, "green tea Oslo fjord", "u") == {oslo.id}
    assert store.get(oslo.id).status is Status.ACTIVE


def test_archive_is_one_audited_group_undone_and_redone(store: MemoryStore) -> None:
    ids = [store.add(user_id="u", text=f"note {i}", type="note").id for i in range(3)]
    changes = Archive(store).archive(ids, note="tidy up")
    assert len(changes.event_ids) == 3 and changes.group_id is not None
    events = store.group_events(changes.group_id)
    assert {(e.action, e.actor, e.note) for e in events} == {("archive", "operator", "tidy up")}
    undone = undo_changes(store, changes)
    assert all(store.get(i).status is Status.ACTIVE for i in ids)
    undo_changes(store, undone)  # redo
    assert all(store.get(i).status is Status.ARCHIVED for i in ids)
    back = Archive(store).unarchive(ids)
    assert back.action is acts.UNARCHIVE
    undo_changes(store, back)
    assert all(store.get(i).status is Status.ARCHIVED for i in ids)


def test_bad_requests_change_nothing_and_say_why(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="kept", type="fact").id
    gone = store.add(user_id="u", text="deleted", type="fact").id
    store.soft_delete(gone)
    done = store.add(user_id="u", text="archived", type="fact").id
    Archive(store).archive([done])
    before = len(store.events(limit=10_000))
    arch = Archive(store)
    with pytest.raises(NotFoundError, match="No memory with id 'nope'; nothing was archived"):
        arch.archive([a, "nope"])
    with pytest.raises(ArchiveStateError, match=f"memory {gone} is deleted"):
        arch.archive([a, gone])
    with pytest.raises(ArchiveStateError, match=f"memory {done} is archived already"):
        arch.archive([a, done])
    with pytest.raises(ArchiveStateError, match=f"Nothing was unarchived: memory {a} is not"):
        arch.unarchive([a, done])
    with pytest.raises(ValidationError, match="name at least one memory"):
        arch.archive([])
    assert len(store.events(limit=10_000)) == before
    assert store.get(a).status is Status.ACTIVE and store.get(done).status is Status.ARCHIVED
    # The same id twice is one request for it.
    assert len(arch.archive([a, a]).event_ids) == 1


def test_many_refusals_are_named_up_to_five(store: MemoryStore) -> None:
    ids = [store.add(user_id="u", text=f"n{i}", type="note").id for i in range(8)]
    with pytest.raises(ArchiveStateError, match=r"; and 3 more\.") as err:
        Archive(store).unarchive(ids)
    assert str(err.value).count("is not archived") == 5


def test_curation_queues_and_sweeps_leave_archived_out(demo_store: MemoryStore) -> None:
    con = Contradictions(demo_store)
    group = con.load(con.find()[0].key)
    member = group.members[0].id
    dups = Duplicates(demo_store)
    cluster = dups.find()[0]
    Archive(demo_store).archive([member, *cluster.member_ids])
    for g in con.find():
        assert member not in {m.id for m in con.load(g.key).members}
    assert not {m for c in dups.find() for m in c.member_ids} & set(cluster.member_ids)
    state = Sweeps(demo_store).start((0.0, 1.0), 500, seed=1)
    assert not {it.memory_id for it in state.items} & {member, *cluster.member_ids}
