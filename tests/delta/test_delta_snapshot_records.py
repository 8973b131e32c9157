"""Snapshots and stored diffs through ``DeltaMemory``: what a saved snapshot and diff
read back as, and how lists filter, order, page and limit.

Rules from snapshots.py: a snapshot is stored with its items; the diff from the goal's
previous snapshot is stored with it; a flagged diff (suspicious or dangerous) enters the
review queue as 'pending', a healthy one as 'none'.  Lists are newest first (time, then
insertion order); the series is oldest first with each source's share of the aggregate."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta

import pytest

from memdesk.core.delta.compose import build_memory_set
from memdesk.core.delta.contracts import Candidate, DeltaConfig, HealthStatus, SourceConfig
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.errors import NotFoundError

T0 = datetime(2026, 10, 1, 9)
H = timedelta(hours=1)
CFG = DeltaConfig((SourceConfig("a", "ta", 1.0), SourceConfig("b", "tb", 0.5),
                   SourceConfig("c", "tc", 1.0)), normalize_weights=False)


def mset(set_id: str, at: datetime, *cands: Candidate, goal: str = "g", label: str = ""):  # type: ignore[no-untyped-def]
    return build_memory_set(goal, "q", list(cands), CFG, set_id=set_id, created_at=at,
                            label=label)


CALM = (Candidate("a", "alpha", 1, 0.5), Candidate("b", "beta", 1, 0.5))
FLOOD = tuple(Candidate("c", f"flood {i}", 1, 1) for i in range(6))


def save(store, *sets) -> list:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    return [dm.save(s) for s in sets]


# -- rows ---------------------------------------------------------------------------------

def test_a_snapshot_lists_its_figures_and_leaves_out_empty_sources(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.save(mset("S", T0, *CALM, label="x" * 250))
    [info] = dm.snapshots()
    assert info.label == "x" * 200  # labels are kept to 200 characters
    assert (info.id, info.goal, info.query, info.created_at, info.item_count) == (
        "S", "g", "q", T0, 2)
    # a: 1.0 × 0.5 = 0.5, b: 0.5 × 0.5 = 0.25, c: nothing.
    assert info.aggregate_score == 0.75
    assert (info.dominant_source, info.dominance_ratio) == ("a", 0.5 / 0.75)
    got = dm.load("S")
    assert got.weights == {"a": 1.0, "b": 0.5, "c": 1.0}
    assert [r.source for r in got.source_reports] == ["a", "b", "c"]
    # c contributed nothing: the source totals leave it out.
    assert {k: list(v) for k, v in dm.series("g").shares.items()} == {
        "a": [0.5 / 0.75], "b": [0.25 / 0.75]}


def test_items_keep_their_order_and_readable_provenance(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.save(mset("S", T0, Candidate("a", "alpha", 1, 1, provenance={"who": "Zoë", "at": T0}),
                 Candidate("b", "beta", 1, 0.5)))
    got = dm.load("S").contributions
    assert [c.text for c in got] == ["alpha", "beta"]
    assert got[0].provenance == {"who": "Zoë", "at": "2026-10-01 09:00:00"}
    assert got[1].provenance == {}
    assert (got[1].source_weight, got[1].weighted_score) == (0.5, 0.25)


@pytest.mark.parametrize(("after", "status", "review"), [
    (CALM, HealthStatus.HEALTHY, "none"),
    (CALM + FLOOD[:2], HealthStatus.SUSPICIOUS, "pending"),
    (FLOOD, HealthStatus.DANGEROUS, "pending"),
])
def test_a_flagged_diff_is_stored_pending_review(store, after: tuple,  # type: ignore[no-untyped-def]
                                                 status: HealthStatus, review: str) -> None:
    saved = save(store, mset("A", T0, *CALM), mset("B", T0 + H, *after))[1]
    assert saved.diff.health.status is status
    rec = DeltaMemory(store).stored_diff(saved.diff_id)
    assert (rec.status, rec.review) == (status.value, review)
    assert [r.id for r in DeltaMemory(store).queue()] == (
        [saved.diff_id] if review == "pending" else [])


# -- reading back ---------------------------------------------------------------------------

def test_a_saved_set_loads_back_field_by_field(store) -> None:  # type: ignore[no-untyped-def]
    ms = mset("S", T0, Candidate("a", "alpha", 0.5, 1, raw_score=0.75, provenance={"p": [1]},
                                 entity="e", attribute="at", value="v", candidate_id="c1"),
              Candidate("b", "beta", 1, 0.5), label="first")
    save(store, ms)
    got = DeltaMemory(store).load("S")
    assert (got.id, got.goal, got.query, got.label, got.created_at) == ("S", "g", "q", "first",
                                                                          T0)
    assert got.contributions == ms.contributions
    assert got.contributions[1].provenance == {}
    assert got.source_reports == ms.source_reports
    assert (got.aggregate_score, got.dominant_source, got.dominance_ratio, got.weights) == (
        ms.aggregate_score, ms.dominant_source, ms.dominance_ratio, ms.weights)


def test_loading_an_unknown_snapshot_names_it(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    with pytest.raises(NotFoundError) as e:
        dm.load("nope")
    assert str(e.value) == "No snapshot 'nope'"
    with pytest.raises(NotFoundError) as e:
        dm.stored_diff(99)
    assert str(e.value) == "No stored diff 99"
    with pytest.raises(NotFoundError) as e:
        dm.resolve("zzzzzz")
    assert str(e.value) == "No snapshot 'zzzzzz'"


def test_a_stored_diff_reads_back_field_by_field(store) -> None:  # type: ignore[no-untyped-def]
    a, b = mset("A", T0, *CALM), mset("B", T0 + H, *CALM, *FLOOD[:2])
    saved = save(store, a, b)[1]
    d = saved.diff
    rec = DeltaMemory(store).stored_diff(saved.diff_id)
    h = d.health
    assert (rec.id, rec.goal, rec.before_id, rec.after_id, rec.created_at) == (
        saved.diff_id, "g", "A", "B", T0 + H)
    assert (rec.aggregate_delta, rec.before_dominant, rec.after_dominant, rec.primary_cause) == (
        d.aggregate_score_delta, d.before_dominant_source, d.after_dominant_source,
        d.attribution.primary_cause_source)
    assert rec.changed_dominant is d.changed_dominant_source
    assert (rec.dominance, rec.volatility, rec.drift, rec.contradiction, rec.confidence,
            rec.risk) == (h.dominance_score, h.volatility_score, h.drift_score,
                          h.contradiction_score, h.confidence_score, h.risk_score)
    assert (rec.status, rec.action) == ("suspicious", d.decision.action.value)
    assert rec.decision == d.to_json()["decision"]
    assert rec.warnings == list(h.warnings)
    assert rec.influence == d.attribution.source_influence
    assert rec.bias == json.loads(json.dumps(d.bias.to_json()))  # tuples read back as lists
    assert (rec.review, rec.review_note, rec.reviewed_at) == ("pending", None, None)


def test_a_changed_dominant_source_reads_back_true(store) -> None:  # type: ignore[no-untyped-def]
    saved = save(store, mset("A", T0, *CALM), mset("B", T0 + H, *FLOOD))[1]
    assert saved.diff.changed_dominant_source is True
    rec = DeltaMemory(store).stored_diff(saved.diff_id)
    assert rec.changed_dominant is True
    assert (rec.before_dominant, rec.after_dominant) == ("a", "c")


# -- lists ----------------------------------------------------------------------------------

def flagged_store(store) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Goal g: calm, calm (healthy diff), flood (dangerous); goal h: calm, suspicious."""
    saved = save(store, mset("g1", T0, *CALM), mset("g2", T0 + H, *CALM),
                 mset("g3", T0 + 2 * H, *FLOOD),
                 mset("h1", T0 + 3 * H, *CALM, goal="h"),
                 mset("h2", T0 + 4 * H, *CALM, *FLOOD[:2], goal="h"))
    return {"healthy": saved[1].diff_id, "dangerous": saved[2].diff_id,
            "suspicious": saved[4].diff_id}


