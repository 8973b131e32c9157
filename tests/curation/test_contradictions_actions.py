"""core/curation/contradictions against a store: the scan's order, limit, user filter
and dismissals, finding a group by id, and each resolution's exact effect (who is
superseded, when, by whom, with which note, the Changes it reports) and refusals."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memdesk.core.curation import contradictions as C
from memdesk.core.curation import contradictions_resolve as CR
from memdesk.core.curation.service import Contradictions
from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed

T0 = datetime(2026, 3, 1)
NOW = datetime(2026, 4, 1, 9, 30)
ALICE = ("alice", "user", "works_at")
# What a resolution that supersedes or adds memories changes (which views refresh).
RESOLVED = Changed.CONTRADICTIONS | Changed.MEMORIES | Changed.HISTORY


def add(store: MemoryStore, value: str | None, *, user: str = "alice",
        attr: str = "works_at", days: int = 0, conf: float = 0.8, type_: str = "fact",
        imp: float = 0.5, **kw) -> str:
    return store.add(
        user_id=user, text=f"{user} {attr} {value}", type=type_, entity="user",
        attribute=attr, value=value, confidence=conf, importance=imp,
        created_at=T0 + timedelta(days=days), **kw,
    ).id


@pytest.fixture
def now(monkeypatch) -> datetime:
    monkeypatch.setattr(CR, "utcnow", lambda: NOW)
    return NOW


# -- the scan -------------------------------------------------------------------------


def test_corrections_first_then_newest_activity(store: MemoryStore) -> None:
    add(store, "Acme", days=0)
    add(store, "Globex", days=20)  # alice works_at: last activity day 20
    add(store, "Berlin", user="bob", attr="lives_in", days=1)
    add(store, "Paris", user="bob", attr="lives_in", days=30)  # day 30
    add(store, "unittest", user="carol", attr="tests", days=1)
    add(store, "pytest", user="carol", attr="tests", days=2, type_="correction")  # day 2
    add(store, "Initech", user="dave", days=0)  # one value only: no group
    groups = Contradictions(store).find()
    assert [(g.key, g.kind) for g in groups] == [
        (("carol", "user", "tests"), "correction"),
        (("bob", "user", "lives_in"), "conflict"),
        (ALICE, "conflict"),
    ]
    assert [g.key[0] for g in Contradictions(store).find(limit=2)] == ["carol", "bob"]
    assert [g.key for g in Contradictions(store).find(user="alice")] == [ALICE]
    assert Contradictions(store).find(user="dave") == []


def test_equal_activity_orders_by_key(store: MemoryStore) -> None:
    for user in ("zed", "amy"):
        add(store, "A", user=user, days=0)
        add(store, "B", user=user, days=3)
    assert [g.user_id for g in Contradictions(store).find()] == ["amy", "zed"]


def test_cluster_counts_and_seqs_from_the_scan(store: MemoryStore) -> None:
    a1 = add(store, "Acme", days=0)
    a2 = add(store, " ACME", days=2)
    a3 = add(store, "Acme", days=3)
    g1 = add(store, "Globex", days=1)
    add(store, None, days=4)  # no value: not a member
    [g] = Contradictions(store).find()
    seq = {m.id: m.seq for m in store.get_many([a1, a2, a3, g1])}
    acme, globex = g.values
    assert (acme.norm, acme.display, acme.count) == ("acme", "Acme", 3)
    assert sorted(acme.seqs) == sorted([seq[a1], seq[a2], seq[a3]])
    assert (acme.first_created, acme.last_created) == (T0, T0 + timedelta(days=3))
    assert (globex.display, globex.count, globex.seqs) == ("Globex", 1, (seq[g1],))
    assert g.member_count == 4


def test_keep_all_dismisses_until_a_new_member_joins(store: MemoryStore, now) -> None:
    add(store, "Acme", days=0)
    add(store, "Globex", days=1)
    detail = Contradictions(store).load(ALICE)
    res = Contradictions(store).keep_all(detail)
    assert Contradictions(store).find() == []
    assert [g.key for g in Contradictions(store).find(include_dismissed=True)] == [ALICE]
    assert Contradictions(store).group(detail.id).key == ALICE
    Contradictions(store).undo(res.group_id)
    assert [g.key for g in Contradictions(store).find()] == [ALICE]
    Contradictions(store).keep_all(Contradictions(store).load(ALICE))
    add(store, "Hooli", days=2)
    [g] = Contradictions(store).find()
    assert g.member_count == 3


def test_dismissal_of_another_key_does_not_hide_a_group(store: MemoryStore) -> None:
    add(store, "Acme", days=0)
    add(store, "Globex", days=1)
    add(store, "Acme", user="bob", days=0)
    add(store, "Globex", user="bob", days=1)
    Contradictions(store).keep_all(Contradictions(store).load(("bob", "user", "works_at")))
    assert [g.key for g in Contradictions(store).find()] == [ALICE]


def test_unknown_group_message(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError) as err:
        Contradictions(store).group("abc")
    assert str(err.value) == "No open contradiction group 'abc'"


# -- resolutions ----------------------------------------------------------------------


@pytest.fixture
def three(store: MemoryStore) -> dict[str, str]:
    return {
        "acme": add(store, "Acme", days=0, conf=0.9, imp=0.7),
        "acme2": add(store, "acme ", days=2, conf=0.6, imp=0.2),
        "globex": add(store, "Globex", days=5, conf=0.5, imp=0.4),
        "hooli": add(store, "Hooli", days=3, conf=0.3, imp=0.9),
    }


def test_keep_supersedes_every_other_value_by_the_winner(store, three, now) -> None:
    detail = Contradictions(store).load(ALICE)
    res = Contradictions(store).keep(detail, three["acme"], note="checked", actor="agent")
    assert (res.action, res.winner_id) == ("keep", three["acme"])
    assert res.changes.memory_ids == detail.member_ids
    assert res.changes.group_id == res.group_id
    assert res.changes.kinds == RESOLVED
    for loser in ("globex", "hooli"):
        r = store.get(three[loser])
        assert (r.superseded_by, r.valid_until) == (three["acme"], NOW)
        [ev] = store.events(three[loser])[:1]
        assert (ev.action, ev.actor, ev.note, ev.group_id) == (
            "resolve_keep", "agent", "checked", res.group_id)
    for same in ("acme", "acme2"):  # the winner's value, any spelling: untouched
        r = store.get(three[same])
        assert (r.superseded_by, r.valid_until) == (None, None)
    assert sorted(res.changes.event_ids) == sorted(
        e.id for e in store.group_events(res.group_id))
    assert len(res.changes.event_ids) == 2
    assert Contradictions(store).find() == []


@pytest.mark.parametrize("resolve", ["keep", "keep_all", "edit", "merge"])
def test_default_actor_is_the_operator(store, three, resolve: str) -> None:
    detail = Contradictions(store).load(ALICE)
    if resolve == "keep":
        res = Contradictions(store).keep(detail, three["acme"])
    elif resolve == "keep_all":
        res = Contradictions(store).keep_all(detail)
    elif resolve == "edit":
        res = Contradictions(store).edit(detail, three["acme"], value="Acme")
    else:
        res = Contradictions(store).merge(detail, text_="t", value="v")
    assert {e.actor for e in store.group_events(res.group_id)} == {"operator"}
    assert {e.note for e in store.group_events(res.group_id)} <= {
        None, "values may coexist: not a contradiction",
        f"merge of contradiction {detail.id}"}


def test_keep_a_non_member_is_refused(store, three) -> None:
    detail = Contradictions(store).load(ALICE)
    other = add(store, "X", user="bob")
    with pytest.raises(NotFoundError):
        Contradictions(store).keep(detail, other)
    assert all(store.get(m).superseded_by is None for m in three.values())


def test_keep_with_an_over_long_note_is_refused_naming_the_note(store, three) -> None:
    detail = Contradictions(store).load(ALICE)
    with pytest.raises(ValidationError) as err:
        Contradictions(store).keep(detail, three["acme"], note="n" * 10_001)
    assert str(err.value) == "note: is 10001 characters; the limit is 10000"
    assert all(store.get(m).superseded_by is None for m in three.values())


def test_stale_group_is_refused(store, three) -> None:
    detail = Contradictions(store).load(ALICE)
    add(store, "Initech", days=9)
    message = ("This contradiction changed since it was shown (a member was added, edited "
               "or resolved elsewhere). Reload it and decide again.")
    for call in (lambda: Contradictions(store).keep(detail, three["acme"]),
                 lambda: Contradictions(store).keep_all(detail),
                 lambda: Contradictions(store).edit(detail, three["acme"], value="Acme"),
                 lambda: Contradictions(store).merge(detail, text_="t", value="v")):
        with pytest.raises(C.StaleGroupError) as err:
            call()
        assert str(err.value) == message
    assert len(Contradictions(store).load(ALICE).members) == 5


def test_suggested_keeps_the_suggestion(store, three) -> None:
    detail = Contradictions(store).load(ALICE)
    # newest Globex (0.5) vs highest Acme (0.9): no correction, 0.5 not under 0.4
    assert detail.suggestion.winner_id == three["globex"]
    res = Contradictions(store).suggested(detail, note="ok")
    assert (res.action, res.winner_id) == ("keep", three["globex"])
    assert store.get(three["acme"]).superseded_by == three["globex"]
    ev = store.events(three["acme"])[0]
    assert (ev.note, ev.actor, ev.group_id) == ("ok", "operator", res.group_id)
    undo = Contradictions(store).undo(res.group_id)
    assert store.events(three["acme"])[0].actor == "operator"
    assert store.get(three["acme"]).superseded_by is None
    Contradictions(store).undo(undo.group_id, actor="agent")
    assert store.events(three["acme"])[0].actor == "agent"


def test_suggested_without_a_suggestion_is_refused(store: MemoryStore) -> None:
    add(store, "Acme")
    with pytest.raises(ValidationError) as err:
        Contradictions(store).suggested(Contradictions(store).load(ALICE))
    assert str(err.value) == "group: this group has no contradiction left to resolve"


def test_keep_all_records_a_dismissal_and_audits_each_member(store, three, now) -> None:
    detail = Contradictions(store).load(ALICE)
    res = Contradictions(store).keep_all(detail, actor="agent")
    assert (res.action, res.winner_id) == ("keep_all", None)
    assert res.changes.kinds == Changed.CONTRADICTIONS | Changed.HISTORY
    assert res.changes.memory_ids == detail.member_ids
    assert len(res.changes.event_ids) == 4
    for mid in three.values():
        [ev] = store.events(mid)[:1]
        assert (ev.action, ev.actor, ev.before, ev.after, ev.note, ev.group_id) == (
            "resolve_keep_all", "agent", {}, {}, "values may coexist: not a contradiction",
            res.group_id)
        assert store.get(mid).superseded_by is None
    Contradictions(store).undo(res.group_id)
    Contradictions(store).keep_all(Contradictions(store).load(ALICE), note="both true")
    assert store.events(three["acme"])[0].note == "both true"


def test_edit_changes_the_winner_then_keeps_it(store, three, now) -> None:
    detail = Contradictions(store).load(ALICE)
    res = Contradictions(store).edit(detail, three["hooli"], value="Globex", confidence=0.95,
                         text_="alice works at Globex", note="fixed", actor="agent")
    assert (res.action, res.winner_id) == ("edit", three["hooli"])
    w = store.get(three["hooli"])
    assert (w.value, w.confidence, w.text) == ("Globex", 0.95, "alice works at Globex")
    [ev] = [e for e in store.events(three["hooli"]) if e.action == "resolve_edit"]
    assert (ev.actor, ev.note, ev.group_id) == ("agent", "fixed", res.group_id)
    # The edited value is Globex: Globex stays, both Acme spellings are superseded.
    assert store.get(three["globex"]).superseded_by is None
    for mid in (three["acme"], three["acme2"]):
        r = store.get(mid)
        assert (r.superseded_by, r.valid_until) == (three["hooli"], NOW)
    assert len(res.changes.event_ids) == 3 and res.changes.kinds == RESOLVED
    assert res.changes.event_ids[0] == ev.id


def test_edit_of_the_confidence_only_keeps_the_value(store, three) -> None:
    detail = Contradictions(store).load(ALICE)
    res = Contradictions(store).edit(detail, three["acme2"], confidence=0.99)
    assert store.get(three["acme2"]).value == "acme "
    assert store.get(three["acme"]).superseded_by is None  # same value as the winner
    assert store.get(three["globex"]).superseded_by == three["acme2"]
    assert len(res.changes.event_ids) == 3


def test_edit_to_the_winners_own_value_reports_only_the_supersedes(store, three) -> None:
    detail = Contradictions(store).load(ALICE)
    # "Acme" is already acme's value: the edit changes nothing, so it writes no
    # resolve_edit row; the two other values (Globex, Hooli) are still superseded.
    res = Contradictions(store).edit(detail, three["acme"], value="Acme")
    assert [e for e in store.events(three["acme"]) if e.action == "resolve_edit"] == []
    group = store.group_events(res.group_id)
    assert sorted(e.action for e in group) == ["resolve_keep", "resolve_keep"]
    assert len(res.changes.event_ids) == 2
    assert set(res.changes.event_ids) == {e.id for e in group}
    assert store.get(three["globex"]).superseded_by == three["acme"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "value: an edit needs a new value, text or confidence"),
    ({"value": "  "}, "value: must not be empty"),
    ({"confidence": 2.0}, "confidence: must be in [0, 1], got 2.0"),
    ({"value": "x", "note": "n" * 10_001}, "note: is 10001 characters; the limit is 10000"),
])
def test_edit_refusals(store, three, kwargs: dict, message: str) -> None:
    detail = Contradictions(store).load(ALICE)
    with pytest.raises(ValidationError) as err:
        Contradictions(store).edit(detail, three["acme"], **kwargs)
    assert str(err.value) == message
    assert store.get(three["acme"]).value == "Acme"


def test_merge_adds_one_memory_that_supersedes_every_member(store, three, now) -> None:
    detail = Contradictions(store).load(ALICE)
    res = Contradictions(store).merge(detail, text_="alice works at Acme and Globex",
                          value="Acme and Globex", actor="agent")
    new = store.get(res.winner_id)
    assert res.action == "merge"
    # Fields of the newest member (Globex, day 5); importance and confidence the highest.
    assert (new.user_id, new.entity, new.attribute, new.type) == (
        "alice", "user", "works_at", "fact")
    assert (new.importance, new.confidence) == (0.9, 0.9)
    assert (new.text, new.value) == ("alice works at Acme and Globex", "Acme and Globex")
    [add_ev] = store.events(new.id)
    assert (add_ev.action, add_ev.actor, add_ev.note, add_ev.group_id) == (
        "add", "agent", f"merge of contradiction {detail.id}", res.group_id)
    for mid in three.values():
        r = store.get(mid)
        assert (r.superseded_by, r.valid_until) == (new.id, NOW)
        ev = store.events(mid)[0]
        assert (ev.action, ev.actor, ev.note) == ("resolve_merge", "agent", None)
    assert res.changes.memory_ids == (*detail.member_ids, new.id)
    assert res.changes.event_ids[0] == add_ev.id and len(res.changes.event_ids) == 5
    assert res.changes.kinds == RESOLVED
    Contradictions(store).undo(res.group_id)
    assert all(store.get(m).superseded_by is None for m in three.values())


def test_merge_overrides_and_note(store, three) -> None:
    detail = Contradictions(store).load(ALICE)
    res = Contradictions(store).merge(detail, text_="t", value="v", note="merged",
                          importance=0.1, type="note")
    new = store.get(res.winner_id)
    assert (new.importance, new.type, new.confidence) == (0.1, "note", 0.9)
    assert store.events(new.id)[0].note == "merged"
    assert store.events(three["acme"])[0].note == "merged"


def test_merge_without_a_value_is_refused(store, three) -> None:
    detail = Contradictions(store).load(ALICE)
    with pytest.raises(ValidationError) as err:
        Contradictions(store).merge(detail, text_="t", value=" ")
    assert str(err.value) == "value: must not be empty"
    assert len(Contradictions(store).load(ALICE).members) == 4


def test_redoing_an_undone_keep_all_dismisses_again(store: MemoryStore) -> None:
    add(store, "Acme", days=0)
    add(store, "Globex", days=1)
    res = Contradictions(store).keep_all(Contradictions(store).load(ALICE))
    undo = Contradictions(store).undo(res.group_id)
    assert [g.key for g in Contradictions(store).find()] == [ALICE]
    Contradictions(store).undo(undo.group_id)  # redo
    assert Contradictions(store).find() == []


def test_keep_all_is_recorded_for_each_member_with_its_actor_and_note(
        store: MemoryStore) -> None:
    z = add(store, "Zürich", days=3)
    a = add(store, "Acme", days=0)
    detail = Contradictions(store).load(ALICE)
    res = Contradictions(store).keep_all(detail, note="both", actor="agent")
    events = store.group_events(res.group_id)
    assert sorted(e.memory_id for e in events) == sorted([a, z])
    assert {(e.action, e.actor, e.note) for e in events} == {
        ("resolve_keep_all", "agent", "both")}
    # The dismissal is of these members: a member with the same value joining shows the
    # group again, with all three.
    add(store, " acme", days=5)
    [g] = Contradictions(store).find()
    assert g.member_count == 3


def test_load_group_members_are_the_active_triples_oldest_first(store: MemoryStore) -> None:
    a = add(store, "Acme", days=1)
    b = add(store, "Globex", days=1)  # same time: insertion (seq) order
    c = add(store, "Hooli", days=0)
    add(store, None, days=2)  # no value
    add(store, "X", user="bob")
    add(store, "X", attr="lives_in")
    other_entity = store.add(user_id="alice", text="t", type="fact", entity="acme",
                             attribute="works_at", value="Y", created_at=T0).id
    gone = add(store, "Gone", days=2)
    store.soft_delete(gone)
    d = Contradictions(store).load(ALICE)
    assert d.member_ids == (c, a, b)
    assert other_entity not in d.member_ids


def test_merge_takes_its_other_fields_from_the_newest_member(store: MemoryStore) -> None:
    add(store, "Acme", days=0, topic="old", layer="episodic")
    add(store, "Globex", days=4, type_="preference", topic="career", layer="semantic")
    add(store, "Hooli", days=4, type_="decision", topic="latest", layer="procedural")
    res = Contradictions(store).merge(Contradictions(store).load(ALICE), text_="t", value="v")
    new = store.get(res.winner_id)
    # Globex and Hooli share the newest time: the later insert (higher seq) wins.
    assert (new.type, new.topic, new.layer) == ("decision", "latest", "procedural")
