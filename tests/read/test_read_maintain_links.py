"""maintain: what a run reports, audits and links, down to thresholds and messages.

Rules from core/read/maintain.py's docstring: a correction with a triple supersedes the
older active memories of the same user, entity and attribute (trimmed, case-
insensitive), each pointing at the next correction after it; one without a triple
supersedes the single most similar older active memory of the same user when the cosine
reaches ``similarity`` (default 0.45), else word overlap (Jaccard of keyword stems)
reaches 0.3.  Links are one audited group (actor ``worker``); decay is one audit row.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from memdesk.core.embeddings import DIM, to_blob
from memdesk.core.read.maintain import (
    Cancelled,
    Link,
    MaintainReport,
    maintain,
    write_links,
)
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put


def vec(cos: float) -> bytes:
    """A unit vector whose cosine with ``vec(1.0)`` is ``cos``."""
    v = np.zeros(DIM, dtype=np.float32)
    v[0], v[1] = cos, math.sqrt(max(0.0, 1.0 - cos * cos))
    return to_blob(v)


def put_vec(store: MemoryStore, items: list[dict[str, Any]], user: str = "u") -> list[str]:
    """Like ``put``, with each item's own ``embedding`` blob (None: no vector)."""
    rows = []
    for it in items:
        row = {k: v for k, v in it.items() if k != "days_ago"}
        row.update(user_id=user, created_at=NOW - timedelta(days=it["days_ago"]),
                   importance=0.5, confidence=0.8)
        rows.append(row)
    return store.add_many(rows)


# A preference and, twenty days later, its correction on the same triple.
TABS_THEN_SPACES = [
    {"type": "preference", "text": "Tabs.", "days_ago": 30, "entity": "u", "attribute": "i"},
    {"type": "correction", "text": "Spaces.", "days_ago": 10, "entity": "u", "attribute": "i"},
]


def pairs(report: MaintainReport) -> list[tuple[str, str]]:
    return [(x.old_id, x.new_id) for x in report.links]


def test_report_json() -> None:
    r = MaintainReport(decayed=3, links=[Link("a", "b", "how", NOW)], group_id="g",
                       seconds=1.23456)
    assert r.to_json() == {"decayed": 3, "linked": 1, "group_id": "g",
                           "links": [{"old": "a", "correction": "b", "how": "how"}],
                           "held": [], "seconds": 1.235}
    assert MaintainReport().to_json() == {"decayed": 0, "linked": 0, "group_id": None,
                                          "links": [], "held": [], "seconds": 0.0}


def test_cancel_message_and_nothing_reported_before_it(store: MemoryStore) -> None:
    put(store, [{"text": "x", "days_ago": 3}], embed=False)
    steps: list[str] = []
    with pytest.raises(Cancelled) as err:
        maintain(store, now=NOW, cancelled=lambda: True, progress=lambda n, f: steps.append(n))
    assert str(err.value) == "Maintenance was cancelled; nothing was changed."
    assert steps == []
    assert store.events("*") == []


def test_cancel_after_linking_rolls_the_links_back(store: MemoryStore) -> None:
    ids = put(store, TABS_THEN_SPACES, embed=False)
    calls = iter([False, False, False, True])
    with pytest.raises(Cancelled):
        maintain(store, now=NOW, cancelled=lambda: next(calls))
    assert store.get(ids[0]).superseded_by is None
    assert store.get(ids[0]).decay_score is None


def test_without_links_no_group_and_decay_only_steps(store: MemoryStore) -> None:
    ids = put(store, [{"text": "Fourteen days.", "days_ago": 14}], embed=False)
    steps: list[tuple[str, float]] = []
    report = maintain(store, now=NOW, progress=lambda n, f: steps.append((n, f)))
    assert report.group_id is None and report.links == [] and report.decayed == 1
    assert steps == [("linking corrections by triple", 0.05),
                     ("linking corrections by text", 0.35), ("decaying scores", 0.6),
                     ("committing", 0.95), ("done", 1.0)]
    assert report.seconds > 0
    ev = store.events("*")
    assert len(ev) == 1
    assert (ev[0].actor, ev[0].action, ev[0].before, ev[0].group_id) == (
        "worker", "decay", {}, None)
    assert ev[0].after == {"rows": 1, "at": NOW.isoformat()}
    assert ev[0].note == "maintain: Ebbinghaus decay with per-type half-lives"
    assert store.get(ids[0]).decay_score == pytest.approx(0.5)


