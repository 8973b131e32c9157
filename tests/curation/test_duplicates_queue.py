"""The duplicates queue through its façade: clusters by normalised text and by vectors
(with the cosine shown), near-misses that state different values kept apart, a merge
that is one undo step restoring every member, "not duplicates" remembered until undone,
bad input refused with the field named and nothing changed."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.core.curation.duplicates import Duplicates, StaleClusterError
from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.undo.generic import undo_changes


def vec(*xs: float) -> bytes:
    """A small L2-normalised float32 vector as the store keeps them."""
    v = np.array(xs, dtype=np.float32)
    return (v / np.linalg.norm(v)).astype("<f4").tobytes()


def add(store: MemoryStore, text: str, v: bytes | None = None, *, user: str = "u",
        confidence: float = 0.5, **triple: str) -> str:
    return store.add(user_id=user, text=text, type="fact", confidence=confidence,
                     embedding=v, **triple).id


def member_sets(queue: Duplicates, **kw: object) -> list[set[str]]:
    return [set(c.member_ids) for c in queue.find(**kw)]  # type: ignore[arg-type]


def test_same_normalised_text_is_one_cluster_across_case_space_punctuation_and_nfkc(
        store: MemoryStore) -> None:
    a = add(store, "User lives in Lisbon.")
    b = add(store, "user  lives in LISBON")
    c = add(store, "User lives in Lisbon!")  # fullwidth "!" folds by NFKC
    add(store, "User lives in Porto.")
    add(store, "User lives in Lisbon.", user="someone-else")  # another user: never joined
    [cluster] = Duplicates(store).find()
    assert set(cluster.member_ids) == {a, b, c}
    assert cluster.pairs and all(p.same_text for p in cluster.pairs)


def test_vectors_above_the_threshold_cluster_and_show_their_cosine(store: MemoryStore) -> None:
    a = add(store, "User formats code with autopep8.", vec(1, 0.1, 0))
    b = add(store, "The user runs autopep8 to format code.", vec(1, 0.15, 0))
    add(store, "User enjoys long walks.", vec(0, 0, 1))
    queue = Duplicates(store)
    [cluster] = queue.find()
    assert set(cluster.member_ids) == {a, b}
    [pair] = cluster.pairs
    assert not pair.same_text  # joined by their vectors, not their text
    assert pair.cosine == pytest.approx(float(np.dot(
        np.frombuffer(vec(1, 0.1, 0), "<f4"), np.frombuffer(vec(1, 0.15, 0), "<f4"))), abs=1e-6)
    assert queue.find(threshold=0.99999) == []  # the operator's threshold decides


def test_near_misses_that_state_different_values_are_not_duplicates(store: MemoryStore) -> None:
    # Same topic, nearly the same vector, different value: in words and in triples.
    add(store, "User works at Acme.", vec(1, 0.01, 0))
    add(store, "User works at Globex.", vec(1, 0.02, 0))
    add(store, "User's editor is vim", vec(0, 1, 0.01), entity="user", attribute="editor",
        value="vim")
    add(store, "User's editor is emacs", vec(0, 1, 0.02), entity="user", attribute="editor",
        value="emacs")
    add(store, "User is 41 years old.", vec(0, 0.01, 1))
    add(store, "User is 42 years old.", vec(0, 0.02, 1))
    # One template, other fillers: two notes, however close their vectors.
    add(store, "Runs black before every commit; deploys quill on Fridays.", vec(1, 1, 0.01))
    add(store, "Runs tox before every commit; deploys project-alpha on Fridays.",
        vec(1, 1, 0.02))
    assert Duplicates(store).find() == []


def test_one_frame_with_another_common_word_in_a_slot_is_two_notes(store: MemoryStore) -> None:
    # No names to tell them apart, only the word that differs: still two facts.
    add(store, "Runs the linter before every commit on the main branch.", vec(1, 1, 0.01))
    add(store, "Runs the formatter before every commit on the main branch.", vec(1, 1, 0.02))
    assert Duplicates(store).find() == []


def test_merge_keeps_one_supersedes_the_rest_with_provenance_and_undoes_in_one_step(
        store: MemoryStore) -> None:
    ids = [add(store, "User lives in Lisbon.", confidence=c) for c in (0.9, 0.4, 0.9)]
    queue = Duplicates(store)
    [cluster] = queue.find()
    assert cluster.suggested == ids[2]  # the newest of the highest confidence
    out = queue.merge_cluster(cluster, keep=ids[0])
    assert out.changes.action is acts.MERGE
    assert out.changes.undo_label() == "Undo merge of duplicates of 2 memories"
    assert store.get(ids[0]).is_active
    for other in ids[1:]:
        rec = store.get(other)
        assert rec.superseded_by == ids[0] and not rec.is_active
        [ev] = [e for e in store.events(other) if e.action == "merge"]
        assert f"cluster {cluster.id}" in (ev.note or "") and ev.group_id == out.group_id
    assert queue.find() == []

    undone = undo_changes(store, out.changes)  # the generic undo, through the registry
    assert all(store.get(i).is_active for i in ids)
    assert member_sets(queue) == [set(ids)]
    undo_changes(store, undone)  # redo
    assert [store.get(i).is_active for i in ids] == [True, False, False]


def test_a_merge_by_ids_keeps_the_operators_note_and_actor(store: MemoryStore) -> None:
    ids = [add(store, "User lives in Lisbon.") for _ in range(2)]
    out = Duplicates(store).merge(ids, ids[0], note="same move, said twice", actor="agent")
    [ev] = [e for e in store.events(ids[1]) if e.action == "merge"]
    assert "same move, said twice" in (ev.note or "") and ev.actor == "agent"
    assert ev.group_id == out.group_id


def test_not_duplicates_is_remembered_until_undone_and_a_new_member_is_offered(
        store: MemoryStore) -> None:
    a = add(store, "User runs tests with pytest.", vec(1, 0.05, 0))
    b = add(store, "The user tests code using pytest.", vec(1, 0.06, 0))
    queue = Duplicates(store)
    [cluster] = queue.find()
    out = queue.dismiss(cluster.member_ids, note="one is about CI")
    assert queue.find() == []
    assert all(store.get(i).is_active for i in (a, b))  # no memory changed
    c = add(store, "User runs tests with pytest.")  # same text as a: a new pair
    assert member_sets(queue) == [{a, c}]
    undo_changes(store, out.changes)
    assert member_sets(queue) == [{a, b, c}]


def test_a_listed_cluster_that_changed_is_refused_not_merged(store: MemoryStore) -> None:
    ids = [add(store, "User likes tea.") for _ in range(3)]
    queue = Duplicates(store)
    [cluster] = queue.find()
    store.soft_delete(ids[1])
    with pytest.raises(StaleClusterError, match="changed since it was listed"):
        queue.cluster(cluster.id)
    with pytest.raises(StaleClusterError, match="no longer active"):
        queue.merge_cluster(cluster)
    assert store.get(ids[2]).is_active and store.get(ids[0]).is_active


@pytest.mark.parametrize(("call", "field"), [
    (lambda q, ids: q.find(threshold=0.2), "threshold"),
    (lambda q, ids: q.find(threshold=float("nan")), "threshold"),
    (lambda q, ids: q.find(threshold="high"), "threshold"),
    (lambda q, ids: q.merge(ids[:1], ids[0]), "ids"),
    (lambda q, ids: q.merge(ids, "not-a-member"), "keep"),
    (lambda q, ids: q.merge([ids[0], ids[2]], ids[0]), "ids"),  # two users
    (lambda q, ids: q.dismiss([ids[0]]), "ids"),
    (lambda q, ids: q.cluster("nonsense"), "cluster"),
])
def test_bad_input_names_the_field_and_changes_nothing(store: MemoryStore, call,
                                                       field: str) -> None:
    ids = [add(store, "User likes tea."), add(store, "User likes tea."),
           add(store, "User likes tea.", user="v")]
    before = len(store.events(limit=1000))
    with pytest.raises(ValidationError) as info:
        call(Duplicates(store), ids)
    assert info.value.field == field
    assert len(store.events(limit=1000)) == before


def test_unknown_members_and_clusters_are_not_found(store: MemoryStore) -> None:
    a = add(store, "User likes tea.")
    queue = Duplicates(store)
    with pytest.raises(NotFoundError):
        queue.merge([a, "missing-id"], a)
    with pytest.raises(NotFoundError):
        queue.cluster("999999-abcdef12")


def test_clusters_of_several_users_come_by_user_name(store: MemoryStore) -> None:
    # A listing cut at a limit must be the same cut every time, on either backend.
    for user in ("zoe", "adam", "mia"):
        add(store, "User lives in Lisbon.", user=user)
        add(store, "user lives in lisbon", user=user)
    users = [c.user_id for c in Duplicates(store).find()]
    assert users == ["adam", "mia", "zoe"]
    assert [c.user_id for c in Duplicates(store).find(limit=1)] == ["adam"]
