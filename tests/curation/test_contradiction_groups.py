"""What the contradictions queue shows, read through the ``Contradictions`` façade on
groups built in a store: which values count as one (normalised), how a group's values
are summarised (display spelling, counts, times, newest activity first), when a group is
an unlinked correction, the cards of a group with their flags, and the suggested winner
at its thresholds (the write-phase design's 0.4 confidence threshold, the
dispositional-memory design's correction override)."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from memdesk.core.curation.contradictions import Suggestion
from memdesk.core.curation.service import Contradictions
from memdesk.core.errors import NotFoundError
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.contradiction import group_of, suggest_for

KEY = ("u", "user", "works_at")


def one_group(store: MemoryStore, *specs):  # type: ignore[no-untyped-def]
    """The one open group after adding ``specs`` to KEY's group (None: no group)."""
    group_of(store, *specs, attribute=KEY[2])
    groups = Contradictions(store).find()
    assert len(groups) <= 1
    return groups[0] if groups else None


# -- which values are one value ---------------------------------------------------------


@pytest.mark.parametrize(("raw", "norm"), [
    ("Acme Corp", "acme corp"), ("  acme \t\n CORP ", "acme corp"),
    ("STRASSE", "strasse"), ("Straße", "strasse"), ("a  b", "a b"),
])
def test_values_compare_casefolded_with_whitespace_collapsed(store: MemoryStore, raw: str,
                                                             norm: str) -> None:
    g = one_group(store, (raw, 0, 0.8, "fact"), ("Zzz", 1, 0.8, "fact"))
    assert {v.norm for v in g.values} == {norm, "zzz"}
    assert next(v for v in g.values if v.norm == norm).display == raw


def test_two_spellings_of_one_value_are_no_contradiction(store: MemoryStore) -> None:
    assert one_group(store, ("Acme", 0, 0.8, "fact"), ("ACME ", 1, 0.8, "fact")) is None
    assert Contradictions(store).load(KEY).is_contradiction is False


def test_a_group_id_is_short_stable_and_per_key(store: MemoryStore) -> None:
    group_of(store, ("Acme", 0, 0.8, "fact"), ("Globex", 1, 0.8, "fact"),
             attribute="works_at")
    group_of(store, ("Berlin", 0, 0.8, "fact"), ("Paris", 1, 0.8, "fact"),
             attribute="lives_in")
    queue = Contradictions(store)
    ids = {g.attribute: g.id for g in queue.find()}
    assert all(re.fullmatch(r"[0-9a-f]{12}", i) for i in ids.values())
    assert ids["works_at"] != ids["lives_in"]
    assert queue.load(KEY).id == ids["works_at"]
    assert queue.group(ids["works_at"][:6]).key == KEY
    with pytest.raises(NotFoundError, match="No open contradiction group 'ffffffffffff'"):
        queue.group("ffffffffffff")


# -- a group's values -------------------------------------------------------------------


def test_a_group_summarises_each_value(store: MemoryStore) -> None:
    g = one_group(store, ("acme", 0, 0.8, "fact"), ("acme", 5, 0.8, "fact"),
                  ("globex", 9, 0.8, "fact"))
    globex, acme = g.values
    members = Contradictions(store).load(KEY).members
    assert (acme.count, globex.count) == (2, 1)
    assert (g.user_id, g.entity, g.attribute, g.kind) == (*KEY, "conflict")
    assert g.member_count == 3
    assert g.seqs == frozenset(r.seq for r in members)
    assert sorted(acme.seqs) == sorted(r.seq for r in members if r.value == "acme")
    assert (acme.first_created, acme.last_created) == (datetime(2026, 3, 1),
                                                       datetime(2026, 3, 6))
    assert g.last_created == datetime(2026, 3, 10)
    assert g.to_json() == {
        "group": g.id, "user_id": "u", "entity": "user", "attribute": "works_at",
        "kind": "conflict", "members": 3,
        "values": [
            {"value": "globex", "normalised": "globex", "count": 1,
             "last_created": "2026-03-10T00:00:00"},
            {"value": "acme", "normalised": "acme", "count": 2,
             "last_created": "2026-03-06T00:00:00"},
        ],
    }


def test_the_spelling_most_members_use_is_shown(store: MemoryStore) -> None:
    g = one_group(store, ("ACME corp", 3, 0.8, "fact"), ("Acme Corp", 0, 0.8, "fact"),
                  ("Acme Corp", 2, 0.8, "fact"), ("acme  corp", 1, 0.8, "fact"),
                  ("Globex", 9, 0.8, "fact"))
    globex, acme = g.values
    assert (acme.norm, acme.display, acme.count) == ("acme corp", "Acme Corp", 4)
    assert (acme.first_created, acme.last_created) == (datetime(2026, 3, 1),
                                                       datetime(2026, 3, 4))
    assert (globex.display, globex.newest_correction) == ("Globex", None)