def test_link_only_leaves_scores_and_writes_no_decay_row(store: MemoryStore) -> None:
    ids = put(store, TABS_THEN_SPACES, embed=False)
    steps: list[str] = []
    report = maintain(store, now=NOW, do_decay=False, progress=lambda n, f: steps.append(n))
    assert steps == ["linking corrections by triple", "linking corrections by text",
                     "writing links", "committing", "done"]
    assert report.decayed == 0 and pairs(report) == [(ids[0], ids[1])]
    assert store.events("*") == []
    assert store.get(ids[1]).decay_score is None
    nothing = maintain(store, now=NOW, do_decay=False, link=False)
    assert (nothing.decayed, nothing.links, nothing.group_id) == (0, [], None)


def test_link_audit_rows_in_full(store: MemoryStore) -> None:
    ids = put(store, TABS_THEN_SPACES, embed=False)
    version = store.get(ids[0]).version
    report = maintain(store, now=NOW, link=True, do_decay=False)
    link = report.links[0]
    assert (link.how, link.at) == ("same user, entity and attribute", NOW - timedelta(days=10))
    [ev] = store.group_events(report.group_id)
    assert (ev.memory_id, ev.actor, ev.action, ev.at, ev.group_id) == (
        ids[0], "worker", "supersede", NOW, report.group_id)
    assert ev.before == {"superseded_by": None, "valid_until": None}
    assert ev.after == {"superseded_by": ids[1], "valid_until": NOW - timedelta(days=10)}
    assert ev.note == "maintain: correction linked by same user, entity and attribute"
    old = store.get(ids[0])
    assert (old.superseded_by, old.valid_until, old.version) == (
        ids[1], NOW - timedelta(days=10), version + 1)


def test_write_links_leaves_an_already_superseded_row_alone(store: MemoryStore) -> None:
    ids = put(store, [{"text": "a", "days_ago": 3}, {"text": "b", "days_ago": 2},
                      {"text": "c", "days_ago": 1}], embed=False)
    store.supersede(ids[0], ids[1])
    before = store.get(ids[0])
    with store.write() as conn:
        write_links(store, conn, [Link(ids[0], ids[2], "test", NOW)], "g1", NOW)
    after = store.get(ids[0])
    assert (after.superseded_by, after.valid_until, after.version) == (
        before.superseded_by, before.valid_until, before.version)


def test_triple_needs_both_parts_non_blank_and_the_same_user(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "preference", "text": "Red bikes.", "days_ago": 30, "entity": " ",
         "attribute": "colour"},
        {"type": "correction", "text": "Blue cars now.", "days_ago": 10, "entity": " ",
         "attribute": "colour"},
        {"type": "preference", "text": "Green boats.", "days_ago": 30, "entity": "user",
         "attribute": "  "},
        {"type": "correction", "text": "Yellow trains now.", "days_ago": 10, "entity": "user",
         "attribute": "  "},
        {"type": "correction", "text": "A lone triple correction.", "days_ago": 5,
         "entity": "user", "attribute": "mood"},
    ], embed=False)
    put(store, [{"type": "preference", "text": "Same key, other user.", "days_ago": 40,
                 "entity": "user", "attribute": "mood"}], embed=False, user="v")
    report = maintain(store, now=NOW, do_decay=False)
    assert report.links == []
    assert all(store.get(i).is_active for i in ids)


def test_triple_chain_points_each_at_the_next_correction(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "preference", "text": "One.", "days_ago": 40, "entity": "E", "attribute": "A"},
        {"type": "note", "text": "Two.", "days_ago": 35, "entity": "e", "attribute": "a"},
        {"type": "correction", "text": "Three.", "days_ago": 30, "entity": "e",
         "attribute": "a"},
        {"type": "fact", "text": "Four.", "days_ago": 20, "entity": "e", "attribute": "a"},
        {"type": "correction", "text": "Five.", "days_ago": 20, "entity": "e",
         "attribute": "a"},
        {"type": "fact", "text": "Six, after the last correction.", "days_ago": 1,
         "entity": "e", "attribute": "a"},
    ], embed=False)
    report = maintain(store, now=NOW, do_decay=False)
    # Same creation time: the earlier-inserted "Four." comes before "Five.".
    assert sorted(pairs(report)) == sorted([(ids[0], ids[2]), (ids[1], ids[2]),
                                            (ids[2], ids[4]), (ids[3], ids[4])])
    at = {x.old_id: x.at for x in report.links}
    assert at[ids[0]] == at[ids[1]] == NOW - timedelta(days=30)
    assert at[ids[2]] == at[ids[3]] == NOW - timedelta(days=20)
    assert store.get(ids[5]).is_active and store.get(ids[4]).is_active


WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima"]


def text(*idx: int) -> str:
    return " ".join(WORDS[i] for i in idx)


def test_word_overlap_at_the_threshold_links_one_below_does_not(store: MemoryStore) -> None:
    # 3 shared of 10 distinct stems: 0.3 exactly.  2 shared of 7: 0.29.
    at = put(store, [{"type": "note", "text": text(0, 1, 2, 5, 6, 7, 8, 9), "days_ago": 5},
                     {"type": "correction", "text": text(0, 1, 2, 3, 4), "days_ago": 1}],
             embed=False)
    below = put(store, [{"type": "note", "text": text(0, 1, 5, 6), "days_ago": 5},
                        {"type": "correction", "text": text(0, 1, 2, 3, 4), "days_ago": 1}],
                embed=False, user="v")
    report = maintain(store, now=NOW, do_decay=False)
    assert pairs(report) == [(at[0], at[1])]
    assert report.links[0].how == "text similarity (word overlap 0.30)"
    assert report.links[0].at == NOW - timedelta(days=1)
    assert store.get(below[0]).is_active


def test_text_link_takes_the_most_similar_and_each_old_memory_once(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "note", "text": text(0, 1, 2, 3, 7), "days_ago": 9},   # 4 of 6: 0.67
        {"type": "note", "text": text(0, 1, 2, 3, 4), "days_ago": 8},   # 5 of 5: 1.00
        {"type": "note", "text": text(0, 1, 8, 9, 10), "days_ago": 7},  # 2 of 8: 0.25
        {"type": "correction", "text": text(0, 1, 2, 3, 4), "days_ago": 2},
        {"type": "correction", "text": text(0, 1, 2, 3, 4), "days_ago": 1},
    ], embed=False)
    report = maintain(store, now=NOW, do_decay=False)
    # The older correction takes the best; the newer one cannot take it again (nor the
    # correction before it, now superseded in the same run: it takes its own best left).
    assert pairs(report) == [(ids[1], ids[3]), (ids[3], ids[4])]
    assert [x.how for x in report.links] == ["text similarity (word overlap 1.00)"] * 2


def test_text_link_skips_what_a_triple_link_already_took(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "note", "text": text(0, 1, 2), "days_ago": 9, "entity": "e", "attribute": "a"},
        {"type": "correction", "text": text(5, 6, 7), "days_ago": 5, "entity": "e",
         "attribute": "a"},
        {"type": "correction", "text": text(0, 1, 2), "days_ago": 1},
    ], embed=False)
    report = maintain(store, now=NOW, do_decay=False)
    assert pairs(report) == [(ids[0], ids[1])]


def test_cosine_decides_when_both_have_vectors(store: MemoryStore) -> None:
    ids = put_vec(store, [
        {"type": "note", "text": text(0, 1, 2), "days_ago": 9, "embedding": vec(0.0)},
        {"type": "note", "text": text(5, 6, 7), "days_ago": 8, "embedding": vec(0.5)},
        {"type": "note", "text": text(8, 9, 10), "days_ago": 7, "embedding": vec(0.4)},
        {"type": "correction", "text": text(0, 1, 2), "days_ago": 1, "embedding": vec(1.0)},
    ])
    report = maintain(store, now=NOW, do_decay=False)
    # Same words but orthogonal vectors: not linked; cosine 0.5 >= 0.45 beats 0.4.
    assert pairs(report) == [(ids[1], ids[3])]
    assert report.links[0].how == "text similarity (cosine 0.50)"


