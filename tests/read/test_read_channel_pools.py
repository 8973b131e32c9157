"""The channels one at a time on a snapshot: keyword shares and pools, the recent and
random pools, the vector channel's ranking and cosines, the graph's limits and hubs.

Expected values come from core/read/channels.py's docstrings and the V4 retriever proposal: keyword
share = the IDF weight of the query stems a row holds over the weight of all matched
stems (IDF ``ln(1 + (N - n + 0.5) / (n + 0.5))``); recent = created in the last 7 days
(the boundary included); pool A newest first, pool B best then most important.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select

from memdesk.core.embeddings import DIM, to_blob
from memdesk.core.read import channels, snapshot
from memdesk.core.read.config import ReadConfig
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory
from tests.helpers.read import NOW, put

CFG = ReadConfig()


def snap_of(store: MemoryStore, user: str = "u") -> snapshot.UserSnapshot:
    with store.read() as conn:
        return snapshot.build(conn, user, snapshot.store_version(conn), DIM)


def seqs_of(store: MemoryStore, ids: list[str]) -> list[int]:
    return [store.get(i).seq for i in ids]


def all_ok(snap: snapshot.UserSnapshot) -> np.ndarray:
    return np.ones(len(snap), dtype=bool)


def idf(n: int, d: int) -> float:
    return math.log(1 + (n - d + 0.5) / (d + 0.5))


def test_scope_is_the_users_active_confident_rows(store: MemoryStore) -> None:
    ids = put(store, [{"text": "a", "confidence": 0.4}, {"text": "b", "confidence": 0.39},
                      {"text": "c", "confidence": 0.9}, {"text": "d", "confidence": 0.9}],
              embed=False)
    put(store, [{"text": "e", "confidence": 0.9}], embed=False, user="v")
    store.soft_delete(ids[3])
    M = Memory.__table__.c
    with store.read() as conn:
        got = set(conn.execute(select(M.id).where(channels.scope("u", CFG))).scalars())
    assert got == {ids[0], ids[2]}
    snap = snap_of(store)
    assert channels.eligible(snap, CFG).tolist() == [
        snap.texts[i] in ("a", "c") for i in range(len(snap))]


def test_keyword_shares_weigh_rarer_stems_more(store: MemoryStore) -> None:
    ids = put(store, [
        {"text": "Kayak trip planned.", "days_ago": 1},
        {"text": "Kayak paddle repaired.", "days_ago": 30, "importance": 0.9},
        {"text": "Paddle board lessons.", "days_ago": 20},
        {"text": "Paddling in the lake.", "days_ago": 2},
        {"text": "Nothing relevant here.", "days_ago": 3},
    ], embed=False)
    s = seqs_of(store, ids)
    snap = snap_of(store)
    hits = channels.keyword_channel(snap, "kayak paddles", CFG, NOW, all_ok(snap))
    # stems: kayak (2 rows), paddle (3 rows: "paddling" is an inflection); N = 5 rows.
    wk, wp = idf(5, 2), idf(5, 3)
    assert hits.share == pytest.approx({s[0]: wk / (wk + wp), s[1]: 1.0,
                                        s[2]: wp / (wk + wp), s[3]: wp / (wk + wp)})
    assert (hits.recent_matches, hits.older_matches) == (2, 2)
    # kayak is rarer: the kayak-only row outranks the paddle-only rows.
    assert hits.ranked == [s[1], s[0], s[3], s[2]]
    assert hits.pool == {s[1]: "B", s[0]: "A", s[3]: "A", s[2]: "B"}
    # A query word no row holds still counts (as a word found once): the kayak rows
    # hold only kayak's part of the query, not all of it.
    only = channels.keyword_channel(snap, "kayak zebra", CFG, NOW, all_ok(snap))
    wz = idf(5, 1)
    assert only.share == pytest.approx({s[0]: wk / (wk + wz), s[1]: wk / (wk + wz)})


def test_keyword_channel_pools_have_their_own_budgets(store: MemoryStore) -> None:
    ids = put(store, [
        {"text": "Kayak one.", "days_ago": 1},
        {"text": "Kayak two.", "days_ago": 2},
        {"text": "Kayak three.", "days_ago": 7},           # exactly at the cutoff: recent
        {"text": "Kayak four.", "days_ago": 8, "importance": 0.2},
        {"text": "Kayak five.", "days_ago": 9, "importance": 0.8},
        {"text": "Kayak six.", "days_ago": 10, "importance": 0.8},
    ], embed=False)
    s = seqs_of(store, ids)
    snap = snap_of(store)
    ok = all_ok(snap)
    hits = channels.keyword_channel(snap, "kayak", CFG, NOW, ok)
    assert (hits.recent_matches, hits.older_matches) == (3, 3)
    # Equal shares: ordered by importance, then the later seq.
    assert hits.ranked == [s[5], s[4], s[2], s[1], s[0], s[3]]
    cfg = CFG.with_(pool_recent=2, pool_keyword_older=1)
    hits = channels.keyword_channel(snap, "kayak", cfg, NOW, ok)
    # Pool A keeps its two newest, pool B its most important (the later seq on a tie).
    assert hits.ranked == [s[5], s[1], s[0]]
    assert hits.pool == {s[5]: "B", s[1]: "A", s[0]: "A"}
    assert set(hits.share) == set(s)
    none = channels.keyword_channel(snap, "kayak", CFG.with_(pool_recent=0,
                                                              pool_keyword_older=0), NOW, ok)
    assert none.ranked == [] and none.recent_matches == 3


def test_keyword_channel_ignores_ineligible_rows_and_empty_queries(store: MemoryStore) -> None:
    ids = put(store, [{"text": "Kayak one.", "days_ago": 1},
                      {"text": "Kayak two.", "days_ago": 1},
                      {"text": "Other.", "days_ago": 1}], embed=False)
    s = seqs_of(store, ids)
    snap = snap_of(store)
    ok = np.array([snap.texts[i] != "Kayak two." for i in range(len(snap))])
    hits = channels.keyword_channel(snap, "kayak", CFG, NOW, ok)
    assert hits.ranked == [s[0]] and hits.share == {s[0]: 1.0}
    assert channels.keyword_rows(snap, [], ok) == {}
    empty = channels.keyword_channel(snap, "the and of", CFG, NOW, ok)
    assert (empty.ranked, empty.share, empty.pool, empty.recent_matches,
            empty.older_matches) == ([], {}, {}, 0, 0)


def test_recent_pool_newest_first_within_seven_days(store: MemoryStore) -> None:
    ids = put(store, [
        {"text": "a", "days_ago": 3}, {"text": "b", "days_ago": 1},
        {"text": "c", "days_ago": 7}, {"text": "d", "days_ago": 7.01},
        {"text": "e", "days_ago": 1}, {"text": "f", "days_ago": 2},
    ], embed=False)
    s = seqs_of(store, ids)
    snap = snap_of(store)
    ok = all_ok(snap)
    assert channels.recent_pool(snap, CFG, NOW, 10, ok) == [s[4], s[1], s[5], s[0], s[2]]
    assert channels.recent_pool(snap, CFG, NOW, 2, ok) == [s[4], s[1]]
    assert channels.recent_pool(snap, CFG, NOW, 0, ok) == []
    ok[snap.row_of[s[4]]] = False
    assert channels.recent_pool(snap, CFG, NOW, 2, ok) == [s[1], s[5]]
    two = CFG.with_(recent_days=2.0)
    assert channels.recent_pool(snap, two, NOW, 10, all_ok(snap)) == [s[4], s[1], s[5]]
    empty = snap_of(store, "nobody")
    assert channels.recent_pool(empty, CFG, NOW, 5, all_ok(empty)) == []


def test_random_older_pool_samples_only_older_eligible_rows(store: MemoryStore) -> None:
    ids = put(store, [{"text": f"t{d}", "days_ago": d} for d in (1, 6, 7, 8, 20, 30, 40)],
              embed=False)
    s = seqs_of(store, ids)
    snap = snap_of(store)
    ok = all_ok(snap)
    older = {s[3], s[4], s[5], s[6]}  # 7 days exactly is still recent
    got = channels.random_older_pool(snap, CFG.with_(pool_random_older=10), NOW, ok)
    assert sorted(got) == sorted(older)
    got = channels.random_older_pool(snap, CFG.with_(pool_random_older=4), NOW, ok)
    assert sorted(got) == sorted(older)
    got = channels.random_older_pool(snap, CFG, NOW, ok)  # five by default: all four
    assert sorted(got) == sorted(older)
    two = channels.random_older_pool(snap, CFG.with_(pool_random_older=2), NOW, ok)
    assert len(two) == 2 and set(two) <= older and len(set(two)) == 2
    assert channels.random_older_pool(snap, CFG.with_(pool_random_older=0), NOW, ok) == []
    ok[[snap.row_of[x] for x in (s[3], s[4])]] = False
    got = channels.random_older_pool(snap, CFG.with_(pool_random_older=10), NOW, ok)
    assert sorted(got) == [s[5], s[6]]
    empty = snap_of(store, "nobody")
    assert channels.random_older_pool(empty, CFG, NOW, all_ok(empty)) == []


def unit(cos: float) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[0], v[1] = cos, math.sqrt(1 - cos * cos)
    return v


def put_vectors(store: MemoryStore, items: list[tuple[str, Any]]) -> list[int]:
    rows = [{"user_id": "u", "type": "note", "text": t, "importance": 0.5, "confidence": c,
             "created_at": NOW, "embedding": None if v is None else to_blob(v)}
            for t, v, c in ((t, v, 0.1 if t.startswith("low") else 0.8) for t, v in items)]
    return seqs_of(store, store.add_many(rows))


def test_vector_channel_ranks_by_cosine_and_keeps_every_cosine(store: MemoryStore) -> None:
    s = put_vectors(store, [("a", unit(0.5)), ("b", unit(0.9)), ("none", None),
                            ("c", unit(0.7)), ("low", unit(1.0)),
                            ("short", np.ones(8, dtype=np.float32))])
    snap = snap_of(store)
    q = unit(1.0)
    ok = channels.eligible(snap, CFG)
    hits = channels.vector_channel(snap, q, CFG, ok)
    assert hits.ranked == [s[1], s[3], s[0]]
    assert hits.without_vector == 2  # "none" and the other model's vector; "low" is not eligible
    assert [hits.cosine(x) for x in s[:4]] == [pytest.approx(0.5), pytest.approx(0.9), None,
                                               pytest.approx(0.7)]
    assert hits.cosine(s[4]) is None and hits.cosine(10**9) is None
    top2 = channels.vector_channel(snap, q, CFG.with_(vector_candidates=2), ok)
    assert top2.ranked == [s[1], s[3]]
    assert top2.cosine(s[0]) == pytest.approx(0.5)  # scored, though not ranked
    top1 = channels.vector_channel(snap, q, CFG.with_(vector_candidates=1), ok)
    assert top1.ranked == [s[1]]
    zero = channels.vector_channel(snap, q, CFG.with_(vector_candidates=0), ok)
    assert zero.ranked == [] and zero.cosine(s[1]) == pytest.approx(0.9)


def test_vector_channel_without_vectors_or_eligible_rows(store: MemoryStore) -> None:
    s = put_vectors(store, [("none", None), ("low", unit(1.0))])
    snap = snap_of(store)
    ok = channels.eligible(snap, CFG)
    hits = channels.vector_channel(snap, unit(1.0), CFG, ok)
    assert (hits.ranked, hits.without_vector, hits.cosine(s[1])) == ([], 1, None)
    assert hits.by_row is None
    empty = snap_of(store, "nobody")
    got = channels.vector_channel(empty, unit(1.0), CFG, all_ok(empty))
    assert (got.ranked, got.without_vector, got.by_row) == ([], 0, None)


def test_vector_channel_ties_keep_row_order(store: MemoryStore) -> None:
    s = put_vectors(store, [("a", unit(0.6)), ("b", unit(0.6)), ("c", unit(0.6))])
    snap = snap_of(store)
    hits = channels.vector_channel(snap, unit(1.0), CFG, all_ok(snap))
    assert hits.ranked == s


def test_graph_limits_hubs_and_attribute_words(store: MemoryStore) -> None:
    ids = put(store, [
        {"text": "Uses pytest.", "entity": "project", "attribute": "test_framework",
         "value": "pytest", "importance": 0.6},
        {"text": "User likes pytest.", "entity": "user", "attribute": "likes",
         "value": "pytest", "importance": 0.9},
        {"text": "The user works at Acme.", "entity": "user", "attribute": "works_at",
         "value": "acme", "importance": 0.5},
        {"text": "Project is in Berlin.", "entity": "project", "attribute": "located_in",
         "value": "berlin", "importance": 0.4},
    ], embed=False)
    s = seqs_of(store, ids)
    snap = snap_of(store)
    ok = all_ok(snap)
    # Attribute names are the question's vocabulary, not its subject: no match.
    assert channels.graph_channel(snap, "which test framework", CFG, ok).ranked == []
    got = channels.graph_channel(snap, "pytest", CFG, ok)
    # Most important first; one hop through "project", none through the hub "user".
    assert got.ranked == [s[1], s[0], s[3]]
    assert got.via == {s[1]: "user · likes · pytest",
                       s[0]: "project · test_framework · pytest",
                       s[3]: "one hop: project · located_in · berlin"}
    one = channels.graph_channel(snap, "pytest", CFG.with_(graph_candidates=1), ok)
    assert one.ranked == [s[1]]
    two = channels.graph_channel(snap, "pytest", CFG.with_(graph_candidates=2), ok)
    assert two.ranked == [s[1], s[0]]
    assert channels.graph_channel(snap, "pytest", CFG.with_(graph_candidates=0), ok).ranked == []
    assert channels.graph_channel(snap, "user", CFG, ok).ranked == []  # a hub is no query
    ok[snap.row_of[s[1]]] = False
    ok[snap.row_of[s[3]]] = False
    assert channels.graph_channel(snap, "pytest", CFG, ok).ranked == [s[0]]


def test_graph_ties_go_to_the_newest_then_the_later_seq(store: MemoryStore) -> None:
    ids = put(store, [
        {"text": "a", "entity": "kiwi", "attribute": "x", "value": "1", "days_ago": 5},
        {"text": "b", "entity": "kiwi", "attribute": "y", "value": "2", "days_ago": 1},
        {"text": "c", "entity": "kiwi", "attribute": "z", "value": "3", "days_ago": 5},
    ], embed=False)
    s = seqs_of(store, ids)
    snap = snap_of(store)
    assert channels.graph_channel(snap, "kiwi", CFG, all_ok(snap)).ranked == [s[1], s[2], s[0]]


def test_load_candidates_returns_active_rows_by_seq(store: MemoryStore) -> None:
    ids = put(store, [{"text": "a", "days_ago": 2}, {"text": "b", "days_ago": 1}], embed=False)
    s = seqs_of(store, ids)
    store.supersede(ids[0], ids[1])
    with store.read() as conn:
        got = channels.load_candidates(conn, [*s, 10**9])
        assert list(got) == [s[1]]
        row = got[s[1]]
        assert (row.id, row.text, row.user_id) == (ids[1], "b", "u")
        assert set(row._fields) == set(channels.CANDIDATE_COLUMNS)
        assert channels.load_candidates(conn, []) == {}


def test_load_candidates_reads_every_chunk_of_a_long_seq_list(store: MemoryStore) -> None:
    ids = put(store, [{"text": "a", "days_ago": 2}, {"text": "b", "days_ago": 1}], embed=False)
    s = seqs_of(store, ids)
    # 1000 unknown seqs first: the real ones sit at index 1000 and 1001, in the third
    # chunk of 500 (1002 seqs -> chunks starting at 0, 500, 1000)
    missing = [10**9 + k for k in range(1000)]
    with store.read() as conn:
        got = channels.load_candidates(conn, [*missing, *s])
    assert sorted(got) == sorted(s)
    assert {got[q].id for q in s} == set(ids)


def test_each_pool_keeps_its_best_share_first(store: MemoryStore) -> None:
    ids = put(store, [
        {"text": "Kayak paddle one.", "days_ago": 2},
        {"text": "Kayak two.", "days_ago": 1},
        {"text": "Kayak three.", "days_ago": 1},  # same time as "two", later seq
        {"text": "Kayak paddle old.", "days_ago": 20, "importance": 0.1},
        {"text": "Kayak old.", "days_ago": 10, "importance": 0.9},
    ], embed=False)
    s = seqs_of(store, ids)
    snap = snap_of(store)
    ok = all_ok(snap)
    one = channels.keyword_channel(snap, "kayak paddle", CFG.with_(
        pool_recent=1, pool_keyword_older=1), NOW, ok)
    assert one.ranked == [s[0], s[3]]  # the best share beats the newest / most important
    two = channels.keyword_channel(snap, "kayak paddle", CFG.with_(
        pool_recent=2, pool_keyword_older=0), NOW, ok)
    assert two.ranked == [s[0], s[2]]  # equal share and time: the later seq
