"""Decay (set-based, per-type half-lives, retrieval-boosted) and correction linking."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memdesk.core.errors import EditConflictError
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.maintain import Cancelled, maintain
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from tests.helpers.read import NOW, put


def test_decay_uses_each_types_half_life(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": t, "text": f"A {t} written long ago.", "days_ago": d}
        for t, d in [("preference", 120), ("decision", 90), ("correction", 60), ("error", 30),
                     ("note", 14), ("note", 28), ("fact", 0)]
    ], embed=False)
    report = maintain(store, now=NOW, link=False)
    assert report.decayed == 7
    got = [store.get(i).decay_score for i in ids]
    assert got[:5] == pytest.approx([0.5] * 5)  # one half-life each
    assert got[5] == pytest.approx(0.25) and got[6] == pytest.approx(1.0)
    assert store.events("*")[0].action == "decay"


def test_decay_is_boosted_by_retrieval(store: MemoryStore) -> None:
    ids = put(store, [{"type": "note", "text": "Recalled often.", "days_ago": 40,
                       "access_count": 9}, {"type": "note", "text": "Never recalled.",
                                            "days_ago": 40}], embed=False)
    store.update(ids[0], last_accessed=NOW - timedelta(days=14))
    maintain(store, now=NOW, link=False)
    often, never = store.get(ids[0]).decay_score, store.get(ids[1]).decay_score
    boosted_half_life = 14 * (1 + 0.5 * __import__("math").log(10))
    assert often == pytest.approx(2 ** (-14 / boosted_half_life))
    assert never == pytest.approx(2 ** (-40 / 14))
    custom = ReadConfig(half_lives={"note": 40.0})
    maintain(store, custom, now=NOW, link=False)
    assert store.get(ids[1]).decay_score == pytest.approx(0.5)
    again = maintain(store, custom, now=NOW, link=False)
    assert again.decayed == 0  # nothing moved: no row rewritten


def test_decay_leaves_inactive_rows_alone(store: MemoryStore) -> None:
    ids = put(store, [{"text": "old", "days_ago": 10}, {"text": "new", "days_ago": 1}],
              embed=False)
    store.supersede(ids[0], ids[1])
    maintain(store, now=NOW, link=False)
    assert store.get(ids[0]).decay_score is None
    assert store.get(ids[1]).decay_score is not None


def test_corrections_link_along_the_chain_by_triple(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "preference", "text": "User prefers unittest for testing.", "days_ago": 30,
         "entity": "user", "attribute": "test_framework", "value": "unittest"},
        {"type": "correction", "text": "No, I use pytest not unittest.", "days_ago": 20,
         "entity": "User ", "attribute": "Test_Framework", "value": "pytest"},
        {"type": "correction", "text": "Actually it is ward, not pytest.", "days_ago": 10,
         "entity": "user", "attribute": "test_framework", "value": "ward"},
        {"type": "preference", "text": "User prefers hypothesis too.", "days_ago": 5,
         "entity": "user", "attribute": "test_framework", "value": "hypothesis"},
        {"type": "preference", "text": "Other user's unittest.", "days_ago": 40, "user_id": "v",
         "entity": "user", "attribute": "test_framework", "value": "unittest"},
    ], embed=False)
    report = maintain(store, now=NOW)
    assert {(x.old_id, x.new_id) for x in report.links} == {(ids[0], ids[1]), (ids[1], ids[2])}
    assert store.get(ids[0]).superseded_by == ids[1]
    assert store.get(ids[0]).valid_until == NOW - timedelta(days=20)
    assert store.get(ids[1]).superseded_by == ids[2]
    assert store.get(ids[2]).is_active and store.get(ids[3]).is_active
    assert store.get(ids[4]).is_active
    events = store.group_events(report.group_id)
    assert {e.memory_id for e in events} == {ids[0], ids[1]}
    assert all(e.actor == "worker" and "same user, entity and attribute" in e.note
               for e in events)
    assert maintain(store, now=NOW).links == []  # idempotent
    store.undo_group(report.group_id)
    assert store.get(ids[0]).status is Status.ACTIVE


def test_corrections_without_a_triple_link_by_similarity(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "preference", "text": "Prefer tabs over spaces.", "days_ago": 30},
        {"type": "decision", "text": "Using PostgreSQL for analytics.", "days_ago": 25},
        {"type": "correction", "text": "Correction: I prefer spaces, not tabs.", "days_ago": 2},
        {"type": "correction", "text": "Correction: the weather app is fine.", "days_ago": 1},
    ])
    report = maintain(store, now=NOW)
    assert [(x.old_id, x.new_id) for x in report.links] == [(ids[0], ids[2])]
    assert "cosine" in report.links[0].how
    assert store.get(ids[1]).is_active


def test_maintain_changes_what_is_retrieved(store: MemoryStore) -> None:
    put(store, [
        {"type": "preference", "text": "User prefers unittest for testing.", "days_ago": 30,
         "entity": "user", "attribute": "test_framework", "value": "unittest"},
        {"type": "correction", "layer": "procedural", "text": "No, I use pytest not unittest.",
         "days_ago": 20, "entity": "user", "attribute": "test_framework", "value": "pytest"},
    ])
    r = Retriever(store, clock=lambda: NOW)
    before = r.retrieve("which test framework?", "u")
    shown = {h.text for h in before.results} | {p.text for p in before.preferences}
    assert "User prefers unittest for testing." in shown
    maintain(store, now=NOW)
    after = r.retrieve("which test framework?", "u")
    shown = {h.text for h in after.results} | {p.text for p in after.preferences}
    assert shown == {"No, I use pytest not unittest."}


def test_cancel_writes_nothing(store: MemoryStore) -> None:
    ids = put(store, [{"text": "x", "days_ago": 3}], embed=False)
    with pytest.raises(Cancelled):
        maintain(store, now=NOW, cancelled=lambda: True)
    assert store.get(ids[0]).decay_score is None


def test_a_link_bumps_the_version_so_a_stale_operator_edit_is_refused(
    store: MemoryStore,
) -> None:
    ids = put(store, [
        {"type": "preference", "text": "User prefers tabs.", "days_ago": 30,
         "entity": "user", "attribute": "indent", "value": "tabs"},
        {"type": "correction", "text": "No, spaces not tabs.", "days_ago": 10,
         "entity": "user", "attribute": "indent", "value": "spaces"},
    ], embed=False)
    seen = store.get(ids[0]).version  # an operator opens the old memory for editing
    maintain(store, now=NOW)
    assert store.get(ids[0]).version == seen + 1
    with pytest.raises(EditConflictError):
        store.update(ids[0], importance=0.9, expected_version=seen)
    assert store.get(ids[0]).superseded_by == ids[1]


def test_a_type_without_its_own_half_life_decays_on_the_default(store: MemoryStore) -> None:
    ids = put(store, [{"type": "note", "text": "Thirty days old.", "days_ago": 30},
                      {"type": "fact", "text": "Sixty days old.", "days_ago": 60}], embed=False)
    cfg = ReadConfig(half_lives={"fact": 60.0}, default_half_life=30.0)
    report = maintain(store, cfg, now=NOW, link=False)
    assert report.decayed == 2
    assert store.get(ids[0]).decay_score == pytest.approx(0.5)  # 30 days / 30-day default
    assert store.get(ids[1]).decay_score == pytest.approx(0.5)
    maintain(store, ReadConfig(half_lives={"fact": 60.0}, default_half_life=15.0), now=NOW,
             link=False)
    assert store.get(ids[0]).decay_score == pytest.approx(0.25)  # 30 days / 15
    assert store.get(ids[1]).decay_score == pytest.approx(0.5)


def test_no_per_type_half_lives_means_the_default_for_all(store: MemoryStore) -> None:
    ids = put(store, [{"type": "note", "text": "Thirty days old.", "days_ago": 30}], embed=False)
    maintain(store, ReadConfig(half_lives={}, default_half_life=30.0), now=NOW, link=False)
    assert store.get(ids[0]).decay_score == pytest.approx(0.5)


def test_a_lone_correction_links_only_to_what_came_before_it(store: MemoryStore) -> None:
    # Same creation time: the earlier-inserted row (lower seq) counts as before it, a
    # later-inserted one does not; a newer row never does, even one inserted before.
    later = put(store, [
        {"type": "note", "text": "Deploys run on Fridays again.", "days_ago": 2},
        {"type": "correction", "text": "Correction: deploys run on Fridays.", "days_ago": 5},
        {"type": "note", "text": "Deploys run on Fridays.", "days_ago": 5},
        {"type": "note", "text": "Deploys run on Fridays now.", "days_ago": 1},
    ], embed=False)
    earlier = put(store, [
        {"type": "note", "text": "Deploys run on Fridays.", "days_ago": 5},
        {"type": "correction", "text": "Correction: deploys run on Fridays.", "days_ago": 5},
    ], embed=False, user="v")
    steps: list[tuple[str, float]] = []
    report = maintain(store, now=NOW, progress=lambda name, frac: steps.append((name, frac)))
    assert [(x.old_id, x.new_id) for x in report.links] == [(earlier[0], earlier[1])]
    assert report.links[0].how.startswith("text similarity (word overlap ")
    assert all(store.get(i).is_active for i in later)
    assert steps == [("linking corrections by triple", 0.05),
                     ("linking corrections by text", 0.35), ("writing links", 0.5),
                     ("decaying scores", 0.6), ("committing", 0.95), ("done", 1.0)]