def test_values_are_newest_activity_first(store: MemoryStore) -> None:
    g = one_group(store, ("b", 0, 0.8, "fact"), ("b", 19, 0.8, "fact"),
                  ("a", 4, 0.8, "fact"), ("c", 6, 0.8, "fact"))
    assert [v.norm for v in g.values] == ["b", "c", "a"]


# -- unlinked corrections ---------------------------------------------------------------


def test_a_correction_newer_than_another_value_makes_a_correction_group(
        store: MemoryStore) -> None:
    g = one_group(store, ("unittest", 1, 0.8, "preference"),
                  ("pytest", 0, 0.8, "preference"), ("pytest", 12, 0.8, "correction"),
                  ("Pytest", 2, 0.8, "correction"))
    assert g.kind == "correction"
    assert g.values[0].norm == "pytest"
    assert g.values[0].newest_correction == datetime(2026, 3, 13)
    assert g.values[1].newest_correction is None


@pytest.mark.parametrize(("other_day", "kind"), [
    (3, "correction"),  # the other value is older than the correction
    (4, "conflict"),  # same time: not older, so not corrected
    (5, "conflict"),  # the other value is newer
])
def test_a_correction_group_needs_an_older_other_value(store: MemoryStore, other_day: int,
                                                       kind: str) -> None:
    g = one_group(store, ("old", other_day, 0.8, "fact"), ("old", 8, 0.8, "fact"),
                  ("new", 4, 0.8, "correction"))
    assert g.kind == kind


def test_a_correction_is_compared_with_other_values_only(store: MemoryStore) -> None:
    # Its own value started earlier; no other value predates the correction.
    g = one_group(store, ("new", 0, 0.8, "fact"), ("new", 4, 0.8, "correction"),
                  ("other", 5, 0.8, "fact"))
    assert g.kind == "conflict"


def test_any_correcting_value_counts_not_only_the_newest(store: MemoryStore) -> None:
    g = one_group(store, ("x", 0, 0.8, "correction"), ("x", 19, 0.8, "fact"),
                  ("y", 1, 0.8, "fact"), ("z", 2, 0.8, "correction"))
    assert [v.norm for v in g.values] == ["x", "z", "y"]
    assert g.kind == "correction"
    [first] = Contradictions(store).find()
    assert first.kind == "correction"


def test_correction_groups_come_first(store: MemoryStore) -> None:
    group_of(store, ("a", 0, 0.8, "fact"), ("b", 30, 0.8, "fact"), attribute="plain")
    group_of(store, ("old", 0, 0.8, "fact"), ("new", 1, 0.8, "correction"),
             attribute="corrected")
    assert [g.attribute for g in Contradictions(store).find()] == ["corrected", "plain"]


# -- the suggestion ---------------------------------------------------------------------


def test_no_suggestion_for_fewer_than_two_values(store: MemoryStore) -> None:
    assert suggest_for(store, ("Acme", 0, 0.8, "fact")) is None
    assert suggest_for(store, ("Acme", 0, 0.8, "fact"), ("ACME", 1, 0.8, "fact")) is None
    assert Contradictions(store).load(("u", "user", "nothing")).suggestion is None


def test_newest_with_the_highest_confidence_wins_plainly(store: MemoryStore) -> None:
    s = suggest_for(store, ("Acme", 0, 0.7, "fact"), ("Globex", 9, 0.9, "fact"))
    assert s == Suggestion("m1", "Keep “Globex”: it is the newest (2026-03-10) and has the "
                                 "highest confidence (0.90).", False)


def test_equal_confidence_is_not_a_disagreement(store: MemoryStore) -> None:
    s = suggest_for(store, ("Globex", 9, 0.8, "fact"), ("Acme", 0, 0.8, "fact"))
    assert (s.winner_id, s.disagree) == ("m0", False)


def test_same_day_the_more_confident_is_the_newest(store: MemoryStore) -> None:
    s = suggest_for(store, ("Acme", 3, 0.6, "fact"), ("Globex", 3, 0.7, "fact"))
    assert (s.winner_id, s.disagree) == ("m1", False)


def test_a_newer_correction_overrides_a_more_confident_value(store: MemoryStore) -> None:
    s = suggest_for(store, ("unittest", 0, 0.95, "preference"),
                    ("pytest", 11, 0.2, "correction"))
    assert s == Suggestion("m1", (
        "Keep “pytest”: newer and higher-confidence disagree (newest has confidence 0.20, "
        "“unittest” has 0.95); it is a correction newer than what it contradicts, and "
        "corrections override."), True)


