"""core/store/browse.py: segments, keyset paging across segment borders, cursors, lookups.

A handful of memories in a fresh store; expected orders are written out by hand from
the rule ``ORDER BY key, seq`` (NULLs first ascending, last descending; statuses in
the alphabetical order of their labels).
"""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.store import fts
from memdesk.core.store.browse import (
    Cursor,
    fetch_page,
    fetch_records,
    rows_by_id,
    segments,
)
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.records import RECORD_COLUMNS


def test_unknown_or_absent_sort_columns() -> None:
    with pytest.raises(ValidationError) as ei:
        segments("bogus", False)
    assert str(ei.value) == "order_by: cannot sort by 'bogus'"
    with pytest.raises(ValidationError) as ei:
        segments("entity", False)  # sortable, but not a browser column
    assert str(ei.value) == "order_by: cannot sort by 'entity'"
    assert len(segments("entity", False, RECORD_COLUMNS)) == 2


@pytest.fixture()
def five(store: MemoryStore) -> list[str]:
    """Five memories, importance 0.3, 0.1, 0.3, 0.5, 0.2 (seq order); topics a, -, b, -, a."""
    ids = []
    for imp, topic in ((0.3, "a"), (0.1, None), (0.3, "b"), (0.5, None), (0.2, "a")):
        ids.append(store.add(user_id="u", text=f"note {imp} {topic}", type="fact",
                             importance=imp, topic=topic).id)
    return ids


def _all(store: MemoryStore, order_by: str, desc: bool, limit: int, **kw) -> list[list[int]]:  # type: ignore[no-untyped-def]
    """Pages as lists of 1-based positions in ``five`` (by insertion), up to the page
    whose cursor is None."""
    pos = {r.id: n for n, r in enumerate(sorted(
        fetch_page(store, MemoryFilter(statuses=tuple(Status)), order_by="seq",
                   descending=False, limit=100)[0], key=lambda r: r.seq), start=1)}
    pages: list[list[int]] = []
    cur = None
    while True:
        rows, cur = fetch_page(store, kw.get("flt"), order_by=order_by, descending=desc,
                               after=cur, limit=limit)
        pages.append([pos[r.id] for r in rows])
        if cur is None:
            return pages


def test_importance_ascending_pages(store: MemoryStore, five: list[str]) -> None:
    # (0.1: #2), (0.2: #5), (0.3: #1, #3 by seq), (0.5: #4)
    assert _all(store, "importance", False, 2) == [[2, 5], [1, 3], [4]]


def test_importance_descending_pages(store: MemoryStore, five: list[str]) -> None:
    assert _all(store, "importance", True, 2) == [[4, 3], [1, 5], [2]]


def test_a_full_last_page_still_returns_a_cursor(store: MemoryStore, five: list[str]) -> None:
    rows, cur = fetch_page(store, None, order_by="importance", descending=False, limit=5)
    assert len(rows) == 5
    assert cur == Cursor(0, 0.5, rows[-1].seq, False)
    assert fetch_page(store, None, order_by="importance", descending=False, after=cur,
                      limit=5) == ([], None)
    rows, cur = fetch_page(store, None, order_by="importance", descending=False, limit=6)
    assert (len(rows), cur) == (5, None)


def test_nullable_column_nulls_first_ascending(store: MemoryStore, five: list[str]) -> None:
    # NULL topics (#2, #4 by seq), then a (#1, #5), then b (#3)
    assert _all(store, "topic", False, 2) == [[2, 4], [1, 5], [3]]
    assert _all(store, "topic", False, 3) == [[2, 4, 1], [5, 3]]
    # A full last page still returns a cursor: one more, empty page follows.
    assert _all(store, "topic", False, 1) == [[2], [4], [1], [5], [3], []]


def test_nullable_column_nulls_last_descending(store: MemoryStore, five: list[str]) -> None:
    assert _all(store, "topic", True, 2) == [[3, 5], [1, 4], [2]]


def test_cursor_of_a_null_segment_has_no_key(store: MemoryStore, five: list[str]) -> None:
    rows, cur = fetch_page(store, None, order_by="topic", descending=False, limit=1)
    assert cur == Cursor(0, None, rows[0].seq, False)
    rows, cur = fetch_page(store, None, order_by="topic", descending=False, limit=3)
    assert cur == Cursor(1, "a", rows[-1].seq, False)


def test_seq_order_both_ways(store: MemoryStore, five: list[str]) -> None:
    assert _all(store, "seq", False, 2) == [[1, 2], [3, 4], [5]]
    assert _all(store, "seq", True, 2) == [[5, 4], [3, 2], [1]]


