"""Snapshots and stored diffs (core/delta/snapshots.py): what a row holds, what reads
back, and how lists filter, order, page and limit.

Rules from snapshots.py: a snapshot is stored with its items; the diff from the goal's
previous snapshot is stored with it; a flagged diff (suspicious or dangerous) enters the
review queue as 'pending', a healthy one as 'none'.  Lists are newest first (time, then
insertion order); the series is oldest first with each source's share of the aggregate."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta

import pytest

from memdesk.core.delta import snapshots as snap
from memdesk.core.delta.compose import build_memory_set
from memdesk.core.delta.contracts import Candidate, DeltaConfig, HealthStatus, SourceConfig
from memdesk.core.delta.diff import diff
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

def test_set_row_holds_the_figures_and_leaves_out_empty_sources() -> None:
    ms = mset("S", T0, *CALM, label="x" * 250)
    row = snap.set_row(ms)
    assert row["label"] == "x" * 200
    assert (row["id"], row["goal"], row["query"], row["created_at"], row["item_count"]) == (
        "S", "g", "q", T0, 2)
    # a: 1.0 × 0.5 = 0.5, b: 0.5 × 0.5 = 0.25, c: nothing.
    assert row["aggregate_score"] == 0.75
    assert (row["dominant_source"], row["dominance_ratio"]) == ("a", 0.5 / 0.75)
    assert row["source_totals"] == '{"a": 0.5, "b": 0.25}'
    assert row["weights"] == '{"a": 1.0, "b": 0.5, "c": 1.0}'
    assert [r["source"] for r in json.loads(row["source_reports"])] == ["a", "b", "c"]


def test_item_rows_number_the_items_and_keep_provenance_readable() -> None:
    ms = mset("S", T0, Candidate("a", "alpha", 1, 1, provenance={"who": "Zoë", "at": T0}),
              Candidate("b", "beta", 1, 0.5, candidate_id="k" * 250))
    rows = snap.item_rows(ms)
    assert [(r["set_id"], r["position"], r["text"]) for r in rows] == [
        ("S", 0, "alpha"), ("S", 1, "beta")]
    assert rows[0]["provenance"] == '{"who": "Zoë", "at": "2026-10-01 09:00:00"}'
    assert rows[1]["provenance"] is None
    assert rows[1]["key"] == ("id:" + "k" * 250)[:200]
    assert (rows[1]["source_weight"], rows[1]["weighted_score"], rows[1]["original_score"]) == (
        0.5, 0.25, 0.5)


@pytest.mark.parametrize(("after", "status", "review"), [
    (CALM, HealthStatus.HEALTHY, "none"),
    (CALM + FLOOD[:2], HealthStatus.SUSPICIOUS, "pending"),
    (FLOOD, HealthStatus.DANGEROUS, "pending"),
])
def test_diff_row_copies_the_diff_and_queues_flagged_ones(after: tuple, status: HealthStatus,
                                                          review: str) -> None:
    d = diff(mset("A", T0, *CALM), mset("B", T0 + H, *after))
    assert d.health.status is status
    row = snap.diff_row("g", T0 + H, d)
    h = d.health
    assert row == {
        "goal": "g", "before_id": "A", "after_id": "B", "created_at": T0 + H,
        "aggregate_delta": d.aggregate_score_delta,
        "before_dominant": d.before_dominant_source, "after_dominant": d.after_dominant_source,
        "changed_dominant": d.changed_dominant_source,
        "primary_cause": d.attribution.primary_cause_source,
        "dominance": h.dominance_score, "volatility": h.volatility_score,
        "drift": h.drift_score, "contradiction": h.contradiction_score,
        "confidence": h.confidence_score, "risk": h.risk_score,
        "status": status.value, "action": d.decision.action.value,
        "decision": json.dumps(d.to_json()["decision"]),
        "warnings": json.dumps(list(h.warnings)),
        "influence": json.dumps(d.attribution.source_influence, sort_keys=True),
        "bias": json.dumps(d.bias.to_json()), "review": review,
    }


# -- reading back ---------------------------------------------------------------------------

def test_a_saved_set_loads_back_field_by_field(store) -> None:  # type: ignore[no-untyped-def]
    ms = mset("S", T0, Candidate("a", "alpha", 0.5, 1, raw_score=0.75, provenance={"p": [1]},
                                 entity="e", attribute="at", value="v", candidate_id="c1"),
              Candidate("b", "beta", 1, 0.5), label="first")
    save(store, ms)
    with store.read() as conn:
        got = snap.load_set(conn, "S")
    assert (got.id, got.goal, got.query, got.label, got.created_at) == ("S", "g", "q", "first",
                                                                          T0)
    assert got.contributions == ms.contributions
    assert got.contributions[1].provenance == {}
    assert got.source_reports == ms.source_reports
    assert (got.aggregate_score, got.dominant_source, got.dominance_ratio, got.weights) == (
        ms.aggregate_score, ms.dominant_source, ms.dominance_ratio, ms.weights)


def test_loading_an_unknown_snapshot_names_it(store) -> None:  # type: ignore[no-untyped-def]
    with store.read() as conn, pytest.raises(NotFoundError) as e:
        snap.load_set(conn, "nope")
    assert str(e.value) == "No snapshot 'nope'"
    with store.read() as conn, pytest.raises(NotFoundError) as e:
        snap.diff_record(conn, 99)
    assert str(e.value) == "No stored diff 99"
    with store.read() as conn, pytest.raises(NotFoundError) as e:
        snap.resolve(conn, "zzzzzz")
    assert str(e.value) == "No snapshot 'zzzzzz'"


def test_a_stored_diff_reads_back_field_by_field(store) -> None:  # type: ignore[no-untyped-def]
    a, b = mset("A", T0, *CALM), mset("B", T0 + H, *CALM, *FLOOD[:2])
    saved = save(store, a, b)[1]
    d = saved.diff
    with store.read() as conn:
        rec = snap.diff_record(conn, saved.diff_id)
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
    with store.read() as conn:
        rec = snap.diff_record(conn, saved.diff_id)
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


def test_diff_records_filter_by_goal_flag_and_review_newest_first(store) -> None:  # type: ignore[no-untyped-def]
    ids = flagged_store(store)
    dm = DeltaMemory(store)
    dm.review(ids["suspicious"], "accept")
    with store.read() as conn:
        flagged = [r.id for r in snap.diff_records(conn)]
        every = [r.id for r in snap.diff_records(conn, flagged_only=False)]
        pending = [r.id for r in snap.diff_records(conn, pending_only=True)]
        of_g = [r.id for r in snap.diff_records(conn, goal="g", flagged_only=False)]
        one = [r.id for r in snap.diff_records(conn, flagged_only=False, limit=1)]
    assert flagged == [ids["suspicious"], ids["dangerous"]]
    assert every == [ids["suspicious"], ids["dangerous"], ids["healthy"]]
    assert pending == [ids["dangerous"]]
    assert of_g == [ids["dangerous"], ids["healthy"]]
    assert one == [ids["suspicious"]]
    assert [r.id for r in dm.queue()] == [ids["dangerous"]]
    assert [r.id for r in dm.queue(pending_only=False)] == [ids["suspicious"], ids["dangerous"]]
    assert [r.id for r in dm.queue(goal="h", pending_only=False)] == [ids["suspicious"]]
    assert [r.id for r in dm.queue(pending_only=False, limit=1)] == [ids["suspicious"]]


def test_list_snapshots_newest_first_with_the_health_that_led_there(store) -> None:  # type: ignore[no-untyped-def]
    flagged_store(store)
    with store.read() as conn:
        infos = snap.list_snapshots(conn)
        g = snap.list_snapshots(conn, goal="g")
        page = snap.list_snapshots(conn, limit=2, offset=1)
    assert [i.id for i in infos] == ["h2", "h1", "g3", "g2", "g1"]
    assert [(i.status, i.action) for i in g] == [("dangerous", "reject"), ("healthy", "accept"),
                                                 (None, None)]
    assert [i.id for i in page] == ["h1", "g3"]
    first = infos[-1]
    assert (first.goal, first.query, first.label, first.created_at, first.item_count,
            first.aggregate_score, first.dominant_source, first.dominance_ratio) == (
        "g", "q", "", T0, 2, 0.75, "a", 0.5 / 0.75)
    dm = DeltaMemory(store)
    assert [i.id for i in dm.snapshots("g", limit=1)] == ["g3"]
    assert [i.id for i in dm.snapshots(limit=1, offset=4)] == ["g1"]


def test_snapshots_at_the_same_time_list_the_later_saved_first(store) -> None:  # type: ignore[no-untyped-def]
    saved = save(store, mset("first", T0, *CALM), mset("second", T0, *CALM))
    # The second diffs against the first: "previous" includes the same moment.
    assert saved[1].diff.before_id == "first"
    with store.read() as conn:
        assert [i.id for i in snap.list_snapshots(conn)] == ["second", "first"]
        assert snap.previous_id(conn, "g", T0) == "second"
        assert snap.previous_id(conn, "g", T0, exclude="second") == "first"
        assert snap.previous_id(conn, "g", T0 - H) is None
        assert snap.previous_id(conn, "other", T0 + H) is None


def test_previous_id_is_the_latest_not_after_the_time(store) -> None:  # type: ignore[no-untyped-def]
    save(store, mset("s1", T0, *CALM), mset("s2", T0 + 2 * H, *CALM))
    with store.read() as conn:
        assert snap.previous_id(conn, "g", T0 + H) == "s1"
        assert snap.previous_id(conn, "g", T0 + 2 * H) == "s2"
        assert snap.previous_id(conn, "g", T0 + 3 * H) == "s2"


def test_goals_count_snapshots_most_recent_first(store) -> None:  # type: ignore[no-untyped-def]
    flagged_store(store)
    save(store, mset("g4", T0 + 10 * H, *CALM))
    with store.read() as conn:
        assert snap.goals(conn) == [("g", 4, T0 + 10 * H), ("h", 2, T0 + 4 * H)]
    assert DeltaMemory(store).goals() == [("g", 4, T0 + 10 * H), ("h", 2, T0 + 4 * H)]


def test_series_oldest_first_with_shares_risk_and_diff_ids(store) -> None:  # type: ignore[no-untyped-def]
    ids = flagged_store(store)
    save(store, mset("g4", T0 + 5 * H, goal="g"))  # empty: aggregate 0
    with store.read() as conn:
        s = snap.series(conn, "g")
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


def test_insert_sets_of_nothing_writes_nothing(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        snap.insert_sets(conn, [])
        snap.insert_sets(conn, [mset("empty", T0)])
        snap.insert_diffs(conn, [])
        assert [i.id for i in snap.list_snapshots(conn)] == ["empty"]
        assert snap.load_set(conn, "empty").contributions == []
        assert snap.diff_records(conn, flagged_only=False) == []
