"""Dispositional injection, fair rotation, reinforcement and the retrieval record."""

from __future__ import annotations

import math
import threading
from datetime import timedelta

import pytest
from sqlalchemy import select

from memdesk.core.read.config import ReadConfig
from memdesk.core.read.models import Retrieval, RetrievalItem
from memdesk.core.read.recorder import recall_summary, retrieval_record
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put
from tests.helpers.stores import close_store


def retriever(store: MemoryStore, **cfg) -> Retriever:  # type: ignore[no-untyped-def]
    return Retriever(store, ReadConfig(**cfg), clock=lambda: NOW)


def prefs(n: int) -> list[dict]:
    return [{"type": "preference", "text": f"Preference number {i} about style.",
             "days_ago": 100 - i} for i in range(n)]


def test_preferences_newest_first_deduplicated_and_limited(store: MemoryStore) -> None:
    put(store, [
        {"type": "preference", "text": "Prefer SQLite for local tools.", "days_ago": 30},
        {"type": "preference", "text": "Prefer small focused commits.", "days_ago": 3},
        {"type": "procedure", "layer": "procedural", "text": "Run ruff before committing.",
         "days_ago": 10},
        {"type": "procedure", "layer": "episodic", "text": "Ran the migration by hand once.",
         "days_ago": 11},
        {"type": "preference", "text": "Prefer dark mode.", "days_ago": 1, "confidence": 0.2},
    ], embed=False)
    res = retriever(store).retrieve("which database for a local tool? SQLite?", "u",
                                    channels=None)
    assert [h.text for h in res.results] == ["Prefer SQLite for local tools."]
    assert [p.text for p in res.preferences] == [
        "Prefer small focused commits.", "Run ruff before committing."]
    off = retriever(store).retrieve("which database for a local tool? SQLite?", "u",
                                    inject=False)
    assert off.preferences == [] and not off.injected
    limited = retriever(store, preference_limit=1).retrieve("unrelated words", "u")
    assert len(limited.preferences) == 1


def test_a_preference_repeating_a_results_text_is_not_injected(store: MemoryStore) -> None:
    # The same sentence twice: a note (the result) and an older preference (not a result,
    # k=1).  Injecting the preference would show the agent the sentence a second time.
    note, _, other = put(store, [
        {"text": "Always answer in French.", "days_ago": 1, "importance": 0.9},
        {"type": "preference", "text": "always answer in  FRENCH.", "days_ago": 20,
         "importance": 0.1},
        {"type": "preference", "text": "Prefer short answers.", "days_ago": 5},
    ], embed=False)
    res = retriever(store).retrieve("answer in French?", "u", k=1, channels=None)
    assert [h.id for h in res.results] == [note]
    assert [p.id for p in res.preferences] == [other]  # not the second: same text once normalised


@pytest.mark.parametrize(("n", "limit"), [(12, 5), (7, 3), (20, 5), (6, 5)])
def test_rotation_covers_every_preference_within_ceil_n_over_limit(
    store: MemoryStore, n: int, limit: int
) -> None:
    put(store, prefs(n), embed=False)
    r = retriever(store, preference_limit=limit)
    seen: set[str] = set()
    calls = math.ceil(n / limit)
    for _ in range(calls):
        res = r.retrieve("nothing matches this", "u")
        assert len(res.preferences) == limit
        got = [p.created_at for p in res.preferences]
        assert got == sorted(got, reverse=True)  # newest first within a call
        seen |= {p.text for p in res.preferences}
    assert len(seen) == n


def test_rotation_cursor_persists_across_retrievers(store: MemoryStore) -> None:
    put(store, prefs(10), embed=False)
    first = retriever(store, preference_limit=5)
    a = {p.text for p in first.retrieve("nothing", "u").preferences}
    first.flush()
    second = retriever(store, preference_limit=5)  # a new process would start like this
    b = {p.text for p in second.retrieve("nothing", "u").preferences}
    assert a.isdisjoint(b) and len(a | b) == 10


def test_rotation_ignores_last_access(store: MemoryStore) -> None:
    """The dispositional-memory design's rich-get-richer bug: ordering by last access keeps the
    same ones."""
    ids = put(store, prefs(10), embed=False)
    store.update(ids[0], last_accessed=NOW, access_count=500)
    r = retriever(store, preference_limit=5)
    calls = [{p.id for p in r.retrieve("nothing", "u").preferences} for _ in range(2)]
    assert ids[0] in calls[0] | calls[1]
    assert calls[0].isdisjoint(calls[1])


