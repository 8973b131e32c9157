"""core/curation/contradictions, the pure rules: value normalisation, group ids, the
scan's regrouping into value clusters (display spelling, counts, times, correction
kind), the cards of a group and the suggested winner at its thresholds.  No store:
rows and records are built by hand, so each expectation is read off the module's rules
(the write-phase design's 0.4 confidence threshold, the dispositional-memory design's correction
override)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

import pytest

from memdesk.core.curation import contradictions as C
from memdesk.core.errors import NotFoundError
from memdesk.core.store.records import MemoryRecord

T0 = datetime(2026, 3, 1)
KEY = ("alice", "user", "works_at")


def rec(mid: str, value: str, *, days: int = 0, conf: float = 0.8, type_: str = "fact",
        seq: int = 0) -> MemoryRecord:
    return MemoryRecord(
        id=mid, user_id="alice", text=f"alice works at {value}", type=type_, topic=None,
        importance=0.5, confidence=conf, source_session=None,
        created_at=T0 + timedelta(days=days), last_accessed=None, access_count=0,
        decay_score=None, superseded_by=None, embedding=None, entity="user",
        attribute="works_at", value=value, valid_until=None, layer=None, deleted_at=None,
        seq=seq)


def card(r: MemoryRecord) -> C.Card:
    return C.Card(r, C.normalise(r.value or ""), (r,))


# -- normalise and ids ----------------------------------------------------------------


@pytest.mark.parametrize(("raw", "norm"), [
    ("Acme Corp", "acme corp"), ("  acme \t\n CORP ", "acme corp"), ("", ""),
    ("STRASSE", "strasse"), ("Straße", "strasse"), ("a  b", "a b"),
])
def test_normalise_casefolds_and_collapses_whitespace(raw: str, norm: str) -> None:
    assert C.normalise(raw) == norm


def test_group_id_is_twelve_hex_of_the_keys_sha1() -> None:
    want = hashlib.sha1(b'["alice", "user", "works_at"]').hexdigest()[:12]
    assert C.group_id_for(KEY) == want
    assert len(want) == 12
    assert C.group_id_for(("alice", "user", "lives_in")) != want


# -- clusters and groups --------------------------------------------------------------


def cluster(norm: str, *, count: int = 1, seqs: str = "1", first: int = 0, last: int = 0,
            corr: int | None = None, display: str | None = None) -> C.ValueCluster:
    return C.ValueCluster(norm, display or norm, count, seqs, T0 + timedelta(days=first),
                          T0 + timedelta(days=last),
                          None if corr is None else T0 + timedelta(days=corr))


def test_cluster_and_group_properties() -> None:
    a = cluster("acme", count=2, seqs="3,7", first=0, last=5)
    g = C.ContradictionGroup(KEY, (cluster("globex", seqs="12", first=9, last=9), a),
                             "conflict")
    assert a.seqs == (3, 7)
    assert (g.id, g.user_id, g.entity, g.attribute) == (
        C.group_id_for(KEY), "alice", "user", "works_at")
    assert g.member_count == 3
    assert g.seqs == frozenset({3, 7, 12})
    assert g.last_created == T0 + timedelta(days=9)
    assert g.to_json() == {
        "group": C.group_id_for(KEY), "user_id": "alice", "entity": "user",
        "attribute": "works_at", "kind": "conflict", "members": 3,
        "values": [
            {"value": "globex", "normalised": "globex", "count": 1,
             "last_created": "2026-03-10T00:00:00"},
            {"value": "acme", "normalised": "acme", "count": 2,
             "last_created": "2026-03-06T00:00:00"},
        ],
    }


def test_parse_dt() -> None:
    assert C._parse_dt(None) is None
    assert C._parse_dt(T0) is T0
    assert C._parse_dt("2026-03-01 12:30:00.000000") == datetime(2026, 3, 1, 12, 30)
    assert C._parse_dt("2026-03-02T00:00:00") == datetime(2026, 3, 2)


def row(value: str, count: int, seqs: str, first: str, last: str,
        corr: str | None = None) -> tuple:
    """One scan row: (user, entity, attribute, value, count, seqs, min, max, correction)."""
    return ("alice", "user", "works_at", value, count, seqs, first, last, corr)


def test_build_group_merges_spellings_and_keeps_the_commonest() -> None:
    g = C._build_group(KEY, [
        row("ACME corp", 1, "4", "2026-03-04 00:00:00", "2026-03-04 00:00:00"),
        row("Acme Corp", 2, "1,2", "2026-03-01 00:00:00", "2026-03-03 00:00:00"),
        row("acme  corp", 2, "9,8", "2026-03-02 00:00:00", "2026-03-05 00:00:00"),
        row("Globex", 1, "5", "2026-03-10 00:00:00", "2026-03-10 00:00:00"),
    ])
    assert g is not None and g.key == KEY and g.kind == "conflict"
    globex, acme = g.values
    assert globex == C.ValueCluster("globex", "Globex", 1, "5", datetime(2026, 3, 10),
                                    datetime(2026, 3, 10), None)
    # Tie on count 2: the first of the tied rows in scan order gives the display.
    assert acme == C.ValueCluster("acme corp", "Acme Corp", 5, "4,1,2,9,8",
                                  datetime(2026, 3, 1), datetime(2026, 3, 5), None)


def test_build_group_needs_two_distinct_values() -> None:
    assert C._build_group(KEY, [
        row("Acme", 1, "1", "2026-03-01 00:00:00", "2026-03-01 00:00:00"),
        row("ACME", 1, "2", "2026-03-02 00:00:00", "2026-03-02 00:00:00"),
    ]) is None
    assert C._build_group(KEY, []) is None


def test_values_are_newest_activity_first() -> None:
    g = C._build_group(KEY, [
        row("b", 1, "2", "2026-03-01 00:00:00", "2026-03-20 00:00:00"),
        row("a", 1, "1", "2026-03-05 00:00:00", "2026-03-05 00:00:00"),
        row("c", 1, "3", "2026-03-07 00:00:00", "2026-03-07 00:00:00"),
    ])
    assert [v.norm for v in g.values] == ["b", "c", "a"]


def test_a_correction_newer_than_another_value_makes_a_correction_group() -> None:
    g = C._build_group(KEY, [
        row("unittest", 1, "1", "2026-03-02 00:00:00", "2026-03-02 00:00:00"),
        row("pytest", 2, "2,3", "2026-03-01 00:00:00", "2026-03-13 00:00:00",
            "2026-03-13 00:00:00"),
        row("Pytest", 1, "4", "2026-03-03 00:00:00", "2026-03-03 00:00:00",
            "2026-03-03 00:00:00"),
    ])
    assert g.kind == "correction"
    assert g.values[0].newest_correction == datetime(2026, 3, 13)
    assert g.values[1].newest_correction is None


@pytest.mark.parametrize(("other_first", "kind"), [
    ("2026-03-04 00:00:00", "correction"),  # other value older than the correction
    ("2026-03-05 00:00:00", "conflict"),  # same time: not older, so not corrected
    ("2026-03-06 00:00:00", "conflict"),  # other value newer
])
def test_correction_kind_needs_an_older_other_value(other_first: str, kind: str) -> None:
    g = C._build_group(KEY, [
        row("old", 1, "1", other_first, "2026-03-09 00:00:00"),
        row("new", 1, "2", "2026-03-05 00:00:00", "2026-03-05 00:00:00",
            "2026-03-05 00:00:00"),
    ])
    assert g.kind == kind


def test_a_correction_only_compared_with_other_values() -> None:
    # The correction's own cluster started earlier; no other value predates it.
    g = C._build_group(KEY, [
        row("new", 2, "1,2", "2026-03-01 00:00:00", "2026-03-05 00:00:00",
            "2026-03-05 00:00:00"),
        row("other", 1, "3", "2026-03-06 00:00:00", "2026-03-06 00:00:00"),
    ])
    assert g.kind == "conflict"


def test_any_correcting_cluster_counts_not_only_the_first() -> None:
    g = C._build_group(KEY, [
        row("x", 1, "1", "2026-03-10 00:00:00", "2026-03-20 00:00:00",
            "2026-03-01 00:00:00"),  # a correction older than every other value
        row("y", 1, "2", "2026-03-02 00:00:00", "2026-03-02 00:00:00"),
        row("z", 1, "3", "2026-03-03 00:00:00", "2026-03-03 00:00:00",
            "2026-03-03 00:00:00"),  # corrects y
    ])
    assert [v.norm for v in g.values] == ["x", "z", "y"]
    assert g.kind == "correction"


# -- suggest ----------------------------------------------------------------------------


def test_no_suggestion_for_fewer_than_two_values() -> None:
    assert C.suggest([]) is None
    assert C.suggest([card(rec("a", "Acme"))]) is None


def test_newest_with_the_highest_confidence_wins_plainly() -> None:
    s = C.suggest([card(rec("a", "Acme", days=0, conf=0.7)),
                   card(rec("g", "Globex", days=9, conf=0.9))])
    assert s == C.Suggestion("g", "Keep “Globex”: it is the newest (2026-03-10) and has the "
                                  "highest confidence (0.90).", False)


def test_equal_confidence_is_not_a_disagreement() -> None:
    s = C.suggest([card(rec("g", "Globex", days=9, conf=0.8)),
                   card(rec("a", "Acme", days=0, conf=0.8))])
    assert (s.winner_id, s.disagree) == ("g", False)


def test_same_day_the_more_confident_is_the_newest() -> None:
    s = C.suggest([card(rec("a", "Acme", days=3, conf=0.6)),
                   card(rec("g", "Globex", days=3, conf=0.7))])
    assert (s.winner_id, s.disagree) == ("g", False)


def test_newer_correction_overrides_a_more_confident_value() -> None:
    s = C.suggest([card(rec("u", "unittest", days=0, conf=0.95, type_="preference")),
                   card(rec("p", "pytest", days=11, conf=0.2, type_="correction"))])
    assert s == C.Suggestion("p", (
        "Keep “pytest”: newer and higher-confidence disagree (newest has confidence 0.20, "
        "“unittest” has 0.95); it is a correction newer than what it contradicts, and "
        "corrections override."), True)


def test_newest_under_the_threshold_loses_to_a_certain_statement() -> None:
    s = C.suggest([card(rec("n", "nurse", days=0, conf=0.4)),
                   card(rec("d", "doctor", days=5, conf=0.39))])
    assert s == C.Suggestion("n", (
        "Keep “nurse”: newer and higher-confidence disagree (newest has confidence 0.39, "
        "“nurse” has 0.40); the newest is under the 0.4 confidence threshold (possibly "
        "hypothetical), so the more certain statement wins."), True)


@pytest.mark.parametrize(("new_conf", "old_conf"), [
    (0.4, 0.9),  # the newest is at the threshold, not under it
    (0.2, 0.39),  # both under: nothing is certain, the newer stands
])
def test_otherwise_the_newer_wins_with_a_warning(new_conf: float, old_conf: float) -> None:
    s = C.suggest([card(rec("o", "Old", days=0, conf=old_conf)),
                   card(rec("n", "New", days=5, conf=new_conf))])
    assert s == C.Suggestion("n", (
        f"Keep “New”: newer and higher-confidence disagree (newest has confidence "
        f"{new_conf:.2f}, “Old” has {old_conf:.2f}); preferring the newer because facts "
        "change over time. Check before accepting."), True)


def test_highest_confidence_ties_go_to_the_newer() -> None:
    s = C.suggest([card(rec("a", "A", days=0, conf=0.9)), card(rec("b", "B", days=2, conf=0.9)),
                   card(rec("c", "C", days=4, conf=0.3))])
    # newest c (0.3) vs highest b (0.9, newer of the two 0.9s): c under 0.4 -> b
    assert s.winner_id == "b" and "“B” has 0.90" in s.reason


# -- the cards of a group ---------------------------------------------------------------


def test_detail_cards_one_per_value_newest_first_with_flags() -> None:
    a1 = rec("a1", "Acme", days=0, conf=0.9, seq=1)
    g1 = rec("g1", "Globex", days=2, conf=0.6, seq=2)
    a2 = rec("a2", " acme ", days=4, conf=0.5, seq=3)
    h1 = rec("h1", "Hooli", days=3, conf=0.95, seq=4)
    d = C._detail(KEY, [a1, g1, h1, a2])
    assert d.key == KEY and d.id == C.group_id_for(KEY)
    assert d.member_ids == ("a1", "g1", "h1", "a2")
    assert d.is_contradiction
    assert [(c.memory.id, c.norm, [m.id for m in c.same_value], c.newest, c.oldest,
             c.highest_confidence) for c in d.cards] == [
        ("a2", "acme", ["a1", "a2"], True, False, False),
        ("h1", "hooli", ["h1"], False, False, True),
        ("g1", "globex", ["g1"], False, True, False),
    ]
    # newest a2 (0.5) vs highest h1 (0.95): neither a correction nor under 0.4
    assert d.suggestion.winner_id == "a2" and d.suggestion.disagree
    assert d.card_for("a1") is d.cards[0]
    with pytest.raises(NotFoundError) as err:
        d.card_for("zz")
    assert str(err.value) == "Memory 'zz' is not an active member of this group"


def test_detail_ties_on_time_break_by_seq_and_confidence() -> None:
    x = rec("x", "X", days=1, conf=0.5, seq=7)
    y = rec("y", "Y", days=1, conf=0.6, seq=5)
    x_old = rec("x0", "x", days=1, conf=0.9, seq=6)
    d = C._detail(KEY, [y, x_old, x])
    assert [c.memory.id for c in d.cards] == ["x", "y"]  # same time: higher seq first
    flags = {c.memory.id: (c.newest, c.oldest, c.highest_confidence) for c in d.cards}
    # newest: the more confident on a tie; oldest: the more confident on a tie too
    assert flags == {"x": (False, False, False), "y": (True, True, True)}


def test_detail_of_one_value_has_no_contradiction() -> None:
    a = rec("a", "Acme", seq=1)
    d = C._detail(KEY, [a, rec("b", "ACME", days=1, seq=2)])
    assert not d.is_contradiction and d.suggestion is None
    [c] = d.cards
    assert (c.memory.id, c.newest, c.oldest, c.highest_confidence) == ("b", True, False, False)


def test_detail_of_no_members() -> None:
    d = C._detail(KEY, [])
    assert (d.members, d.cards, d.suggestion, d.is_contradiction) == ((), (), None, False)
