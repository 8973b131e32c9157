"""Preference injection's building blocks: the rotation, the cursor row, the selection.

From core/read/injection.py's docstring: preferences (or procedural memories) newest
first; more than ``limit`` active: each call takes the next ``limit`` after a keyset
cursor ``(created_at, seq)`` of the last one consumed, wrapping round; results and
repeated texts are skipped.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
from sqlalchemy import select

from memdesk.core.embeddings import DIM
from memdesk.core.read import snapshot
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.injection import (
    Preference,
    active_preferences,
    rotate,
    save_cursor,
    stored_cursor,
)
from memdesk.core.read.models import PreferenceCursor
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put


def pref(seq: int, days_ago: float | None = None, text: str | None = None) -> Preference:
    at = NOW - timedelta(days=seq if days_ago is None else days_ago)
    return Preference(seq, f"m{seq}", text or f"Preference {seq}.", "preference", None, at)


# Newest first: seq 1 is one day old, seq 6 six days old.
SIX = [pref(i) for i in range(1, 7)]


def seqs(ps: list[Preference]) -> list[int]:
    return [p.seq for p in ps]


def key(p: Preference) -> tuple[datetime, int]:
    return p.created_at, p.seq


def test_preference_json() -> None:
    p = Preference(4, "m4", "Prefer tea.", "procedure", "procedural", datetime(2026, 1, 2, 3, 4))
    assert p.to_json() == {"id": "m4", "text": "Prefer tea.", "type": "procedure",
                           "layer": "procedural", "created_at": "2026-01-02T03:04:00"}


def test_rotate_nothing_to_do_keeps_the_cursor() -> None:
    cur = key(SIX[2])
    assert rotate(SIX, cur, set(), 0) == ([], cur)
    assert rotate(SIX, cur, set(), -1) == ([], cur)
    assert rotate([], cur, set(), 5) == ([], cur)
    assert rotate([], None, set(), 5) == ([], None)


def test_rotate_few_enough_returns_all_fresh_and_the_same_cursor() -> None:
    cur = key(SIX[4])
    assert rotate(SIX, cur, set(), 6) == (SIX, cur)
    got, c = rotate(SIX[:3], None, {2}, 3)
    assert (seqs(got), c) == ([1, 3], None)


def test_rotate_first_call_takes_the_newest_limit_and_points_at_the_last() -> None:
    got, cur = rotate(SIX, None, set(), 2)
    assert seqs(got) == [1, 2]
    assert cur == key(SIX[1])


def test_rotate_continues_strictly_after_the_cursor_and_wraps() -> None:
    got, cur = rotate(SIX, key(SIX[1]), set(), 2)
    assert (seqs(got), cur) == ([3, 4], key(SIX[3]))
    got, cur = rotate(SIX, key(SIX[3]), set(), 2)
    assert (seqs(got), cur) == ([5, 6], key(SIX[5]))
    # After the oldest: back to the newest.
    got, cur = rotate(SIX, key(SIX[5]), set(), 2)
    assert (seqs(got), cur) == ([1, 2], key(SIX[1]))
    # Wrapping within one call: newest first in the answer, the cursor at the last taken.
    got, cur = rotate(SIX, key(SIX[4]), set(), 3)
    assert (seqs(got), cur) == ([1, 2, 6], key(SIX[1]))


def test_rotate_cursor_of_a_retired_preference_still_continues_after_it() -> None:
    gone = (NOW - timedelta(days=2.5), 99)  # between seq 2 and seq 3
    got, cur = rotate(SIX, gone, set(), 2)
    assert (seqs(got), cur) == ([3, 4], key(SIX[3]))


def test_rotate_same_time_orders_by_seq() -> None:
    same = [pref(s, days_ago=1) for s in (9, 8, 7, 6)]  # newest first: higher seq first
    got, cur = rotate(same, key(same[1]), set(), 2)
    assert (seqs(got), cur) == ([7, 6], key(same[3]))


def test_rotate_skips_results_and_repeated_texts_and_the_cursor_passes_them() -> None:
    got, cur = rotate(SIX, None, {1, 3}, 2)
    assert (seqs(got), cur) == ([2, 4], key(SIX[3]))
    dup = [pref(1, text="Prefer  TEA."), pref(2, text="prefer tea."), *SIX[2:]]
    got, cur = rotate(dup, None, set(), 2)
    assert (seqs(got), cur) == ([1, 3], key(SIX[2]))
    got, cur = rotate(SIX, None, set(), 2, exclude_texts={" preference 1. ", "Preference 2."})
    assert (seqs(got), cur) == ([3, 4], key(SIX[3]))


def test_rotate_everything_excluded_returns_nothing_with_the_last_visited() -> None:
    got, cur = rotate(SIX, None, {1, 2, 3, 4, 5, 6}, 2)
    assert got == [] and cur == key(SIX[5])


def test_cursor_is_absent_then_saved_then_updated(store: MemoryStore) -> None:
    first = (datetime(2026, 1, 1, 9), 7)
    with store.write() as conn:
        assert stored_cursor(conn, "u") is None
        save_cursor(conn, "u", first, NOW)
    with store.read() as conn:
        assert stored_cursor(conn, "u") == first
        assert stored_cursor(conn, "v") is None
    second = (datetime(2026, 2, 1, 9), 12)
    later = NOW + timedelta(hours=1)
    with store.write() as conn:
        save_cursor(conn, "u", second, later)
        save_cursor(conn, "v", first, later)
    with store.read() as conn:
        rows = conn.execute(select(PreferenceCursor.__table__).order_by("user_id")).all()
        assert [(r.user_id, r.last_created_at, r.last_seq, r.updated_at) for r in rows] == [
            ("u", second[0], 12, later), ("v", first[0], 7, later)]
        assert stored_cursor(conn, "u") == second


def test_a_cursor_row_with_a_missing_half_is_no_cursor(store: MemoryStore) -> None:
    table = PreferenceCursor.__table__
    with store.write() as conn:
        conn.execute(table.insert().values(user_id="a", last_created_at=None, last_seq=3,
                                           updated_at=NOW))
        conn.execute(table.insert().values(user_id="b", last_created_at=NOW, last_seq=None,
                                           updated_at=NOW))
    with store.read() as conn:
        assert stored_cursor(conn, "a") is None
        assert stored_cursor(conn, "b") is None


def test_active_preferences_select_by_type_or_layer_newest_first(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "preference", "layer": "semantic", "text": "Old preference.", "days_ago": 9},
        {"type": "procedure", "layer": "procedural", "text": "Procedural rule.", "days_ago": 5},
        {"type": "procedure", "layer": "episodic", "text": "Episodic procedure.", "days_ago": 1},
        {"type": "preference", "layer": "semantic", "text": "Unsure preference.",
         "days_ago": 2},
        {"type": "preference", "layer": "semantic", "text": "Same day, later seq.",
         "days_ago": 5},
        {"type": "note", "layer": "semantic", "text": "A note.", "days_ago": 0},
    ], embed=False)
    with store.read() as conn:
        snap = snapshot.build(conn, "u", snapshot.store_version(conn), DIM)
    ok = np.array([snap.texts[i] != "Unsure preference." for i in range(len(snap))])
    cfg = ReadConfig()
    got = active_preferences(snap, cfg, ok)
    assert [p.id for p in got] == [ids[4], ids[1], ids[0]]
    p = got[1]
    assert (p.text, p.type, p.layer, p.created_at) == (
        "Procedural rule.", "procedure", "procedural", NOW - timedelta(days=5))
    assert p.seq == int(snap.seqs[snap.ids.index(ids[1])])
    # Memoised per configuration key; the caller gets its own list.
    got.clear()
    assert [p.id for p in active_preferences(snap, cfg, ok)] == [ids[4], ids[1], ids[0]]
    notes = cfg.with_(inject_types=("note",), inject_layers=())
    assert [p.text for p in active_preferences(snap, notes, ok)] == ["A note."]
    layered = cfg.with_(inject_types=(), inject_layers=("procedural",))
    assert [p.text for p in active_preferences(snap, layered, ok)] == ["Procedural rule."]


def test_active_preferences_memo_is_keyed_by_types_layers_and_threshold(
    store: MemoryStore,
) -> None:
    put(store, [{"type": "preference", "layer": "semantic", "text": "Sure.", "days_ago": 2},
                {"type": "preference", "layer": "semantic", "text": "Unsure.", "days_ago": 1}],
        embed=False)
    with store.read() as conn:
        snap = snapshot.build(conn, "u", snapshot.store_version(conn), DIM)
    low, high = ReadConfig(), ReadConfig(confidence_threshold=0.9)
    both = np.ones(len(snap), dtype=bool)
    sure = np.array([t == "Sure." for t in snap.texts])
    assert [p.text for p in active_preferences(snap, low, both)] == ["Unsure.", "Sure."]
    # Same key: the memoised answer, whatever mask comes with it.
    assert [p.text for p in active_preferences(snap, low, sure)] == ["Unsure.", "Sure."]
    assert [p.text for p in active_preferences(snap, high, sure)] == ["Sure."]
    assert snap.memo[("preferences", ("preference",), ("procedural",), 0.9)] == [
        active_preferences(snap, high, both)[0]]