def test_the_queue_filters_by_goal_and_review_newest_first(store) -> None:  # type: ignore[no-untyped-def]
    ids = flagged_store(store)
    dm = DeltaMemory(store)
    dm.review(ids["suspicious"], "accept")
    assert [r.id for r in dm.queue()] == [ids["dangerous"]]
    assert [r.id for r in dm.queue(pending_only=False)] == [ids["suspicious"], ids["dangerous"]]
    assert [r.id for r in dm.queue(goal="h", pending_only=False)] == [ids["suspicious"]]
    assert [r.id for r in dm.queue(pending_only=False, limit=1)] == [ids["suspicious"]]


def test_list_snapshots_newest_first_with_the_health_that_led_there(store) -> None:  # type: ignore[no-untyped-def]
    flagged_store(store)
    dm = DeltaMemory(store)
    infos = dm.snapshots()
    g = dm.snapshots(goal="g")
    page = dm.snapshots(limit=2, offset=1)
    assert [i.id for i in infos] == ["h2", "h1", "g3", "g2", "g1"]
    assert [(i.status, i.action) for i in g] == [("dangerous", "reject"), ("healthy", "accept"),
                                                 (None, None)]
    assert [i.id for i in page] == ["h1", "g3"]
    first = infos[-1]
    assert (first.goal, first.query, first.label, first.created_at, first.item_count,
            first.aggregate_score, first.dominant_source, first.dominance_ratio) == (
        "g", "q", "", T0, 2, 0.75, "a", 0.5 / 0.75)
    assert [i.id for i in dm.snapshots("g", limit=1)] == ["g3"]
    assert [i.id for i in dm.snapshots(limit=1, offset=4)] == ["g1"]


