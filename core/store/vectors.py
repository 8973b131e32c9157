"""Storage of memory vectors: the ``memory_vectors`` table (migration 0012).

A vector lives in its own narrow table keyed by the memory's ``seq``, not in the wide
``memories`` row: SQLite rewrites a whole row on any UPDATE, so a 1.5 KB vector in the
row made ``maintain``'s decay UPDATE rewrite the whole 2.3 GB table (see
docs/schema.md).  Every SQL that reads or writes vectors is here, so callers keep
speaking of a record's ``embedding`` (``MemoryRecord.embedding``) and never join by
hand.  ``write_*`` functions run inside the caller's write transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from sqlalchemy import ColumnElement, Connection, Table, delete, exists, func, insert, select

from memdesk.core.store.models import Memory, MemoryVector

# Declarative types __table__ as a FromClause; these models map plain Tables.
MT = cast(Table, Memory.__table__)
VT = cast(Table, MemoryVector.__table__)
M = MT.c
V = VT.c


def vector_of_row() -> ColumnElement[bytes]:
    """The vector of the ``memories`` row in the enclosing query (NULL: none).

    A correlated lookup by primary key rather than a join, so every query over
    ``memories`` can add it as one more column without changing its FROM or filters.
    """
    return select(V.vector).where(V.seq == M.seq).correlate(MT).scalar_subquery()


def embedding_column() -> ColumnElement[bytes]:
    """``vector_of_row()`` named ``embedding``: the record field it fills."""
    return vector_of_row().label("embedding")


def record_columns(names: Iterable[str]) -> list[ColumnElement[Any]]:
    """Columns for ``names`` of ``MemoryRecord`` fields (``embedding`` from its table)."""
    return [embedding_column() if n == "embedding" else M[n] for n in names]


def has_vector() -> ColumnElement[bool]:
    """Whether the enclosing query's ``memories`` row has a vector."""
    return exists().where(V.seq == M.seq)


def any_vector_size(conn: Connection) -> int | None:
    """Bytes of some stored vector (None: the store holds no vector)."""
    n = conn.execute(select(func.length(V.vector)).limit(1)).scalar()
    return None if n is None else int(n)


def write_vectors_in(conn: Connection, items: Sequence[tuple[int, bytes]]) -> None:
    """Set the vectors of memories by ``seq`` (replacing any they had)."""
    if not items:
        return
    clear_vectors_in(conn, [s for s, _ in items])
    conn.execute(insert(VT), [{"seq": s, "vector": v} for s, v in items])


def add_vector_in(conn: Connection, seq: int, vector: bytes) -> None:
    """The vector of a memory just inserted (it has none yet): one INSERT."""
    conn.execute(insert(VT).values(seq=seq, vector=vector))


def write_vectors_by_id_in(conn: Connection, items: Sequence[tuple[str, bytes]]) -> None:
    """Set vectors of memories named by ``id`` (rows inserted in this transaction,
    whose ``seq`` the caller does not know yet)."""
    if not items:
        return
    ids = [i for i, _ in items]
    seqs: dict[str, int] = {}
    for k in range(0, len(ids), 500):
        seqs.update(conn.execute(select(M.id, M.seq).where(M.id.in_(ids[k : k + 500]))).all())
    write_vectors_in(conn, [(seqs[i], v) for i, v in items])


def clear_vectors_in(conn: Connection, seqs: Sequence[int]) -> int:
    """Drop the vectors of these memories; returns how many there were."""
    n = 0
    for k in range(0, len(seqs), 500):
        n += conn.execute(delete(VT).where(V.seq.in_(list(seqs[k : k + 500])))).rowcount or 0
    return n


def clear_vector_of_id_in(conn: Connection, memory_id: str) -> int:
    """Drop one memory's vector (its text changed: the vector no longer describes it)."""
    seq = select(M.seq).where(M.id == memory_id).scalar_subquery()
    return int(conn.execute(delete(VT).where(V.seq == seq)).rowcount or 0)


def clear_all_vectors_in(conn: Connection) -> int:
    """Drop every vector (re-embedding with another model); returns how many."""
    return int(conn.execute(delete(VT)).rowcount or 0)

