"""Delta memory persistence: migration, snapshots and diffs, the review queue with its
audited, undoable actions, the source config, the database source and the demo series."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from memdesk.core.delta import models as delta_models
from memdesk.core.delta.contracts import Candidate, SourceConfig
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.errors import NotFoundError, UndoConflictError, ValidationError
from tests.helpers.delta import flagged, weight

T0 = datetime(2026, 10, 1, 9)
CTX = Candidate("context", "Generic repository search is probably enough.", 0.9, 0.9)
PRIOR = Candidate("model_prior", "Use broad search first when routing is uncertain.", 0.7, 0.7)


def flood(n: int = 6) -> list[Candidate]:
    return [Candidate("search", f"Lens hit number {i}", 1, 1, candidate_id=f"s{i}")
            for i in range(n)]


def test_migration_matches_orm_and_seeds_default_sources(store) -> None:  # type: ignore[no-untyped-def]
    mine = {t.name for t in delta_models.Base.metadata.sorted_tables
            if t.name in ("delta_sources", "delta_settings", "memory_sets", "memory_set_items",
                          "memory_diffs", "delta_events")}
    assert len(mine) == 6
    with store.read() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        found = compare_metadata(ctx, delta_models.Base.metadata)
    # Other features' tables may or may not be registered; only ours must match exactly.
    diffs = [d for d in found if any(f"'{name}'" in repr(d) for name in mine)]
    assert diffs == []
    cfg = DeltaMemory(store).config()
    assert [(s.name, s.weight) for s in cfg.sources] == [
        ("context", 0.30), ("search", 0.25), ("database", 0.25), ("model_prior", 0.20)]
    assert cfg.normalize_weights and cfg.dominance_threshold == 0.6


def test_consecutive_snapshots_store_diffs_and_flag_the_queue(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    first = dm.snapshot("route", "q", [CTX, PRIOR], created_at=T0, use_database=False)
    assert first.diff is None
    calm = dm.snapshot("route", "q", [CTX, PRIOR], created_at=T0 + timedelta(hours=1),
                       use_database=False)
    assert calm.diff is not None and calm.diff.health.status.value == "healthy"
    other = dm.snapshot("other goal", "q", [CTX], created_at=T0 + timedelta(hours=2),
                        use_database=False)
    assert other.diff is None  # diffs only between snapshots of the same goal
    hot = dm.snapshot("route", "q", [CTX, PRIOR, *flood()], created_at=T0 + timedelta(hours=3),
                      use_database=False)
    assert hot.diff.before_id == calm.memory_set.id
    assert hot.diff.health.status.value in ("suspicious", "dangerous")
    queue = dm.queue()
    assert [r.id for r in queue] == [hot.diff_id]
    rec = queue[0]
    assert rec.review == "pending" and rec.primary_cause == "search"
    assert math.isclose(rec.risk, hot.diff.health.risk_score)
    # Round trip: the reloaded sets give the same diff.
    again = dm.diff(calm.memory_set.id[:8], hot.memory_set.id)
    assert math.isclose(again.health.risk_score, rec.risk)
    loaded = dm.load(hot.memory_set.id)
    assert [c.text for c in loaded.contributions] == [c.text for c in
                                                      hot.memory_set.contributions]
    infos = dm.snapshots(goal="route")
    assert [i.id for i in infos] == [hot.memory_set.id, calm.memory_set.id,
                                     first.memory_set.id]
    assert infos[0].status == rec.status and infos[2].status is None
    ser = dm.series("route")
    assert len(ser) == 3 and ser.ids[-1] == hot.memory_set.id
    assert math.isnan(ser.risk[0]) and ser.status[1] == "healthy"
    assert math.isclose(sum(ser.shares[s][2] for s in ser.sources), 1.0)


def test_dampen_applies_weight_change_audited_and_undoable(store) -> None:  # type: ignore[no-untyped-def]
    dm, diff_id = flagged(store)
    ch = dm.review(diff_id, "dampen")
    assert ch.memories is False and ch.sources == ("search",)
    assert math.isclose(weight(dm, "search"), 0.10)
    assert dm.stored_diff(diff_id).review == "dampened"
    assert dm.queue() == []
    events = dm.events()
    assert {(e.kind, e.action) for e in events} == {("source", "dampen"), ("review", "dampen")}
    assert all(e.group_id == ch.group_id for e in events)
    with pytest.raises(ValidationError, match="undo that review first"):
        dm.review(diff_id, "accept")
    dm.undo_review(diff_id)
    assert math.isclose(weight(dm, "search"), 0.25)
    assert dm.stored_diff(diff_id).review == "pending"
    assert [r.id for r in dm.queue()] == [diff_id]
    with pytest.raises(UndoConflictError):
        dm.undo_review(diff_id)  # nothing left to undo


def test_undo_refuses_when_weight_changed_since(store) -> None:  # type: ignore[no-untyped-def]
    dm, diff_id = flagged(store)
    group = dm.review(diff_id, "dampen").group_id
    dm.set_source("search", weight=0.5)
    with pytest.raises(UndoConflictError, match="changed again"):
        dm.undo(group)
    assert dm.stored_diff(diff_id).review == "dampened"  # nothing half-undone


def test_other_review_actions(store) -> None:  # type: ignore[no-untyped-def]
    dm, diff_id = flagged(store)
    with pytest.raises(ValidationError, match="note"):
        dm.review(diff_id, "investigated")
    with pytest.raises(ValidationError):
        dm.review(diff_id, "ignore")
    dm.review(diff_id, "investigated", note="Checked: <b>real</b> evidence \u202e")
    rec = dm.stored_diff(diff_id)
    assert rec.review == "investigated" and rec.review_note.startswith("Checked")
    assert math.isclose(weight(dm, "search"), 0.25)  # only dampen touches weights
    dm.undo_review(diff_id)
    dm.review(diff_id, "reject")
    assert dm.stored_diff(diff_id).review == "rejected"
    assert dm.queue(pending_only=False)[0].id == diff_id
    with pytest.raises(NotFoundError):
        dm.review(99999, "accept")


def test_source_config_edit_validate_normalize_undo(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    for bad in ({"weight": float("nan")}, {"weight": -1}, {"top_k": -2},
                {"confidence_threshold": 2}, {"enabled": "yes"}, {"colour": "red"}):
        with pytest.raises(ValidationError):
            dm.set_source("search", **bad)
    with pytest.raises(NotFoundError):
        dm.set_source("nope", weight=1)
    ch = dm.set_source("search", weight=0.5, top_k=3, enabled=False)
    cfg = dm.config()
    assert cfg.source("search") == SourceConfig("search", "search_memory", 0.5, False, 3, 0.0)
    assert "search" not in cfg.effective_weights()
    dm.undo(ch.group_id)
    assert dm.config().source("search") == SourceConfig("search", "search_memory", 0.25)
    dm.add_source(SourceConfig("web", "search_memory", 1.0))
    assert dm.config().source("web").weight == 1.0
    with pytest.raises(ValidationError, match="exists"):
        dm.add_source(SourceConfig("web", "search_memory", 1.0))
    group = dm.normalize_weights().group_id
    assert math.isclose(sum(s.weight for s in dm.config().sources if s.enabled), 1.0)
    dm.undo(group)
    assert dm.config().source("web").weight == 1.0
    dm.set_setting("dominance_threshold", 0.7)
    assert dm.config().dominance_threshold == 0.7
    with pytest.raises(ValidationError):
        dm.set_setting("dominance_threshold", float("inf"))


def test_database_source_reads_active_memories(store) -> None:  # type: ignore[no-untyped-def]
    old = store.add(user_id="u", text="Lens reports measure voice preservation.", type="fact",
                    confidence=0.6)
    new = store.add(user_id="u", text="Lens reports now measure semantic drift.", type="fact",
                    confidence=0.9)
    store.supersede(old.id, new.id)
    store.add(user_id="u", text="Unrelated note about lunch.", type="note")
    got = DeltaMemory(store).candidates("lens semantic", limit=5)
    assert [c.candidate_id for c in got] == [new.id]
    assert got[0].confidence == 0.9 and got[0].relevance == 1.0
    assert got[0].provenance["memory_id"] == new.id
    # Partial matches widen the net with a lower relevance.
    wide = DeltaMemory(store).candidates("lens voice unicorns", limit=5)
    assert [c.candidate_id for c in wide] == [new.id] and 0 < wide[0].relevance < 1
    # FTS syntax typed by accident is just words.
    assert DeltaMemory(store).candidates('lens" OR * NEAR(', limit=5)[0].candidate_id == new.id
    assert DeltaMemory(store).candidates("   ", limit=5) == []
    ms = DeltaMemory(store).build("g", "lens semantic", [CTX])
    assert {c.source for c in ms.contributions} == {"context", "database"}


def test_snapshot_refs(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    saved = dm.snapshot("g", None, [CTX], use_database=False)
    assert dm.resolve(saved.memory_set.id[:6]) == saved.memory_set.id
    for bad in ("zz", "", "'; DROP TABLE x"):
        with pytest.raises(NotFoundError):
            dm.resolve(bad)
    with pytest.raises(ValidationError):
        dm.save(saved.memory_set)  # the same snapshot twice


def test_demo_store_has_takeover_and_flood(demo_store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(demo_store)
    goals = {g: n for g, n, _ in dm.goals()}
    assert len(goals) == 3 and all(n >= 60 for n in goals.values())
    route = dm.series("route artifact review task")
    share = route.shares["search"]
    assert share[:10].mean() < 0.2 < 0.5 < share[-10:].mean()  # gradual takeover
    assert route.dominance[-1] > 0.6
    pref = dm.series("answer preference questions")
    jump = max(range(1, len(pref)), key=lambda i: pref.shares["search"][i]
               - pref.shares["search"][i - 1])
    assert pref.status[jump] == "dangerous"  # the sudden flood
    pending = dm.queue()
    assert pending and {r.review for r in pending} == {"pending"}
    assert any(r.status == "dangerous" and r.action == "reject" for r in pending)
    reviewed = [r for r in dm.queue(pending_only=False) if r.review != "pending"]
    assert reviewed and all(e.kind == "review" for e in dm.events())


def test_a_snapshot_diffs_against_the_latest_saved_of_several_at_the_same_moment(store) -> None:  # type: ignore[no-untyped-def]
    # Snapshots taken at one instant: "previous" is the one saved last, by insertion order
    # (the time alone does not decide).  Each of these diffs against the one just before.
    dm = DeltaMemory(store)
    saved = [dm.snapshot("route", "q", [CTX, PRIOR], created_at=T0, use_database=False)
             for _ in range(4)]
    assert saved[0].diff is None
    assert [s.diff.before_id for s in saved[1:]] == [s.memory_set.id for s in saved[:3]]