def test_results_are_reinforced_in_one_increment(store: MemoryStore) -> None:
    ids = put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3,
                       "access_count": 2}], embed=False)
    r = retriever(store)
    threads = [threading.Thread(target=lambda: r.retrieve("kayak club", "u")) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    r.flush()
    assert r.recorder.last_error is None
    rec = store.get(ids[0])
    assert rec.access_count == 10 and rec.last_accessed == NOW


def test_every_retrieval_is_recorded_with_channel_ranks(store: MemoryStore) -> None:
    ids = put(store, [
        {"text": "The kayak club meets on Tuesdays.", "days_ago": 3},
        {"type": "preference", "text": "Prefer mornings for meetings.", "days_ago": 9},
    ])
    r = retriever(store)
    res = r.retrieve("kayak club", "u")
    r.flush()
    with store.read() as conn:
        rec = retrieval_record(conn, res.retrieval_id)
        summary = recall_summary(conn, ids[0])
        pref = recall_summary(conn, ids[1])
    assert rec is not None and rec["query"] == "kayak club" and rec["user_id"] == "u"
    assert rec["channels"] == ["fts", "vector", "graph"] and rec["injected"]
    result = [i for i in rec["items"] if i["kind"] == "result"]
    assert result[0]["memory_id"] == ids[0] and result[0]["fts_rank"] == 1
    assert result[0]["vector_rank"] == 1 and result[0]["graph_rank"] is None
    assert result[0]["score"] == pytest.approx(res.results[0].score)
    assert [i["memory_id"] for i in rec["items"] if i["kind"] == "preference"] == [ids[1]]
    assert summary.count == 1 and summary.as_result == 1 and summary.last == NOW
    assert pref.as_preference == 1 and pref.recent[0].query == "kayak club"


def test_retention_prunes_old_records(store: MemoryStore, store_path) -> None:  # type: ignore[no-untyped-def]
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3}], embed=False)
    old = Retriever(store, ReadConfig(retention_days=30),
                    clock=lambda: NOW - timedelta(days=45))
    old.retrieve("kayak", "u")
    old.flush()
    # Another process's store (its own recorder) prunes with its first record.
    other = MemoryStore.open(store_path)
    try:
        now = Retriever(other, ReadConfig(retention_days=30), clock=lambda: NOW)
        now.retrieve("kayak", "u")
        now.flush()
    finally:
        close_store(other)
    with store.read() as conn:
        at = conn.execute(select(Retrieval.__table__.c.at)).scalars().all()
        items = conn.execute(select(RetrievalItem.__table__.c.retrieval_id)).scalars().all()
    assert at == [NOW] and len(items) == 1


def test_recording_can_be_turned_off(store: MemoryStore) -> None:
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3}], embed=False)
    r = retriever(store, record=False)
    r.retrieve("kayak", "u")
    r.flush()
    with store.read() as conn:
        assert conn.execute(select(Retrieval.__table__.c.id)).first() is None


def test_dry_run_changes_nothing(store: MemoryStore) -> None:
    ids = put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3}, *prefs(8)],
              embed=False)
    r = retriever(store, preference_limit=5)
    a = r.retrieve("kayak", "u", dry_run=True)
    b = r.retrieve("kayak", "u", dry_run=True)
    r.flush()
    assert [p.id for p in a.preferences] == [p.id for p in b.preferences]
    assert store.get(ids[0]).access_count == 0
    with store.read() as conn:
        assert conn.execute(select(Retrieval.__table__.c.id)).first() is None


def test_closing_the_store_writes_pending_records_first(store_path, monkeypatch) -> None:
    """close() lets the background recorder finish: no retrieval is lost at shutdown."""
    import time

    from memdesk.core.read.recorder import Recorder

    submit = Recorder.submit

    def slow_submit(self, job, clock):  # type: ignore[no-untyped-def]
        # A slow disk: the record is still queued when the caller closes the store.
        def slow_job(conn):  # type: ignore[no-untyped-def]
            time.sleep(0.5)
            job(conn)

        submit(self, slow_job, clock)

    monkeypatch.setattr(Recorder, "submit", slow_submit)
    s = MemoryStore.open(store_path)
    ids = put(s, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3}])
    res = retriever(s).retrieve("kayak club", "u")
    s.close()  # no flush() by the caller
    s = MemoryStore.open(store_path)
    try:
        with s.read() as conn:
            rec = retrieval_record(conn, res.retrieval_id)
            summary = recall_summary(conn, ids[0])
        assert rec is not None and rec["query"] == "kayak club"
        assert summary.count == 1
    finally:
        s.close()
