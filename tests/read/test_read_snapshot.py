"""The per-user snapshot: keyword scan, memoised per-call work, invalidation, the product."""

from __future__ import annotations

import re
from datetime import timedelta

import numpy as np

from memdesk.core.embeddings import DIM
from memdesk.core.read import channels, snapshot, terms
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put

TEXTS = [
    "The kayak club meets on Tuesdays.",
    "KAYAKING in Oslo: a ﬁne day (ligature) — café-racer!",
    "import numpy; imported pandas; re-importing nothing",
    "Zoë's 2nd favourite number is 42, not 4.",
    "word" * 3000 + " hidden",  # beyond MAX_QUERY_CHARS: its tail is not indexed
    "tab\tseparated\nnew line\x1enul",  # the separator inside a text
    "user_name snake_case under_score",
]
STEMS = ["kayak", "fine", "fi", "café", "caf", "racer", "import", "re", "zoë", "2nd", "42",
         "4", "hidden", "word", "tab", "line", "nul", "user", "user_name", "snake", "score",
         "nothing", "absent", "a"]


def index_rows(texts: list[str], stem: str) -> list[int]:
    """The reference: rows with a ``\\w+`` word (as terms.words splits) that is one of the
    stem's inflections in full (never a longer word it merely starts)."""
    pattern = re.compile(terms.word_pattern(stem))
    return [i for i, t in enumerate(texts)
            if any(pattern.fullmatch(w) for w in terms.words(t))]


def snap_of(store: MemoryStore, user: str = "u") -> snapshot.UserSnapshot:
    with store.read() as conn:
        return snapshot.build(conn, user, snapshot.store_version(conn), DIM)


def test_normalise_many_is_normalise_of_each() -> None:
    texts = [*TEXTS, "", "x\x00y", "Ａｂｃ full-width", "ǅ title-case digraph",
             "e\u0301 combining"]
    assert terms.normalise_many(texts) == [terms.normalise(t) for t in texts]
    with_sep = ["one\x1etwo", "three"]  # the separator itself in a text: still exact
    assert terms.normalise_many(with_sep) == [terms.normalise(t) for t in with_sep]
    assert terms.normalise_many([]) == []


def test_the_stem_scan_finds_exactly_the_rows_a_word_index_would(store: MemoryStore) -> None:
    put(store, [{"text": t, "days_ago": i} for i, t in enumerate(TEXTS)], embed=False)
    snap = snap_of(store)
    for stem in STEMS:
        assert snap.rows_for_stem(stem) == index_rows(snap.texts, stem), stem
    assert snap.rows_for_stem("hidden") == []  # only past the first 10,000 characters
    # "kayaking" is an inflection of kayak; "caf" is no word of "café-racer" (no prefixes).
    assert snap.rows_for_stem("kayak") == [snap.texts.index(TEXTS[0]),
                                           snap.texts.index(TEXTS[1])]
    assert snap.rows_for_stem("caf") == [] and snap.rows_for_stem("fi") == []
    assert snap.rows_with(["kayak", "fine"]) == {
        snap.texts.index(TEXTS[0]): {"kayak"}, snap.texts.index(TEXTS[1]): {"kayak", "fine"}}


def test_a_write_gives_a_new_snapshot_with_fresh_memoised_work(store: MemoryStore) -> None:
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3},
                {"type": "preference", "text": "Prefer short answers.", "days_ago": 5}])
    r = Retriever(store, ReadConfig(record=False), clock=lambda: NOW)
    res = r.retrieve("kayak club", "u")
    assert [p.text for p in res.preferences] == ["Prefer short answers."]
    before = r.snapshots.get_cached("u")
    assert before is not None and ("word", "kayak") in before.memo
    new = put(store, [{"text": "The kayak club moved to Wednesdays.", "days_ago": 0},
                      {"type": "preference", "text": "Prefer metric units.", "days_ago": 1}])
    res = r.retrieve("kayak club", "u")
    after = r.snapshots.get_cached("u")
    assert after is not before
    assert "The kayak club moved to Wednesdays." in [h.text for h in res.results]
    # Both, in whichever order relevance to the query puts them (injection.py).
    assert sorted(p.text for p in res.preferences) == ["Prefer metric units.",
                                                       "Prefer short answers."]
    store.update(new[1], confidence=0.1)  # audited: below the threshold now
    res = r.retrieve("kayak club", "u")
    assert [p.text for p in res.preferences] == ["Prefer short answers."]


