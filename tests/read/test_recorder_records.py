"""What one retrieval's record holds (record_jobs), how it reads back (retrieval_record),
and what the recall summary of a memory says; written and read on SQLite directly,
without the background thread."""

from __future__ import annotations

import json
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import OperationalError

from memdesk.core.read import recorder as rc
from memdesk.core.read.fusion import Dropped, Hit
from memdesk.core.read.injection import Preference
from memdesk.core.read.models import Retrieval, RetrievalItem
from memdesk.core.read.result import RetrievalResult
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put

R = Retrieval.__table__


def hit(store: MemoryStore, mid: str, score: float, **ranks: int) -> Hit:
    m = store.get(mid)
    return Hit(seq=m.seq, id=m.id, text=m.text, type=m.type, layer=m.layer, user_id=m.user_id,
               created_at=m.created_at, importance=m.importance, confidence=m.confidence,
               ranks=dict(ranks), score=score)


def pref(store: MemoryStore, mid: str) -> Preference:
    m = store.get(mid)
    return Preference(m.seq, m.id, m.text, m.type, m.layer, m.created_at)


def result(rid: str, results: list[Hit], prefs: list[Preference], **kw: Any) -> RetrievalResult:
    base: dict[str, Any] = dict(
        retrieval_id=rid, at=NOW, query="kayak club", user_id="u", k=7,
        channels=("fts", "graph"), injected=True, results=results, preferences=prefs,
        dropped=[], notes=[], duration_ms=12.5)
    base.update(kw)
    return RetrievalResult(**base)


def three(store: MemoryStore) -> list[str]:
    return put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3},
                       {"text": "Kayak club dues are 20 euros.", "days_ago": 2},
                       {"text": "Prefer short answers.", "type": "preference", "days_ago": 9},
                       {"text": "Untouched note.", "days_ago": 1}], embed=False)


def write(store: MemoryStore, job: rc.Job) -> None:
    with store.write() as conn:
        job(conn)


def test_the_record_keeps_the_call_and_each_item_with_its_ranks(store: MemoryStore) -> None:
    a, b, p, _ = three(store)
    res = result("r1", [hit(store, a, 0.9, fts=1, graph=2), hit(store, b, 0.4, vector=3)],
                 [pref(store, p)], notes=["vectors are off: é"])
    write(store, rc.record_jobs(res, None))
    with store.read() as conn:
        rec = rc.retrieval_record(conn, "r1")
    assert rec == {
        "id": "r1", "at": NOW.isoformat(), "user_id": "u", "query": "kayak club",
        "channels": ["fts", "graph"], "k": 7, "injected": True, "duration_ms": 12.5,
        "dropped": [], "notes": ["vectors are off: é"],
        "items": [  # ordered by kind, then rank
            {"memory_id": p, "kind": "preference", "rank": 1, "score": None,
             "fts_rank": None, "vector_rank": None, "graph_rank": None},
            {"memory_id": a, "kind": "result", "rank": 1, "score": 0.9,
             "fts_rank": 1, "vector_rank": None, "graph_rank": 2},
            {"memory_id": b, "kind": "result", "rank": 2, "score": 0.4,
             "fts_rank": None, "vector_rank": 3, "graph_rank": None},
        ],
    }


def test_what_was_returned_or_injected_is_reinforced_once(store: MemoryStore) -> None:
    a, b, p, untouched = three(store)
    res = result("r1", [hit(store, a, 0.9), hit(store, b, 0.5)], [pref(store, p)])
    write(store, rc.record_jobs(res, None))
    later = NOW + timedelta(hours=1)
    write(store, rc.record_jobs(result("r2", [hit(store, a, 0.8)], [], at=later), None))
    got = {i: store.get(i) for i in (a, b, p, untouched)}
    assert [got[i].access_count for i in (a, b, p, untouched)] == [2, 1, 1, 0]
    assert [got[i].last_accessed for i in (a, b, p, untouched)] == [later, NOW, NOW, None]


def test_a_call_with_nothing_returned_stores_the_call_only(store: MemoryStore) -> None:
    (untouched,) = put(store, [{"text": "Untouched note."}], embed=False)
    res = result("r0", [], [], injected=False, channels=("vector",), notes=[])
    write(store, rc.record_jobs(res, None))
    with store.read() as conn:
        rec = rc.retrieval_record(conn, "r0")
    assert rec is not None
    assert (rec["items"], rec["injected"], rec["channels"]) == ([], False, ["vector"])
    assert store.get(untouched).access_count == 0


def test_the_cursor_job_runs_in_the_same_transaction(store: MemoryStore) -> None:
    seen: list[object] = []
    res = result("r1", [], [])
    with store.write() as conn:
        rc.record_jobs(res, seen.append)(conn)
        assert seen == [conn]


