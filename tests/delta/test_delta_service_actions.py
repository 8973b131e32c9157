"""The delta service's actions (core/delta/service.py): what each review action stores,
logs and reports as changed, each refusal's exact message, dampening from the stored
recommendation, saving with the store's dominance threshold, composing with the
database source, bulk series and what-if weights.

Rules from service.py's docstrings: a review is one audited group; dampen applies the
recommended weight change (−0.15 by default, never below 0) to the diff's primary cause;
save stores the diff from the goal's previous snapshot; save_series returns the number
of diffs written."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta

import pytest
from sqlalchemy import update

from memdesk.core.delta import snapshots as snap
from memdesk.core.delta.contracts import Candidate, DeltaConfig, SourceConfig, Warning_
from memdesk.core.delta.service import MAX_NOTE, DeltaMemory, with_weight
from memdesk.core.errors import NotFoundError, UndoConflictError, ValidationError
from memdesk.core.store.records import Changed
from tests.helpers.delta import T0, flagged_diff, weight

H = timedelta(hours=1)


def refused(exc: type[Exception], call, *args, **kw) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(exc) as e:
        call(*args, **kw)
    return str(e.value)


# -- review ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("action", "stored"), [("accept", "accepted"), ("reject", "rejected"),
                                                ("investigated", "investigated")])
def test_a_review_stores_logs_and_reports_one_group(store, action: str, stored: str) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    ch = dm.review(diff_id, action, note="looked at it", actor="agent")
    assert (ch.kinds, ch.diff_ids, ch.sources) == (Changed.REVIEWS, (diff_id,), ())
    rec = dm.stored_diff(diff_id)
    assert (rec.review, rec.review_note) == (stored, "looked at it")
    assert isinstance(rec.reviewed_at, datetime)
    [ev] = dm.events()
    assert (ev.kind, ev.target, ev.action, ev.actor, ev.note, ev.group_id) == (
        "review", str(diff_id), action, "agent", "looked at it", ch.group_id)
    assert ev.after == {"review": stored, "review_note": "looked at it",
                        "reviewed_at": rec.reviewed_at}
    assert weight(dm, "search") == 0.25
    assert dm.last_review_group(diff_id) == ch.group_id


def test_a_review_without_a_note_stores_none(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    dm.review(diff_id, "accept", note="   ")
    rec = dm.stored_diff(diff_id)
    assert (rec.review, rec.review_note) == ("accepted", None)
    assert dm.events()[0].actor == "operator"


def test_dampen_reports_the_source_and_logs_it_in_the_same_group(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    ch = dm.review(diff_id, "dampen", actor="agent")
    assert ch.kinds == Changed.REVIEWS | Changed.SOURCES
    assert (ch.sources, ch.diff_ids) == (("search",), (diff_id,))
    assert dm.stored_diff(diff_id).review == "dampened"
    assert math.isclose(weight(dm, "search"), 0.25 - 0.15)
    src = next(e for e in dm.events() if e.kind == "source")
    assert (src.action, src.actor, src.note, src.group_id) == (
        "dampen", "agent", f"review of diff {diff_id}", ch.group_id)


@pytest.mark.parametrize(("args", "kw", "message"), [
    (("ignore",), {}, "action: expected one of accept, dampen, reject, investigated"),
    (("investigated",), {}, "note: say what the investigation found"),
    (("investigated",), {"note": "  "}, "note: say what the investigation found"),
    (("accept",), {"note": "n" * (MAX_NOTE + 1)}, "note: is 10001 characters; the limit is 10000"),
])
def test_review_refusals_change_nothing(store, args: tuple, kw: dict, message: str) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    assert refused(ValidationError, dm.review, diff_id, *args, **kw) == message
    assert dm.stored_diff(diff_id).review == "pending" and dm.events() == []


def test_a_note_at_the_limit_is_kept(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    dm.review(diff_id, "investigated", note="n" * MAX_NOTE)
    assert dm.stored_diff(diff_id).review_note == "n" * MAX_NOTE


def test_reviewing_twice_or_a_healthy_diff_says_why(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    dm.review(diff_id, "reject")
    assert refused(ValidationError, dm.review, diff_id, "accept") == (
        f"review: diff {diff_id} was rejected; undo that review first")
    calm = [Candidate("context", "same", 1, 1)]
    dm.snapshot("calm", None, calm, created_at=T0, use_database=False)
    healthy = dm.snapshot("calm", None, calm, created_at=T0 + H, use_database=False).diff_id
    assert refused(ValidationError, dm.review, healthy, "accept") == (
        f"review: diff {healthy} is healthy, not flagged")
    assert refused(NotFoundError, dm.review, 9999, "accept") == "No stored diff 9999"


def set_stored(store, diff_id: int, **values) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        conn.execute(update(snap.DIFFS).where(snap.DIFFS.c.id == diff_id).values(**values))


def test_dampen_applies_the_stored_recommendation(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    set_stored(store, diff_id, decision=json.dumps(
        {"recommended_weight_adjustments": {"search": -0.125}}))
    dm.review(diff_id, "dampen")
    assert weight(dm, "search") == 0.125


def test_dampen_without_a_recommendation_steps_down_by_015(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    set_stored(store, diff_id, decision=json.dumps({"recommended_weight_adjustments": {}}))
    dm.set_source("search", weight=0.5)
    dm.review(diff_id, "dampen")
    assert math.isclose(weight(dm, "search"), 0.35)
    set_stored(store, diff_id, decision="{}", review="pending")
    dm.review(diff_id, "dampen")
    assert math.isclose(weight(dm, "search"), 0.20)


def test_dampen_refuses_without_a_cause_or_its_source(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    set_stored(store, diff_id, primary_cause=None)
    assert refused(ValidationError, dm.review, diff_id, "dampen") == (
        "dampen: this change has no primary cause source to dampen")
    set_stored(store, diff_id, primary_cause="")
    assert refused(ValidationError, dm.review, diff_id, "dampen") == (
        "dampen: this change has no primary cause source to dampen")
    set_stored(store, diff_id, primary_cause="ghost")
    assert refused(NotFoundError, dm.review, diff_id, "dampen") == (
        "The source 'ghost' is no longer configured")
    assert dm.stored_diff(diff_id).review == "pending" and dm.events() == []
    dm.review(diff_id, "accept")  # the other actions need no cause
    assert dm.stored_diff(diff_id).review == "accepted"


# -- undoing reviews --------------------------------------------------------------------------

def test_last_review_group_skips_undone_reviews_and_undo_events(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    diff_id = flagged_diff(dm)
    assert dm.last_review_group(diff_id) is None
    first = dm.review(diff_id, "accept").group_id
    redo = dm.undo_review(diff_id).group_id
    assert redo not in (None, first)
    assert dm.last_review_group(diff_id) is None
    second = dm.review(diff_id, "reject").group_id
    assert dm.last_review_group(diff_id) == second
    ch = dm.undo_review(diff_id, actor="agent")
    assert Changed.REVIEWS in ch.kinds and ch.diff_ids == (diff_id,)
    assert {e.actor for e in dm.events() if e.group_id == ch.group_id} == {"agent"}
    assert refused(UndoConflictError, dm.undo_review, diff_id) == (
        f"Diff {diff_id} has no review to undo.")


# -- saving -----------------------------------------------------------------------------------

def test_save_reports_the_snapshot_and_its_diff(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    first = dm.snapshot("g", None, [Candidate("context", "c", 1, 1)], created_at=T0,
                        use_database=False)
    assert (first.diff, first.diff_id) == (None, None)
    assert first.changes.kinds == Changed.SNAPSHOTS and first.changes.diff_ids == ()
    second = dm.snapshot("g", None, [Candidate("context", "c", 1, 1)], created_at=T0 + H,
                         use_database=False)
    assert isinstance(second.diff_id, int)
    assert second.changes.diff_ids == (second.diff_id,)
    assert second.diff.before_id == first.memory_set.id
    assert dm.stored_diff(second.diff_id).after_id == second.memory_set.id
    assert refused(ValidationError, dm.save, second.memory_set) == (
        f"snapshot: snapshot {second.memory_set.id} exists already")


def test_save_and_diff_use_the_stored_dominance_threshold(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    # Stored weights normalised: context 0.3, search 0.25 → after: search 0.5 / 0.8 = 0.625.
    a = dm.snapshot("g", None, [Candidate("context", "c", 1, 1)], created_at=T0,
                    use_database=False)
    cands = [Candidate("context", "c", 1, 1), Candidate("search", "s1", 1, 1),
             Candidate("search", "s2", 1, 1)]
    dm.set_setting("dominance_threshold", 0.625)
    b = dm.snapshot("g", None, cands, created_at=T0 + H, use_database=False)
    assert b.memory_set.dominance_ratio == pytest.approx(0.625)
    assert Warning_.SOURCE_DOMINANCE.value not in b.diff.health.warnings
    assert Warning_.SOURCE_DOMINANCE.value not in dm.diff(a.memory_set.id,
                                                          b.memory_set.id).health.warnings
    ch = dm.set_setting("dominance_threshold", 0.6)
    assert ch.kinds == Changed.SETTINGS
    c = dm.snapshot("g2", None, [Candidate("context", "c", 1, 1)], created_at=T0,
                    use_database=False)
    d = dm.snapshot("g2", None, cands, created_at=T0 + H, use_database=False)
    assert Warning_.SOURCE_DOMINANCE.value in d.diff.health.warnings
    assert Warning_.SOURCE_DOMINANCE.value in dm.diff(c.memory_set.id[:8],
                                                      d.memory_set.id[:8]).health.warnings


def test_save_series_stores_consecutive_diffs_per_goal(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    cfg = DeltaConfig((SourceConfig("a", "t", 1.0), SourceConfig("b", "t", 1.0)),
                      normalize_weights=False)
    one = [Candidate("a", "x", 1, 1)]
    sets = [dm.build("g", None, one, config=cfg, created_at=T0 + 2 * H, use_database=False),
            dm.build("h", None, one, config=cfg, created_at=T0, use_database=False),
            dm.build("g", None, one, config=cfg, created_at=T0, use_database=False),
            dm.build("g", None, [*one, Candidate("a", "y", 1, 1)], config=cfg,
                     created_at=T0 + H, use_database=False)]
    assert dm.save_series(sets, dominance_threshold=0.9) == 2
    g = dm.series("g")
    assert g.ids == [sets[2].id, sets[3].id, sets[0].id]
    every = dm.diffs()
    assert sorted((r.before_id, r.after_id) for r in every) == sorted(
        [(sets[2].id, sets[3].id), (sets[3].id, sets[0].id)])
    assert all(r.goal == "g" for r in every)
    assert dm.save_series([], dominance_threshold=0.6) == 0


def test_save_series_passes_its_dominance_threshold(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    cfg = DeltaConfig((SourceConfig("a", "t", 1.0), SourceConfig("b", "t", 1.0)),
                      normalize_weights=False)
    before = dm.build("g", None, [Candidate("a", "x", 1, 1), Candidate("b", "y", 1, 1)],
                      config=cfg, created_at=T0, use_database=False)
    # After: a 1.0 + 0.5 = 1.5 of 2.0 → dominance ratio 0.75.
    after = dm.build("g", None, [Candidate("a", "x", 1, 1), Candidate("a", "z", 1, 0.5),
                                 Candidate("b", "y", 1, 0.5)],
                     config=cfg, created_at=T0 + H, use_database=False)
    assert dm.save_series([before, after], dominance_threshold=0.75) == 1
    [rec] = dm.diffs()
    assert Warning_.SOURCE_DOMINANCE.value not in rec.warnings
    before2 = dm.build("g2", None, [Candidate("a", "x", 1, 1), Candidate("b", "y", 1, 1)],
                       config=cfg, created_at=T0, use_database=False)
    after2 = dm.build("g2", None, [Candidate("a", "x", 1, 1), Candidate("a", "z", 1, 0.5),
                                   Candidate("b", "y", 1, 0.5)],
                      config=cfg, created_at=T0 + H, use_database=False)
    dm.save_series([before2, after2], dominance_threshold=0.74)
    [rec2] = dm.diffs(goal="g2")
    assert Warning_.SOURCE_DOMINANCE.value in rec2.warnings


# -- building ---------------------------------------------------------------------------------

def memories(store) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    a = store.add(user_id="u1", text="Lens reports measure drift.", type="fact",
                  confidence=0.5)
    b = store.add(user_id="u2", text="Lens reports measure voice.", type="fact",
                  confidence=1.0)
    return a.id, b.id


def test_build_searches_enabled_database_sources_only_with_a_query(store) -> None:  # type: ignore[no-untyped-def]
    a, b = memories(store)
    dm = DeltaMemory(store)
    ms = dm.build("g", "lens reports", [Candidate("context", "task", 1, 1)], label="L",
                  created_at=T0)
    assert (ms.label, ms.created_at, ms.query) == ("L", T0, "lens reports")
    db = [c for c in ms.contributions if c.source == "database"]
    assert [c.key for c in db] == [f"id:{b}", f"id:{a}"]
    assert [c.text for c in ms.contributions if c.source == "context"] == ["task"]
    assert [c.source for c in dm.build("g", None).contributions] == []
    assert [c.source for c in dm.build("g", "", use_database=True).contributions] == []
    assert dm.build("g", "lens reports", use_database=False).contributions == []
    only_u1 = dm.build("g", "lens reports", user_id="u1")
    assert [c.key for c in only_u1.contributions] == [f"id:{a}"]
    dm.set_source("database", top_k=1)
    assert [c.key for c in dm.build("g", "lens reports").contributions] == [f"id:{b}"]
    dm.set_source("database", enabled=False)
    assert dm.build("g", "lens reports").contributions == []


def test_build_names_database_candidates_after_their_source(store) -> None:  # type: ignore[no-untyped-def]
    a, _ = memories(store)
    dm = DeltaMemory(store)
    cfg = DeltaConfig((SourceConfig("archive", "database_memory", 1.0, top_k=0),
                       SourceConfig("plain", "search_memory", 1.0)))
    ms = dm.build("g", "drift", {"plain": [Candidate("plain", "p", 1, 1)]}, config=cfg)
    assert [(c.source, c.text) for c in ms.contributions] == [
        ("archive", "Lens reports measure drift."), ("plain", "p")]
    assert ms.contributions[0].key == f"id:{a}"


def test_with_weight_changes_one_source_only() -> None:
    cfg = DeltaConfig((SourceConfig("a", "t", 1.0), SourceConfig("b", "t", 2.0)),
                      normalize_weights=False, dominance_threshold=0.5)
    got = with_weight(cfg, "b", 0.5)
    assert got == DeltaConfig((SourceConfig("a", "t", 1.0), SourceConfig("b", "t", 0.5)),
                              normalize_weights=False, dominance_threshold=0.5)
    assert cfg.source("b").weight == 2.0
    assert with_weight(cfg, "zz", 9.0) == cfg


def test_add_source_reports_sources_changed(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    ch = dm.add_source(SourceConfig("web", "t", 1.0))
    assert (ch.kinds, ch.sources) == (Changed.SOURCES, ("web",))
    ch = dm.set_source("web", weight=2.0)
    assert (ch.kinds, ch.sources, ch.diff_ids) == (Changed.SOURCES, ("web",), ())
    assert dm.set_source("web", weight=2.0).kinds == Changed.NOTHING
    ch = dm.normalize_weights()
    assert ch.kinds == Changed.SOURCES