def test_memoised_preferences_depend_on_the_threshold(store: MemoryStore) -> None:
    """Two configurations share one snapshot; each sees its own confident preferences."""
    put(store, [{"type": "preference", "text": "Prefer short answers.", "confidence": 0.6},
                {"type": "preference", "text": "Prefer tea.", "confidence": 0.95}],
        embed=False)
    low = Retriever(store, ReadConfig(record=False), clock=lambda: NOW)
    high = Retriever(store, ReadConfig(record=False, confidence_threshold=0.9),
                     clock=lambda: NOW)
    assert low.snapshots is high.snapshots
    assert {p.text for p in low.retrieve("anything", "u").preferences} == {
        "Prefer short answers.", "Prefer tea."}
    assert [p.text for p in high.retrieve("anything", "u").preferences] == ["Prefer tea."]
    assert {p.text for p in low.retrieve("anything", "u").preferences} == {
        "Prefer short answers.", "Prefer tea."}


def test_cosines_equal_numpy_on_either_path() -> None:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((50, DIM)).astype(np.float32)
    q = rng.standard_normal(DIM).astype(np.float32)
    expected = vectors @ q
    assert np.allclose(channels.cosines(vectors, q), expected, atol=1e-5)
    frozen = vectors.copy()
    frozen.flags.writeable = False  # not handed to torch: numpy computes it
    assert np.allclose(channels.cosines(frozen, q), expected, atol=1e-5)
    q.flags.writeable = False  # a cached query vector is read-only
    assert np.allclose(channels.cosines(vectors, q), expected, atol=1e-5)


def test_warm_builds_ahead_and_a_write_invalidates_a_warmed_snapshot(
        store: MemoryStore) -> None:
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3}], embed=False)
    put(store, [{"text": "Bob's kayak is red.", "days_ago": 3}], embed=False, user="bob")
    r = Retriever(store, ReadConfig(), clock=lambda: NOW)
    assert r.warm([]) == 0
    assert r.warm(["u", "bob"]) == 2
    builds = r.snapshots.builds
    r.retrieve("kayak", "u", channels="fts")
    r.retrieve("kayak", "bob", channels="fts")
    assert r.snapshots.builds == builds  # the calls found them built
    assert r.warm() == 0  # still valid: nothing to do
    put(store, [{"text": "The kayak club moved to Wednesdays.", "days_ago": 0}], embed=False)
    res = r.retrieve("kayak club", "u", channels="fts")
    assert r.snapshots.builds == builds + 1  # the warmed snapshot was not reused
    assert "The kayak club moved to Wednesdays." in [h.text for h in res.results]
    kept = r.snapshots.get_cached("u")
    put(store, [{"text": "Bob sold his kayak.", "days_ago": 0}], embed=False, user="bob")
    assert r.warm() == 1  # bob's snapshot, rebuilt after his write; u's is still valid
    assert r.snapshots.get_cached("u") is kept
    builds = r.snapshots.builds
    res = r.retrieve("kayak", "bob", channels="fts")
    assert r.snapshots.builds == builds
    assert "Bob sold his kayak." in [h.text for h in res.results]


def test_warm_without_cached_users_takes_the_recently_retrieved(
        store_path, store: MemoryStore) -> None:  # type: ignore[no-untyped-def]
    put(store, [{"text": "Bob's kayak is red.", "days_ago": 3}], embed=False, user="bob")
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3}], embed=False)
    r = Retriever(store, ReadConfig(), clock=lambda: NOW)
    r.retrieve("kayak", "bob", channels="fts")
    r.flush()  # the retrieval record names bob
    fresh = MemoryStore.open(store_path)  # another process: an empty snapshot cache
    try:
        other = Retriever(fresh, ReadConfig())
        assert other.snapshots.users() == []
        other.snapshots.max_users = 1
        # bob was asked about; "u" wrote last but was never asked about: bob comes first.
        assert other.warm() == 1
        assert other.snapshots.users() == ["bob"]
    finally:
        fresh.close()


def warmed(store_path, max_users: int | None) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    """Warm a retriever on the store opened anew (as another process would: an empty
    snapshot cache): how many snapshots it built, and users() (the last built first)."""
    fresh = MemoryStore.open(store_path)
    try:
        other = Retriever(fresh, ReadConfig())
        if max_users is not None:
            other.snapshots.max_users = max_users
        return other.warm(), other.snapshots.users()
    finally:
        fresh.close()


