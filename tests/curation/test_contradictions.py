"""Contradictions: the indexed scan, normalisation, correction pairs, every resolution's
exact effect, undo, "keep all" dismissals and the suggested winner."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import text

from memdesk.core.curation import contradictions as C
from memdesk.core.store.memory_store import MemoryStore, utcnow

T0 = datetime(2026, 3, 1)


def add(store: MemoryStore, value: str | None, *, user: str = "alice", attr: str = "works_at",
        days: int = 0, conf: float = 0.8, type_: str = "fact", entity: str = "user",
        **kw) -> str:
    return store.add(
        user_id=user, text=f"{user} {attr} {value}", type=type_, entity=entity,
        attribute=attr, value=value, confidence=conf, created_at=T0 + timedelta(days=days),
        source_session=f"{user}-{days}", **kw,
    ).id


@pytest.fixture
def world(store: MemoryStore) -> dict[str, str]:
    w = {
        "acme": add(store, "Acme Corp", days=0, conf=0.9),
        "acme2": add(store, "  acme   CORP ", days=5, conf=0.7),  # same value, normalised
        "globex": add(store, "Globex", days=40, conf=0.8),
        # Not contradictions: same value modulo case/space; other user; no value.
        "berlin": add(store, "Berlin", user="bob", attr="lives_in", days=1),
        "berlin2": add(store, " berlin", user="bob", attr="lives_in", days=9),
        "bob_job": add(store, "Initech", user="bob", days=2),
        "novalue": add(store, None, user="bob", days=3),
        # Unlinked correction: unittest (older preference) vs pytest (newer correction).
        "unittest": add(store, "unittest", user="carol", attr="test_framework", days=1,
                        type_="preference", conf=0.95),
        "pytest": add(store, "pytest", user="carol", attr="test_framework", days=12,
                      type_="correction", conf=0.9),
    }
    # Inactive members never count: an expired and a deleted contradicting value.
    old = add(store, "Hooli", user="bob", days=0)
    store.update(old, valid_until=T0)
    gone = add(store, "Umbrella", user="bob", days=0)
    store.soft_delete(gone)
    return w


def keys(groups) -> set[tuple[str, str, str]]:
    return {g.key for g in groups}


def test_scan_finds_exactly_the_contradictions(store, world) -> None:
    groups = C.find_contradictions(store)
    assert keys(groups) == {("alice", "user", "works_at"), ("carol", "user", "test_framework")}
    alice = next(g for g in groups if g.user_id == "alice")
    assert alice.kind == "conflict"
    assert {v.norm: v.count for v in alice.values} == {"acme corp": 2, "globex": 1}
    carol = next(g for g in groups if g.user_id == "carol")
    assert carol.kind == "correction"
    assert groups[0] is carol  # unlinked corrections first
    assert keys(C.find_contradictions(store, user="carol")) == {carol.key}
    assert C.find_contradictions(store, user="bob") == []


def test_correction_older_than_the_other_value_is_a_plain_conflict(store) -> None:
    add(store, "pytest", user="dan", attr="tf", days=1, type_="correction")
    add(store, "nose", user="dan", attr="tf", days=5)
    [g] = C.find_contradictions(store)
    assert g.kind == "conflict"


def test_scan_is_one_pass_over_the_partial_index(store, world, backend) -> None:
    if backend != "sqlite":
        pytest.skip("reads SQLite's EXPLAIN QUERY PLAN")
    with store.read() as conn:
        plan = " ".join(
            str(r[3]) for r in conn.execute(
                text("EXPLAIN QUERY PLAN " + C._scan_sql("sqlite", False)))
        )
    assert "ix_memories_active_triple" in plan
    assert "COVERING INDEX" in plan
    assert "TEMP B-TREE" not in plan  # grouped in index order, no sort, no pairwise join


def test_normalise() -> None:
    assert C.normalise("  New\u00a0 York\t") == C.normalise("new york") == "new york"
    assert C.normalise("STRASSE") == C.normalise("straße")  # casefold, not lower()


def detail(store, user="alice", attr="works_at") -> C.GroupDetail:
    return C.load_group(store, (user, "user", attr))


def test_keep_a_sets_exactly_valid_until_and_superseded_by(store, world) -> None:
    d = detail(store)
    assert [c.memory.id for c in d.cards] == [world["globex"], world["acme2"]]
    before = {m: store.get(m) for m in (world["acme"], world["acme2"], world["globex"])}
    t = utcnow()
    res = C.resolve_keep(store, d, world["acme"], note="she never left")
    g = store.get(world["globex"])
    assert g.superseded_by == world["acme"]
    assert t <= g.valid_until <= utcnow()
    changed = ("superseded_by", "valid_until", "version")  # version: bumped by every change
    assert {k: v for k, v in vars(g).items() if k not in changed} == {
        k: v for k, v in vars(before[world["globex"]]).items() if k not in changed}
    assert store.get(world["acme"]) == before[world["acme"]]  # winner untouched
    assert store.get(world["acme2"]) == before[world["acme2"]]  # same value: not a loser
    evs = store.group_events(res.group_id)
    assert [(e.memory_id, e.action, sorted(e.after)) for e in evs] == [
        (world["globex"], "resolve_keep", ["superseded_by", "valid_until"])]
    assert evs[0].note == "she never left"
    assert ("alice", "user", "works_at") not in keys(C.find_contradictions(store))

    C.undo_resolution(store, res.group_id)
    assert store.get(world["globex"]) == before[world["globex"]]
    assert ("alice", "user", "works_at") in keys(C.find_contradictions(store))


def test_keep_b_supersedes_every_member_of_the_other_value(store, world) -> None:
    res = C.resolve_keep(store, detail(store), world["globex"])
    for loser in ("acme", "acme2"):
        assert store.get(world[loser]).superseded_by == world["globex"]
    assert store.get(world["globex"]).is_active
    assert len(store.group_events(res.group_id)) == 2
    C.undo_resolution(store, res.group_id)
    assert all(store.get(world[k]).is_active for k in ("acme", "acme2", "globex"))


def test_keep_all_is_not_raised_again_until_a_new_member_joins(store, world) -> None:
    before = [store.get(world[k]) for k in ("acme", "acme2", "globex")]
    res = C.resolve_keep_all(store, detail(store))
    assert [store.get(world[k]) for k in ("acme", "acme2", "globex")] == before
    assert {e.action for e in store.group_events(res.group_id)} == {"resolve_keep_all"}
    assert ("alice", "user", "works_at") not in keys(C.find_contradictions(store))
    assert ("alice", "user", "works_at") in keys(
        C.find_contradictions(store, include_dismissed=True))
    # Still dismissed after a restart-free re-scan, and a new conflicting memory re-raises.
    add(store, "Hooli", days=60)
    assert ("alice", "user", "works_at") in keys(C.find_contradictions(store))


def test_undoing_keep_all_lifts_the_dismissal(store, world) -> None:
    res = C.resolve_keep_all(store, detail(store))
    assert ("alice", "user", "works_at") not in keys(C.find_contradictions(store))
    C.undo_resolution(store, res.group_id)
    assert ("alice", "user", "works_at") in keys(C.find_contradictions(store))


def test_edit_then_keep(store, world) -> None:
    res = C.resolve_edit(store, detail(store), world["globex"], value="Globex Inc.",
                         text_="Alice works at Globex Inc. since March.")
    g = store.get(world["globex"])
    assert (g.value, g.is_active) == ("Globex Inc.", True)
    assert g.text == "Alice works at Globex Inc. since March."
    assert store.get(world["acme"]).superseded_by == world["globex"]
    assert [e.action for e in store.group_events(res.group_id)] == [
        "resolve_edit", "resolve_keep", "resolve_keep"]
    C.undo_resolution(store, res.group_id)
    g = store.get(world["globex"])
    assert g.value == "Globex" and store.get(world["acme"]).is_active


def test_merge_makes_a_new_memory_that_supersedes_all(store, world) -> None:
    res = C.resolve_merge(store, detail(store), text_="Alice works at Acme and Globex.",
                          value="Acme Corp; Globex")
    new = store.get(res.winner_id)
    assert new.is_active and new.value == "Acme Corp; Globex"
    assert (new.user_id, new.entity, new.attribute) == ("alice", "user", "works_at")
    assert new.confidence == 0.9  # the members' highest
    for k in ("acme", "acme2", "globex"):
        assert store.get(world[k]).superseded_by == new.id
    assert C.find_contradictions(store, user="alice") == []
    C.undo_resolution(store, res.group_id)
    assert store.get(new.id).deleted_at is not None  # hidden, not hard-deleted
    assert all(store.get(world[k]).is_active for k in ("acme", "acme2", "globex"))


def test_a_group_changed_since_shown_is_refused(store, world) -> None:
    d = detail(store)
    add(store, "Hooli", days=70)
    with pytest.raises(C.StaleGroupError):
        C.resolve_keep(store, d, world["acme"])
    assert store.get(world["globex"]).is_active


def test_bad_resolutions_change_nothing(store, world) -> None:
    d = detail(store)
    with pytest.raises(C.NotFoundError):
        C.resolve_keep(store, d, world["berlin"])  # not in this group
    with pytest.raises(C.ValidationError):
        C.resolve_edit(store, d, world["acme"], value="   ")
    with pytest.raises(C.ValidationError):
        C.resolve_edit(store, d, world["acme"], confidence=float("nan"))
    with pytest.raises(C.ValidationError):
        C.resolve_merge(store, d, text_="x", value="\x00")
    assert all(store.get(world[k]).is_active for k in ("acme", "acme2", "globex"))
    assert len(C.find_contradictions(store)) == 2


def _cards(*specs) -> list[C.Card]:
    """Cards from (value, days, confidence, type)."""
    out = []
    for i, (value, days, conf, type_) in enumerate(specs):
        from memdesk.core.store.records import MemoryRecord

        rec = MemoryRecord(
            id=f"m{i}", user_id="u", text=value, type=type_, topic=None, importance=0.5,
            confidence=conf, source_session=None, created_at=T0 + timedelta(days=days),
            last_accessed=None, access_count=0, decay_score=None, superseded_by=None,
            embedding=None, entity="user", attribute="a", value=value, valid_until=None,
            layer=None, deleted_at=None, seq=i + 1,
        )
        out.append(C.Card(rec, C.normalise(value), (rec,)))
    return out


def test_suggestion_rules() -> None:
    s = C.suggest(_cards(("Acme", 0, 0.7, "fact"), ("Globex", 9, 0.9, "fact")))
    assert (s.winner_id, s.disagree) == ("m1", False)
    assert "newest" in s.reason and "highest confidence" in s.reason
    # Newer but less certain: facts change, so the newer wins, flagged.
    s = C.suggest(_cards(("Acme", 0, 0.9, "fact"), ("Globex", 9, 0.7, "fact")))
    assert (s.winner_id, s.disagree) == ("m1", True)
    assert "disagree" in s.reason and "Check" in s.reason
    # Newer but under the 0.4 threshold (a hypothetical): the certain one wins.
    s = C.suggest(_cards(("nurse", 0, 0.9, "fact"), ("doctor", 9, 0.2, "fact")))
    assert (s.winner_id, s.disagree) == ("m0", True)
    assert "0.4" in s.reason
    # A newer correction wins even with lower confidence.
    s = C.suggest(_cards(("unittest", 0, 0.95, "preference"), ("pytest", 9, 0.3, "correction")))
    assert s.winner_id == "m1" and "correction" in s.reason
    assert C.suggest(_cards(("only", 0, 0.5, "fact"))) is None


def test_detail_marks_newest_oldest_and_highest_confidence(store, world) -> None:
    d = detail(store)
    newest = next(c for c in d.cards if c.newest)
    oldest = next(c for c in d.cards if c.oldest)
    assert newest.memory.id == world["globex"]
    assert oldest.memory.id == world["acme2"]  # the newest member of the older value
    assert next(c for c in d.cards if c.highest_confidence).memory.id == world["globex"]
    assert {m.id for m in oldest.same_value} == {world["acme"], world["acme2"]}
    res = C.resolve_suggested(store, d)
    assert res.winner_id == world["globex"]


def test_resolution_notes_and_merged_values_are_checked_exactly(store, world) -> None:
    d = detail(store)
    with pytest.raises(C.ValidationError) as e:
        C.resolve_keep_all(store, d, note="n" * 10_001)
    assert str(e.value) == "note: is 10001 characters; the limit is 10000"
    with pytest.raises(C.ValidationError) as e:
        C.resolve_merge(store, d, text_="Alice works somewhere.", value="   ")
    assert (e.value.field, str(e.value)) == ("value", "value: must not be empty")
    assert all(store.get(world[k]).is_active for k in ("acme", "acme2", "globex"))
    res = C.resolve_keep_all(store, d, note="n" * 10_000)
    assert {e.note for e in store.group_events(res.group_id)} == {"n" * 10_000}
