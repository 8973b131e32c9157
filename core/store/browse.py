"""Keyset ("seek") paging for the memory browser.

The browser shows a filtered, sorted view of possibly millions of memories and loads it a
page at a time.  ``OFFSET`` gets slower the deeper one scrolls, so each page continues
from a cursor instead: the sort key and ``seq`` of the last row shown, compared as a row
value ``(key, seq) > (?, ?)`` that SQLite answers from an index on the sort column (every
SQLite index ends in the rowid, which ``seq`` aliases).

NULLs and the computed status column do not fit one row-value comparison, so an ordering
is a list of *segments* read one after the other: for a nullable column, the NULL rows
(ordered by ``seq``) and the non-NULL rows (ordered by ``(key, seq)``), in SQLite's order
(NULLs first ascending); for status, one segment per status.  Each segment is an
index-friendly query of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, select, tuple_

from memdesk.core.errors import ValidationError
from memdesk.core.store.fts import is_broad
from memdesk.core.store.models import Memory
from memdesk.core.store.query import SORTABLE, MemoryFilter, Status, status_clause, status_of
from memdesk.core.store.records import RECORD_COLUMNS, MemoryRecord
from memdesk.core.store.vectors import record_columns

if TYPE_CHECKING:  # the store calls this module for its paging
    from memdesk.core.store.memory_store import MemoryStore

M = Memory.__table__.c

NULLABLE_SORT = frozenset(
    {"layer", "topic", "source_session", "last_accessed", "decay_score", "entity"}
)
STATUS_ORDER = tuple(sorted(Status, key=lambda s: s.value))  # SQL sorts the label text


@dataclass(frozen=True)
class BrowseRow:
    """The columns the browser table shows for one memory (no embedding, no triple)."""

    seq: int
    id: str
    text: str
    type: str
    layer: str | None
    topic: str | None
    importance: float
    confidence: float
    user_id: str
    source_session: str | None
    created_at: datetime
    last_accessed: datetime | None
    access_count: int
    superseded_by: str | None
    valid_until: datetime | None
    deleted_at: datetime | None
    quarantined_at: datetime | None = None
    framing: str | None = None
    archived_at: datetime | None = None

    @property
    def status(self) -> Status:
        return status_of(self.deleted_at, self.superseded_by, self.valid_until,
                         self.quarantined_at, self.framing, self.archived_at)


ROW_COLUMNS = tuple(f.name for f in fields(BrowseRow))


@dataclass(frozen=True)
class Cursor:
    """Where the next page starts: segment index, and the last row's sort key and seq."""

    segment: int
    key: Any
    seq: int
    broad_text: bool = False  # the text query matched many rows: keep the scan plan


@dataclass(frozen=True)
class _Segment:
    where: ColumnElement[bool] | None
    key: ColumnElement[Any] | None  # None: ordered by seq alone


def segments(order_by: str, descending: bool,
             columns: Sequence[str] = ROW_COLUMNS) -> list[_Segment]:
    """The segments that, read in order, give ``ORDER BY order_by, seq``."""
    if order_by not in SORTABLE or (order_by not in columns and order_by != "status"):
        raise ValidationError("order_by", f"cannot sort by {order_by!r}")
    if order_by == "status":
        segs = [_Segment(status_clause(s), None) for s in STATUS_ORDER]
        return segs[::-1] if descending else segs
    col = SORTABLE[order_by]
    if order_by == "seq":
        return [_Segment(None, None)]
    if order_by not in NULLABLE_SORT:
        return [_Segment(None, col)]
    assert col is not None  # only "status" has no column, and it returned above
    nulls, values = _Segment(col.is_(None), None), _Segment(col.is_not(None), col)
    return [values, nulls] if descending else [nulls, values]


def _row(r: Any) -> BrowseRow:
    return BrowseRow(*r)


def _record(r: Any) -> MemoryRecord:
    return MemoryRecord(*r)


def fetch_page(
    store: MemoryStore,
    flt: MemoryFilter | None,
    *,
    order_by: str = "created_at",
    descending: bool = True,
    after: Cursor | None = None,
    limit: int = 200,
) -> tuple[list[BrowseRow], Cursor | None]:
    """Up to ``limit`` browser rows after ``after``; the cursor is None when nothing
    follows."""
    return _seek_page(store, flt, order_by, descending, after, limit, ROW_COLUMNS, _row)


def fetch_records(
    store: MemoryStore,
    flt: MemoryFilter | None,
    *,
    order_by: str = "created_at",
    descending: bool = True,
    after: Cursor | None = None,
    limit: int = 200,
) -> tuple[list[MemoryRecord], Cursor | None]:
    """The same paging as ``fetch_page``, with whole records (the store's ``page``)."""
    return _seek_page(store, flt, order_by, descending, after, limit, RECORD_COLUMNS,
                      _record)


def _seek_page(
    store: MemoryStore, flt: MemoryFilter | None, order_by: str, descending: bool,
    after: Cursor | None, limit: int, columns: Sequence[str], make: Callable[[Any], Any],
) -> tuple[list[Any], Cursor | None]:
    flt = flt or MemoryFilter()
    segs = segments(order_by, descending, columns)
    out: list[Any] = []
    start = after.segment if after is not None else 0
    cols = record_columns(columns)
    with store.read() as conn:
        broad = after.broad_text if after is not None else (
            bool(flt.text.strip()) and is_broad(conn, flt.text)
        )
        base = flt.with_(text_scan=broad).clauses(store.dialect)
        for i in range(start, len(segs)):
            seg = segs[i]
            need = limit - len(out)
            where = list(base)
            if seg.where is not None:
                where.append(seg.where)
            if after is not None and i == after.segment:
                where.append(_seek(seg, after, descending))
            order: list[ColumnElement[Any]]
            if seg.key is None:
                order = [M.seq.desc() if descending else M.seq.asc()]
            else:
                order = [seg.key.desc(), M.seq.desc()] if descending else [seg.key, M.seq]
            stmt = select(*cols).where(*where).order_by(*order).limit(need)
            rows = [make(r) for r in conn.execute(stmt)]
            out.extend(rows)
            if len(rows) == need:
                last = rows[-1]
                key = None if seg.key is None else getattr(last, order_by)
                return out, Cursor(i, key, last.seq, broad)
    return out, None


def _seek(seg: _Segment, after: Cursor, descending: bool) -> ColumnElement[bool]:
    if seg.key is None:
        return M.seq < after.seq if descending else M.seq > after.seq
    left, right = tuple_(seg.key, M.seq), tuple_(after.key, after.seq)
    return left < right if descending else left > right


def rows_by_id(store: MemoryStore, ids: Sequence[str]) -> dict[str, BrowseRow]:
    """Fresh rows for ``ids`` (missing ids are absent), to patch a loaded page in place."""
    out: dict[str, BrowseRow] = {}
    cols = [M[c] for c in ROW_COLUMNS]
    with store.read() as conn:
        for i in range(0, len(ids), 500):
            chunk = list(ids[i : i + 500])
            for r in conn.execute(select(*cols).where(M.id.in_(chunk))):
                row = _row(r)
                out[row.id] = row
    return out