def test_cosine_threshold_is_the_similarity_argument(store: MemoryStore) -> None:
    put_vec(store, [
        {"type": "note", "text": text(5, 6, 7), "days_ago": 8, "embedding": vec(0.5)},
        {"type": "correction", "text": text(0, 1, 2), "days_ago": 1, "embedding": vec(1.0)},
    ])
    assert maintain(store, now=NOW, do_decay=False, similarity=0.5001).links == []
    assert len(maintain(store, now=NOW, do_decay=False, similarity=0.5).links) == 1


def test_default_cosine_threshold_refuses_below_it(store: MemoryStore) -> None:
    ids = put_vec(store, [
        {"type": "note", "text": text(5, 6, 7), "days_ago": 8, "embedding": vec(0.44)},
        {"type": "correction", "text": text(0, 1, 2), "days_ago": 1, "embedding": vec(1.0)},
    ])
    assert maintain(store, now=NOW, do_decay=False).links == []
    assert store.get(ids[0]).is_active


def test_word_overlap_when_either_has_no_vector_or_another_size(store: MemoryStore) -> None:
    short = to_blob(np.ones(8, dtype=np.float32) / math.sqrt(8))
    ids = put_vec(store, [
        {"type": "note", "text": text(0, 1, 2, 3), "days_ago": 9, "embedding": None},
        {"type": "correction", "text": text(0, 1, 2, 3), "days_ago": 1, "embedding": vec(1.0)},
    ])
    other = put_vec(store, [
        {"type": "note", "text": text(0, 1, 2, 4), "days_ago": 9, "embedding": short},
        {"type": "correction", "text": text(0, 1, 2, 3), "days_ago": 1, "embedding": vec(1.0)},
    ], user="v")
    report = maintain(store, now=NOW, do_decay=False)
    assert sorted(pairs(report)) == sorted([(ids[0], ids[1]), (other[0], other[1])])
    how = {x.new_id: x.how for x in report.links}
    assert how[ids[1]] == "text similarity (word overlap 1.00)"
    assert how[other[1]] == "text similarity (word overlap 0.60)"


def test_two_corrections_alone_link_the_older_to_the_newer(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "correction", "text": "Tea.", "days_ago": 9, "entity": "u", "attribute": "d"},
        {"type": "correction", "text": "Coffee.", "days_ago": 3, "entity": "U",
         "attribute": "D"},
    ], embed=False)
    report = maintain(store, now=NOW, do_decay=False)
    assert pairs(report) == [(ids[0], ids[1])]


def test_each_users_chain_is_linked_once(store: MemoryStore) -> None:
    a = put(store, [
        {"type": "preference", "text": "Tabs.", "days_ago": 9, "entity": "e", "attribute": "i"},
        {"type": "correction", "text": "Spaces.", "days_ago": 3, "entity": "e",
         "attribute": "i"},
    ], embed=False, user="a")
    b = put(store, [
        {"type": "preference", "text": "Tabs.", "days_ago": 9, "entity": "e", "attribute": "i"},
        {"type": "correction", "text": "Spaces.", "days_ago": 3, "entity": "e",
         "attribute": "i"},
    ], embed=False, user="b")
    report = maintain(store, now=NOW, do_decay=False)
    assert sorted(pairs(report)) == sorted([(a[0], a[1]), (b[0], b[1])])


def test_a_blank_triple_part_written_by_raw_sql_is_no_triple(store: MemoryStore) -> None:
    from sqlalchemy import update

    from memdesk.core.store.models import Memory

    ids = put(store, [
        {"type": "preference", "text": "Red bikes.", "days_ago": 9, "entity": "x",
         "attribute": "colour"},
        {"type": "correction", "text": "Blue cars.", "days_ago": 3, "entity": "x",
         "attribute": "colour"},
        {"type": "preference", "text": "Green boats.", "days_ago": 9, "entity": "y",
         "attribute": "size"},
        {"type": "correction", "text": "Small trains.", "days_ago": 3, "entity": "y",
         "attribute": "size"},
    ], embed=False)
    M = Memory.__table__.c
    with store.write() as conn:  # unaudited writers (imports, raw SQL) may leave blanks
        conn.execute(update(Memory.__table__).where(M.id.in_(ids[:2])).values(attribute="  "))
        conn.execute(update(Memory.__table__).where(M.id.in_(ids[2:])).values(entity=" "))
    assert maintain(store, now=NOW, do_decay=False).links == []
    assert all(store.get(i).is_active for i in ids)