def test_the_newest_under_the_threshold_loses_to_a_certain_statement(
        store: MemoryStore) -> None:
    s = suggest_for(store, ("nurse", 0, 0.4, "fact"), ("doctor", 5, 0.39, "fact"))
    assert s == Suggestion("m0", (
        "Keep “nurse”: newer and higher-confidence disagree (newest has confidence 0.39, "
        "“nurse” has 0.40); the newest is under the 0.4 confidence threshold (possibly "
        "hypothetical), so the more certain statement wins."), True)


@pytest.mark.parametrize(("new_conf", "old_conf"), [
    (0.4, 0.9),  # the newest is at the threshold, not under it
    (0.2, 0.39),  # both under: nothing is certain, the newer stands
])
def test_otherwise_the_newer_wins_with_a_warning(store: MemoryStore, new_conf: float,
                                                 old_conf: float) -> None:
    s = suggest_for(store, ("Old", 0, old_conf, "fact"), ("New", 5, new_conf, "fact"))
    assert s == Suggestion("m1", (
        f"Keep “New”: newer and higher-confidence disagree (newest has confidence "
        f"{new_conf:.2f}, “Old” has {old_conf:.2f}); preferring the newer because facts "
        "change over time. Check before accepting."), True)


def test_highest_confidence_ties_go_to_the_newer(store: MemoryStore) -> None:
    s = suggest_for(store, ("A", 0, 0.9, "fact"), ("B", 2, 0.9, "fact"),
                    ("C", 4, 0.3, "fact"))
    # newest C (0.3) vs highest B (0.9, the newer of the two 0.9s): C under 0.4 -> B
    assert s.winner_id == "m1" and "“B” has 0.90" in s.reason


# -- the cards of a group -----------------------------------------------------------------


def test_one_card_per_value_newest_first_with_flags(store: MemoryStore) -> None:
    d, (a1, g1, h1, a2) = group_of(
        store, ("Acme", 0, 0.9, "fact"), ("Globex", 2, 0.6, "fact"),
        ("Hooli", 3, 0.95, "fact"), (" acme ", 4, 0.5, "fact"), attribute=KEY[2])
    assert d.key == KEY and d.id == Contradictions(store).find()[0].id
    assert d.member_ids == (a1, g1, h1, a2)  # oldest first
    assert d.is_contradiction
    assert [(c.memory.id, c.norm, [m.id for m in c.same_value], c.newest, c.oldest,
             c.highest_confidence) for c in d.cards] == [
        (a2, "acme", [a1, a2], True, False, False),
        (h1, "hooli", [h1], False, False, True),
        (g1, "globex", [g1], False, True, False),
    ]
    # newest a2 (0.5) vs highest h1 (0.95): neither a correction nor under 0.4
    assert d.suggestion is not None
    assert d.suggestion.winner_id == a2 and d.suggestion.disagree
    assert d.card_for(a1) is d.cards[0]
    with pytest.raises(NotFoundError) as err:
        d.card_for("zz")
    assert str(err.value) == "Memory 'zz' is not an active member of this group"


def test_cards_at_the_same_time_order_by_insertion_and_confidence(store: MemoryStore) -> None:
    d, (y, x_old, x) = group_of(store, ("Y", 1, 0.6, "fact"), ("x", 1, 0.9, "fact"),
                                ("X", 1, 0.5, "fact"))
    assert [c.memory.id for c in d.cards] == [x, y]  # same time: the later added first
    flags = {c.memory.id: (c.newest, c.oldest, c.highest_confidence) for c in d.cards}
    # newest: the more confident on a tie; oldest: the more confident on a tie too
    assert flags == {x: (False, False, False), y: (True, True, True)}
    assert x_old in [m.id for m in d.card_for(x).same_value]


def test_a_group_of_one_value_has_one_card_and_no_contradiction(store: MemoryStore) -> None:
    d, (_a, b) = group_of(store, ("Acme", 0, 0.8, "fact"), ("ACME", 1, 0.8, "fact"))
    assert not d.is_contradiction and d.suggestion is None
    [c] = d.cards
    assert (c.memory.id, c.newest, c.oldest, c.highest_confidence) == (b, True, False, False)


def test_a_group_with_no_members_is_empty(store: MemoryStore) -> None:
    d = Contradictions(store).load(("nobody", "user", "works_at"))
    assert (d.members, d.cards, d.suggestion, d.is_contradiction) == ((), (), None, False)