def test_at_most_fifty_dropped_candidates_are_kept_readable(store: MemoryStore) -> None:
    (a,) = put(store, [{"text": "Ça dépend du club."}], embed=False)
    h = hit(store, a, 0.25, fts=4)
    dropped = [Dropped(h, "floor", f"why {i}") for i in range(51)]
    write(store, rc.record_jobs(result("r1", [], [], dropped=dropped), None))
    with store.read() as conn:
        rec = rc.retrieval_record(conn, "r1")
        raw = conn.execute(select(R.c.dropped).where(R.c.id == "r1")).scalar_one()
    assert [d["detail"] for d in rec["dropped"]] == [f"why {i}" for i in range(50)]
    assert rec["dropped"][0] == {"id": a, "text": "Ça dépend du club.", "type": "note",
                                 "reason": "floor", "detail": "why 0", "score": 0.25,
                                 "ranks": {"fts": 4, "vector": None, "graph": None}}
    assert "Ça dépend" in raw  # readable, not \\u escaped


def test_an_unknown_record_is_none_and_missing_json_reads_as_empty(store: MemoryStore) -> None:
    with store.write() as conn:
        conn.execute(insert(R).values(id="bare", at=NOW, user_id="u", query="q",
                                      channels="fts", k=3, injected=0, duration_ms=None,
                                      dropped=None, notes=None))
    with store.read() as conn:
        assert rc.retrieval_record(conn, "nope") is None
        rec = rc.retrieval_record(conn, "bare")
    assert rec is not None
    assert (rec["dropped"], rec["notes"], rec["items"], rec["injected"]) == ([], [], [], False)
    assert rec["duration_ms"] is None


def seen_in(store: MemoryStore, rid: str, when, mid: str, kind: str, rank: int,  # type: ignore[no-untyped-def]
            score: float | None, user: str = "u") -> None:
    with store.write() as conn:
        conn.execute(insert(R).values(id=rid, at=when, user_id=user, query=f"query {rid}",
                                      channels="fts", k=10, injected=1,
                                      dropped=json.dumps([]), notes=json.dumps([])))
        conn.execute(insert(RetrievalItem.__table__).values(
            retrieval_id=rid, memory_id=mid, kind=kind, rank=rank, score=score))


def test_recall_summary_counts_by_kind_and_lists_the_newest_first(store: MemoryStore) -> None:
    d = [NOW - timedelta(days=n) for n in range(5)]
    seen_in(store, "r1", d[4], "m", "result", 3, 0.5)
    seen_in(store, "r2", d[1], "m", "preference", 1, None, user="w")
    seen_in(store, "r3", d[3], "m", "result", 1, 0.75)
    seen_in(store, "r4", d[0], "m", "preference", 2, None)
    seen_in(store, "r5", d[2], "other", "result", 1, 0.9)
    with store.read() as conn:
        s = rc.recall_summary(conn, "m")
        two = rc.recall_summary(conn, "m", recent=2)
    assert (s.count, s.as_result, s.as_preference) == (4, 2, 2)
    assert (s.first, s.last) == (d[4], d[0])
    assert s.recent == (
        rc.RecallEvent("r4", d[0], "u", "query r4", "preference", 2, None),
        rc.RecallEvent("r2", d[1], "w", "query r2", "preference", 1, None),
        rc.RecallEvent("r3", d[3], "u", "query r3", "result", 1, 0.75),
        rc.RecallEvent("r1", d[4], "u", "query r1", "result", 3, 0.5),
    )
    assert [e.retrieval_id for e in two.recent] == ["r4", "r2"]
    assert (two.count, two.first, two.last) == (4, d[4], d[0])


def test_recall_summary_of_a_memory_seen_only_as_a_result(store: MemoryStore) -> None:
    seen_in(store, "r1", NOW, "m", "result", 1, 0.5)
    with store.read() as conn:
        s = rc.recall_summary(conn, "m")
    assert (s.count, s.as_result, s.as_preference, s.first, s.last) == (1, 1, 0, NOW, NOW)


def test_recall_of_a_store_gives_counts_without_events(store: MemoryStore) -> None:
    seen_in(store, "r1", NOW - timedelta(days=1), "m", "result", 1, 0.5)
    seen_in(store, "r2", NOW, "m", "preference", 1, None)
    s = rc.recall_of(store, "m")
    assert s is not None
    assert (s.count, s.as_result, s.as_preference) == (2, 1, 1)
    assert (s.first, s.last, s.recent) == (NOW - timedelta(days=1), NOW, ())


class NoRecords:
    """A store whose retrieval tables are missing (revision 0010 was a placeholder)."""

    @contextmanager
    def read(self):  # type: ignore[no-untyped-def]
        raise OperationalError("SELECT", {}, Exception("no such table: retrieval_items"))
        yield


def test_recall_of_a_store_without_retrieval_records_is_none() -> None:
    assert rc.recall_of(NoRecords(), "m") is None
