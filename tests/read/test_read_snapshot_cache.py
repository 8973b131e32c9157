"""Snapshots column by column, the store version, what changed since a version, and the
cache's validity, LRU and TTL rules (core/read/snapshot.py's docstrings)."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import insert

from memdesk.core.embeddings import DIM, to_blob
from memdesk.core.read import snapshot
from memdesk.core.read.terms import SEP
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import MemoryEvent
from tests.helpers.read import NOW, put


def version(store: MemoryStore) -> tuple:
    with store.read() as conn:
        return snapshot.store_version(conn)


def test_a_snapshot_of_an_empty_store_is_rebuilt_after_the_first_memory(
    store: MemoryStore,
) -> None:
    # An empty store has no version yet (no event, no row): its first memory moves it.
    cache = snapshot.SnapshotCache()
    with store.read() as conn:
        empty = cache.get(conn, "a", DIM)
        assert cache.get(conn, "a", DIM) is empty
    assert len(empty) == 0
    put(store, [{"text": "first"}], embed=False, user="a")
    with store.read() as conn:
        assert cache.get(conn, "a", DIM).texts == ["first"]
    assert cache.builds == 2


def test_store_version_is_the_newest_event_and_seq(store: MemoryStore) -> None:
    assert version(store) == (None, None)
    ids = put(store, [{"text": "a"}, {"text": "b"}], embed=False)
    ev = max(e.id for i in ids for e in store.events(i))
    assert version(store) == (ev, store.get(ids[1]).seq)
    store.update(ids[0], text="a2")
    newest = max(e.id for e in store.events(ids[0]))
    assert newest > ev and version(store) == (newest, store.get(ids[1]).seq)


def test_search_text_joins_normalised_texts_and_records_starts() -> None:
    assert snapshot.search_text(["Ab", "", "ÇD x"]) == ("ab" + SEP + SEP + "çd x", [0, 3, 4])
    assert snapshot.search_text([]) == ("", [])


def test_build_holds_the_users_active_rows_column_by_column(store: MemoryStore) -> None:
    v1 = np.arange(DIM, dtype=np.float32)
    ids = put(store, [
        {"text": "First Row", "type": "fact", "layer": "semantic", "importance": 0.7,
         "confidence": 0.9, "entity": " Acme ", "attribute": "City", "value": "Berlin",
         "days_ago": 2},
        {"text": "Gone", "days_ago": 1},
        {"text": "Second", "type": "note", "days_ago": 1},
    ], embed=False)
    extra = store.add_many([
        {"user_id": "u", "type": "note", "text": "With vector", "importance": 0.1,
         "confidence": 0.5, "created_at": NOW, "embedding": to_blob(v1)},
        {"user_id": "u", "type": "note", "text": "Other model", "importance": 0.1,
         "confidence": 0.5, "created_at": NOW, "embedding": to_blob(np.ones(8))},
    ])
    put(store, [{"text": "Someone else"}], embed=False, user="v")
    store.soft_delete(ids[1])
    seqs = [store.get(i).seq for i in (ids[0], ids[2], *extra)]
    with store.read() as conn:
        snap = snapshot.build(conn, "u", ("ver",), DIM)
    assert snap.version == ("ver",) and len(snap) == 4
    assert snap.seqs.tolist() == seqs and snap.seqs.dtype == np.int64
    assert snap.row_of == {s: i for i, s in enumerate(seqs)}
    assert snap.ids == [ids[0], ids[2], *extra]
    assert snap.texts == ["First Row", "Second", "With vector", "Other model"]
    assert snap.types == ["fact", "note", "note", "note"]
    assert snap.layers[0] == "semantic"
    assert snap.importance.tolist() == pytest.approx([0.7, 0.5, 0.1, 0.1])
    assert snap.confidence.tolist() == pytest.approx([0.9, 0.8, 0.5, 0.5])
    assert snap.created[:2] == [NOW - timedelta(days=2), NOW - timedelta(days=1)]
    assert snap.created_ts.tolist() == [c.timestamp() for c in snap.created]
    assert snap.entities == ["acme", "", "", ""]
    assert snap.attributes == ["city", "", "", ""]
    assert snap.values == ["berlin", "", "", ""]
    assert snap.raw_triples[:2] == [(" Acme ", "City", "Berlin"), (None, None, None)]
    assert snap.vec_rows.tolist() == [2] and snap.dim_mismatch == 1
    assert snap.vectors.shape == (1, DIM) and snap.vectors[0].tolist() == v1.tolist()
    assert snap.vectors.flags.writeable
    assert snap.joined == SEP.join(["first row", "second", "with vector", "other model"])
    assert snap.starts.tolist() == [0, 10, 17, 29]
    assert snap.memo == {}


def test_build_of_a_user_without_rows(store: MemoryStore) -> None:
    with store.read() as conn:
        snap = snapshot.build(conn, "nobody", (1, 2), DIM)
    assert len(snap) == 0 and snap.vectors.shape == (0, DIM)
    assert snap.vec_rows.tolist() == [] and snap.dim_mismatch == 0
    assert (snap.joined, snap.starts.tolist(), snap.row_of) == ("", [], {})


def test_rows_for_stem_is_memoised_and_matches_whole_words(store: MemoryStore) -> None:
    put(store, [{"text": "unimportant", "days_ago": 2}, {"text": "import this", "days_ago": 1},
                {"text": "re-import", "days_ago": 0}], embed=False)
    with store.read() as conn:
        snap = snapshot.build(conn, "u", (0, 0), DIM)
    assert snap.rows_for_stem("import") == [1, 2]
    assert snap.memo[("word", "import")] == [1, 2]
    snap.memo[("word", "import")] = ["memoised"]
    assert snap.rows_for_stem("import") == ["memoised"]
    assert snap.rows_for_stem("unimp") == []  # whole words only, never a prefix
    assert snap.rows_for_stem("unimportant") == [0]
    assert snap.rows_for_stem("this") == [1] and snap.rows_for_stem("zzz") == []
    assert snap.rows_with([]) == {}


def test_touched_users_names_the_users_of_new_rows_and_events(store: MemoryStore) -> None:
    a = put(store, [{"text": "ann's"}], embed=False, user="ann")
    put(store, [{"text": "bob's"}], embed=False, user="bob")
    since = version(store)
    with store.read() as conn:
        assert snapshot.touched_users(conn, since, 100) == set()
    put(store, [{"text": "cy's"}], embed=False, user="cy")
    store.update(a[0], text="ann's edited")
    with store.read() as conn:
        assert snapshot.touched_users(conn, since, 100) == {"ann", "cy"}
        assert snapshot.touched_users(conn, (None, None), 100) == {"ann", "bob", "cy"}


def test_touched_users_gives_up_beyond_the_cap(store: MemoryStore) -> None:
    since = version(store)
    put(store, [{"text": "1"}], embed=False, user="a")
    put(store, [{"text": "2"}], embed=False, user="b")
    with store.read() as conn:
        events = len(store.events(None))
        assert events == 2
        assert snapshot.touched_users(conn, since, 2) == {"a", "b"}
        assert snapshot.touched_users(conn, since, 1) is None
    ids = put(store, [{"text": "3"}], embed=False, user="a")
    since = version(store)
    for n in range(3):
        store.update(ids[0], text=f"edit {n}")
    with store.read() as conn:
        assert snapshot.touched_users(conn, since, 3) == {"a"}
        assert snapshot.touched_users(conn, since, 2) is None  # three events, one user


def test_touched_users_cannot_narrow_store_wide_or_orphan_events(store: MemoryStore) -> None:
    put(store, [{"text": "x"}], embed=False)
    since = version(store)
    with store.write() as conn:
        store.log_in(conn, "*", "worker", "decay", {}, {"rows": 0})
    with store.read() as conn:
        assert snapshot.touched_users(conn, since, 100) is None
    since = version(store)
    with store.write() as conn:
        conn.execute(insert(MemoryEvent.__table__).values(
            memory_id="no-such-memory", actor="operator", action="edit", before="{}",
            after="{}", at=NOW))
    with store.read() as conn:
        assert snapshot.touched_users(conn, since, 100) is None


def test_cache_reuses_while_valid_and_lists_users_most_recent_first(
    store: MemoryStore,
) -> None:
    put(store, [{"text": "a"}], embed=False, user="a")
    put(store, [{"text": "b"}], embed=False, user="b")
    cache = snapshot.SnapshotCache()
    assert (cache.max_users, cache.ttl, cache.builds, cache.users()) == (64, 60.0, 0, [])
    with store.read() as conn:
        sa = cache.get(conn, "a", DIM)
        sb = cache.get(conn, "b", DIM)
        assert cache.users() == ["b", "a"] and cache.builds == 2
        assert cache.get(conn, "a", DIM) is sa and cache.builds == 2
        assert cache.users() == ["a", "b"]
    assert cache.get_cached("b") is sb and cache.get_cached("c") is None


def test_cache_evicts_the_least_recently_used(store: MemoryStore) -> None:
    for u in "abc":
        put(store, [{"text": u}], embed=False, user=u)
    cache = snapshot.SnapshotCache(max_users=2)
    with store.read() as conn:
        cache.get(conn, "a", DIM)
        cache.get(conn, "b", DIM)
        cache.get(conn, "a", DIM)
        cache.get(conn, "c", DIM)
    assert cache.users() == ["c", "a"]


def test_cache_ttl_zero_rebuilds_every_time(store: MemoryStore) -> None:
    put(store, [{"text": "a"}], embed=False, user="a")
    cache = snapshot.SnapshotCache(ttl=0.0)
    with store.read() as conn:
        first = cache.get(conn, "a", DIM)
        second = cache.get(conn, "a", DIM)
    assert second is not first and cache.builds == 2


def test_a_change_invalidates_its_user_a_store_wide_one_everybody(store: MemoryStore) -> None:
    ann = put(store, [{"text": "ann's"}], embed=False, user="ann")
    put(store, [{"text": "bob's"}], embed=False, user="bob")
    cache = snapshot.SnapshotCache()
    with store.read() as conn:
        sa, sb = cache.get(conn, "ann", DIM), cache.get(conn, "bob", DIM)
    store.update(ann[0], text="ann's edited")
    with store.read() as conn:
        assert cache.get(conn, "bob", DIM) is sb
        fresh = cache.get(conn, "ann", DIM)
    assert fresh is not sa and fresh.texts == ["ann's edited"] and cache.builds == 3
    with store.write() as conn:
        store.log_in(conn, "*", "worker", "decay", {}, {"rows": 0})
    with store.read() as conn:
        assert cache.get(conn, "bob", DIM) is not sb
        assert cache.get(conn, "ann", DIM) is not fresh
    assert cache.builds == 5
    assert cache.users() == ["ann", "bob"]