def test_status_order(store: MemoryStore, five: list[str]) -> None:
    store.soft_delete(five[0])
    store.supersede(five[1], five[2])
    every = MemoryFilter(statuses=tuple(Status))
    # active: #3, #4, #5; deleted: #1; superseded: #2
    assert _all(store, "status", False, 2, flt=every) == [[3, 4], [5, 1], [2]]
    assert _all(store, "status", True, 2, flt=every) == [[2, 1], [5, 4], [3]]
    # The default filter hides deleted rows.
    assert _all(store, "status", False, 2) == [[3, 4], [5, 2], []]
    rows, _ = fetch_page(store, every, order_by="status", descending=False, limit=5)
    assert [r.status for r in rows] == [Status.ACTIVE] * 3 + [Status.DELETED, Status.SUPERSEDED]


def test_status_order_is_the_labels_alphabetical_order(store: MemoryStore,
                                                        five: list[str]) -> None:
    # Labels in alphabetical order: active < deleted < expired < superseded.
    store.supersede(five[0], five[1])
    store.update(five[2], valid_until=datetime(2020, 1, 1))
    store.soft_delete(five[3])
    every = MemoryFilter(statuses=tuple(Status))
    rows, _ = fetch_page(store, every, order_by="status", descending=False, limit=5)
    assert [r.status for r in rows] == [Status.ACTIVE, Status.ACTIVE, Status.DELETED,
                                        Status.EXPIRED, Status.SUPERSEDED]
    rows, _ = fetch_page(store, every, order_by="status", descending=True, limit=5)
    assert [r.status for r in rows] == [Status.SUPERSEDED, Status.EXPIRED, Status.DELETED,
                                        Status.ACTIVE, Status.ACTIVE]


def test_filter_applies_to_every_page(store: MemoryStore, five: list[str]) -> None:
    flt = MemoryFilter(topics=("a",))
    assert _all(store, "importance", False, 1, flt=flt) == [[5], [1], []]


def test_default_order_is_newest_first(store: MemoryStore, five: list[str]) -> None:
    rows, cur = fetch_page(store, None)
    assert [r.id for r in rows] == list(reversed(five))
    assert cur is None


def test_records_page_like_rows(store: MemoryStore, five: list[str]) -> None:
    recs, cur = fetch_records(store, None, order_by="importance", descending=True, limit=2)
    assert [r.id for r in recs] == [five[3], five[2]]
    assert recs[0].embedding is None and recs[0].importance == 0.5
    recs2, cur2 = fetch_records(store, None, order_by="importance", descending=True,
                                after=cur, limit=10)
    assert [r.id for r in recs2] == [five[0], five[4], five[1]]
    assert cur2 is None
    default, _ = fetch_records(store, None)
    assert [r.id for r in default] == list(reversed(five))


def test_broad_text_is_decided_once_and_kept(store: MemoryStore, five: list[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    flt = MemoryFilter(text="note")
    _, cur = fetch_page(store, flt, order_by="seq", descending=False, limit=2)
    assert cur is not None and cur.broad_text is False
    monkeypatch.setattr(fts, "BROAD_MATCHES", 3)
    rows, cur = fetch_page(store, flt, order_by="seq", descending=False, limit=2)
    assert cur is not None and cur.broad_text is True
    rows2, cur2 = fetch_page(store, flt, order_by="seq", descending=False, after=cur, limit=2)
    assert cur2 is not None and cur2.broad_text is True
    assert len(rows + rows2) == 4
    blank = MemoryFilter(text="   ")
    _, cur = fetch_page(store, blank, order_by="seq", descending=False, limit=2)
    assert cur is not None and cur.broad_text is False


def test_rows_by_id_in_chunks(store: MemoryStore, five: list[str]) -> None:
    ids = [f"missing-{n}" for n in range(1200)]
    ids[3], ids[700], ids[1199] = five[0], five[2], five[4]
    got = rows_by_id(store, ids)
    assert sorted(got) == sorted([five[0], five[2], five[4]])
    assert got[five[2]].importance == 0.3 and got[five[2]].topic == "b"
    assert rows_by_id(store, []) == {}


def test_browse_row_status_and_columns(store: MemoryStore, five: list[str]) -> None:
    store.soft_delete(five[1])
    got = rows_by_id(store, [five[1], five[0]])
    assert got[five[1]].status is Status.DELETED
    assert got[five[0]].status is Status.ACTIVE
    assert got[five[0]].text == "note 0.3 a"