def test_triples_of_more_than_five_hundred_users_are_all_read(store: MemoryStore) -> None:
    # Users are read 500 at a time: the 501st (in sorted order) must be linked too.
    rows = [{"type": "correction", "text": "Spaces.", "entity": "e", "attribute": "i",
             "user_id": f"u{n:03d}", "days_ago": 3} for n in range(501)]
    rows.append({"type": "preference", "text": "Tabs.", "entity": "e", "attribute": "i",
                 "user_id": "u500", "days_ago": 9})
    ids = put(store, rows, embed=False)
    report = maintain(store, now=NOW, do_decay=False)
    assert pairs(report) == [(ids[501], ids[500])]


def test_triple_order_is_creation_time_not_insertion(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "correction", "text": "Spaces.", "days_ago": 3, "entity": "e",
         "attribute": "i"},
        {"type": "preference", "text": "Tabs, imported late.", "days_ago": 9, "entity": "e",
         "attribute": "i"},
    ], embed=False)
    report = maintain(store, now=NOW, do_decay=False)
    assert pairs(report) == [(ids[1], ids[0])]


def test_no_keywords_on_either_side_is_no_overlap(store: MemoryStore) -> None:
    none = put(store, [{"type": "note", "text": "The and of it.", "days_ago": 9},
                       {"type": "correction", "text": "Of the and.", "days_ago": 1}],
               embed=False)
    one = put(store, [{"type": "note", "text": "Kayak paddles.", "days_ago": 9},
                      {"type": "correction", "text": "It is not.", "days_ago": 1}],
              embed=False, user="v")
    assert maintain(store, now=NOW, do_decay=False).links == []
    assert all(store.get(i).is_active for i in none + one)


def test_text_links_only_active_corrections_missing_a_triple_part(store: MemoryStore) -> None:
    gone = put(store, [{"type": "note", "text": text(0, 1, 2), "days_ago": 9},
                       {"type": "correction", "text": text(0, 1, 2), "days_ago": 1}],
               embed=False, user="a")
    store.soft_delete(gone[1])
    full = put(store, [{"type": "note", "text": text(0, 1, 2), "days_ago": 9},
                       {"type": "correction", "text": text(0, 1, 2), "days_ago": 1,
                        "entity": "e", "attribute": "x"}], embed=False, user="b")
    half = put(store, [{"type": "note", "text": text(0, 1, 2), "days_ago": 9},
                       {"type": "correction", "text": text(0, 1, 2), "days_ago": 1,
                        "entity": "e"}], embed=False, user="c")
    attr = put(store, [{"type": "note", "text": text(0, 1, 2), "days_ago": 9},
                       {"type": "correction", "text": text(0, 1, 2), "days_ago": 1,
                        "attribute": "x"}], embed=False, user="d")
    report = maintain(store, now=NOW, do_decay=False)
    assert sorted(pairs(report)) == sorted([(half[0], half[1]), (attr[0], attr[1])])
    assert store.get(gone[0]).is_active and store.get(full[0]).is_active


def test_lone_corrections_are_taken_in_creation_order(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "note", "text": text(0, 1, 2), "days_ago": 9},
        {"type": "correction", "text": text(0, 1, 2), "days_ago": 1},
        {"type": "correction", "text": text(0, 1, 2), "days_ago": 3},  # inserted last
    ], embed=False)
    report = maintain(store, now=NOW, do_decay=False)
    assert pairs(report) == [(ids[0], ids[2]), (ids[2], ids[1])]


def test_a_lone_correction_never_links_to_itself_or_to_a_deleted_memory(
    store: MemoryStore,
) -> None:
    ids = put(store, [{"type": "note", "text": text(0, 1, 2), "days_ago": 9},
                      {"type": "correction", "text": text(0, 1, 2), "days_ago": 1}],
              embed=False)
    store.soft_delete(ids[0])
    assert maintain(store, now=NOW, do_decay=False).links == []
    assert store.get(ids[1]).is_active


def test_report_seconds_is_the_time_between_start_and_commit(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    ticks = iter([100.0, 102.5])
    monkeypatch.setattr("memdesk.core.read.maintain.time",
                        SimpleNamespace(perf_counter=lambda: next(ticks)))
    assert maintain(store, now=NOW).seconds == 2.5