def test_warm_takes_the_users_retrieved_for_most_recently_first(
        store_path, store: MemoryStore) -> None:  # type: ignore[no-untyped-def]
    for user in ("ann", "bob", "cy"):
        put(store, [{"text": f"{user} rows a kayak.", "days_ago": 3}], embed=False,
            user=user)
    # Asked about in the order bob, cy, ann: not the order of their names.
    for hours, user in enumerate(("bob", "cy", "ann")):
        r = Retriever(store, ReadConfig(), clock=lambda h=hours: NOW + timedelta(hours=h))
        r.retrieve("kayak", user, channels="fts")
        r.flush()
    # Built ann (asked last), then cy; users() lists the last built first.
    assert warmed(store_path, 2) == (2, ["cy", "ann"])


def test_warm_with_nothing_retrieved_takes_the_newest_writers(
        store_path, store: MemoryStore) -> None:  # type: ignore[no-untyped-def]
    for user in ("ann", "bob", "cy", "bob"):
        put(store, [{"text": f"{user} rows a kayak.", "days_ago": 3}], embed=False,
            user=user)
    # Built newest writer first (bob wrote last, then cy); ann wrote before both.
    assert warmed(store_path, 2) == (2, ["cy", "bob"])
    built, users = warmed(store_path, None)
    assert (built, set(users)) == (3, {"ann", "bob", "cy"})


def test_warm_fills_up_after_the_retrieved_with_the_newest_writers(
        store_path, store: MemoryStore) -> None:  # type: ignore[no-untyped-def]
    for user in ("ann", "bob", "cy"):
        put(store, [{"text": f"{user} rows a kayak.", "days_ago": 3}], embed=False,
            user=user)
    r = Retriever(store, ReadConfig(), clock=lambda: NOW)
    r.retrieve("kayak", "ann", channels="fts")
    r.flush()
    assert warmed(store_path, 2) == (2, ["cy", "ann"])  # ann (asked), then cy (newest)


def test_a_write_invalidates_only_the_snapshots_of_the_users_it_touches(
        store: MemoryStore) -> None:
    a = put(store, [{"text": "Ann rows her kayak on Sundays.", "days_ago": 3}],
            embed=False, user="ann")
    put(store, [{"text": "Bob's kayak is red.", "days_ago": 3}], embed=False, user="bob")
    r = Retriever(store, ReadConfig(), clock=lambda: NOW)
    r.warm(["ann", "bob"])
    bob_snap = r.snapshots.get_cached("bob")
    builds = r.snapshots.builds

    put(store, [{"text": "Ann bought a second kayak.", "days_ago": 0}], embed=False,
        user="ann")  # an insert for ann
    r.retrieve("kayak", "bob", channels="fts")
    assert r.snapshots.builds == builds and r.snapshots.get_cached("bob") is bob_snap
    res = r.retrieve("kayak", "ann", channels="fts")
    assert r.snapshots.builds == builds + 1
    assert "Ann bought a second kayak." in [h.text for h in res.results]

    store.update(a[0], text="Ann rows her canoe on Sundays.")  # an audited edit
    r.retrieve("kayak", "bob", channels="fts")
    assert r.snapshots.builds == builds + 1
    res = r.retrieve("canoe", "ann", channels="fts")
    assert r.snapshots.builds == builds + 2
    assert [h.text for h in res.results] == ["Ann rows her canoe on Sundays."]


def test_a_memory_moved_to_another_user_leaves_no_stale_snapshot(store: MemoryStore) -> None:
    a = put(store, [{"text": "The kayak is blue.", "days_ago": 3}], embed=False, user="ann")
    put(store, [{"text": "Bob likes rivers.", "days_ago": 3}], embed=False, user="bob")
    r = Retriever(store, ReadConfig(), clock=lambda: NOW)
    r.warm(["ann", "bob", "cy"])
    store.update(a[0], user_id="bob")  # the old owner's snapshot still holds the row
    assert r.retrieve("kayak", "ann", channels="fts").results == []
    assert [h.text for h in r.retrieve("kayak", "bob", channels="fts").results] == [
        "The kayak is blue."]