def test_snapshots_at_the_same_time_list_the_later_saved_first(store) -> None:  # type: ignore[no-untyped-def]
    saved = save(store, mset("first", T0, *CALM), mset("second", T0, *CALM))
    # The second diffs against the first: "previous" includes the same moment.
    assert saved[1].diff.before_id == "first"
    assert [i.id for i in DeltaMemory(store).snapshots()] == ["second", "first"]
    third, earlier, other = save(store, mset("third", T0, *CALM),
                                 mset("earlier", T0 - H, *CALM),
                                 mset("other", T0 + H, *CALM, goal="other"))
    assert third.diff.before_id == "second"
    assert (earlier.diff, earlier.diff_id) == (None, None)  # nothing before it
    assert other.diff is None  # another goal's snapshots are not its previous


def test_a_snapshot_diffs_against_the_latest_not_after_its_time(store) -> None:  # type: ignore[no-untyped-def]
    save(store, mset("s1", T0, *CALM), mset("s2", T0 + 2 * H, *CALM))
    late, mid, same = save(store, mset("x1", T0 + 3 * H, *CALM), mset("x2", T0 + H, *CALM),
                           mset("x3", T0 + 2 * H, *CALM))
    assert (late.diff.before_id, mid.diff.before_id, same.diff.before_id) == ("s2", "s1", "s2")


def test_goals_count_snapshots_most_recent_first(store) -> None:  # type: ignore[no-untyped-def]
    flagged_store(store)
    save(store, mset("g4", T0 + 10 * H, *CALM))
    assert DeltaMemory(store).goals() == [("g", 4, T0 + 10 * H), ("h", 2, T0 + 4 * H)]


def test_series_oldest_first_with_shares_risk_and_diff_ids(store) -> None:  # type: ignore[no-untyped-def]
    ids = flagged_store(store)
    save(store, mset("g4", T0 + 5 * H, goal="g"))  # empty: aggregate 0
    s = DeltaMemory(store).series("g")
    assert len(s) == 4 and s.goal == "g"
    assert s.ids == ["g1", "g2", "g3", "g4"]
    assert s.times == [T0, T0 + H, T0 + 2 * H, T0 + 5 * H]
    assert s.labels == ["", "", "", ""]
    assert s.sources == ["a", "b", "c"]
    assert list(s.aggregate) == [0.75, 0.75, 6.0, 0.0]
    assert list(s.shares["a"]) == [0.5 / 0.75, 0.5 / 0.75, 0.0, 0.0]
    assert list(s.shares["b"]) == [0.25 / 0.75, 0.25 / 0.75, 0.0, 0.0]
    assert list(s.shares["c"]) == [0.0, 0.0, 1.0, 0.0]
    assert list(s.dominance) == [0.5 / 0.75, 0.5 / 0.75, 1.0, 0.0]
    assert s.status[0] is None and s.status[1:3] == ["healthy", "dangerous"]
    assert math.isnan(s.risk[0]) and s.risk[1] == s.risk[1] and s.risk[2] >= 0.7
    assert s.diff_ids[:3] == [None, ids["healthy"], ids["dangerous"]]
    assert s.diff_ids[3] is not None


def test_the_series_of_an_unknown_goal_is_empty(store) -> None:  # type: ignore[no-untyped-def]
    s = DeltaMemory(store).series("nothing")
    assert len(s) == 0 and s.sources == [] and s.shares == {}


def test_saving_nothing_writes_nothing(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    assert dm.save_series([], 0.5) == 0
    assert dm.snapshots() == []
    dm.save(mset("empty", T0))
    assert [i.id for i in dm.snapshots()] == ["empty"]
    assert dm.load("empty").contributions == []
    assert dm.queue(pending_only=False) == []
