"""Vectors for memories: the store's embedding space, backfill, and writing vectors.

The store records which model its vectors come from (``embedding_space``: name and
dimension).  Vectors of two models are not comparable, so writing with a different
model is refused with :class:`EmbeddingSpaceMismatch`, which tells the operator to
re-embed (:func:`reembed_all` clears every vector and records the new model; a backfill
then fills them in).  A store holding vectors but no record (written by Recall or an
older memdesk) counts as a different model: their origin is unknown.

The vector is not an editable field: it is derived from the text, written only here.
Per-row vector writes are not audited (10,000 audit rows per backfill would double the
write volume for data that can be recomputed at any time); each committed batch leaves
one summary event (memory ``*``, action ``embed``) so the history says when vectors
were written and by which model.  A text edit clears the row's vector
(``MemoryStore.apply_in``), and the next backfill re-embeds it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection, func, insert, select

from memdesk.core import embeddings
from memdesk.core.errors import MemdeskError
from memdesk.core.ids import utcnow
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.records import encode_values
from memdesk.core.store.vectors import (  # the storage SQL of vectors
    any_vector_size,
    clear_all_vectors_in,
    has_vector,
    write_vectors_in,
)
from memdesk.core.write.models import EmbeddingSpace

MT = Memory.__table__
M = MT.c
ST = EmbeddingSpace.__table__
DEFAULT_BATCH = 256

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]


class EmbeddingSpaceMismatch(MemdeskError):
    """The store's vectors come from another model; writing ours would mix them."""


@dataclass(frozen=True)
class Space:
    model: str
    dim: int


@dataclass(frozen=True)
class BackfillReport:
    embedded: int
    remaining: int
    cancelled: bool
    model: str


def recorded_space(conn: Connection) -> Space | None:
    row = conn.execute(select(ST.c.model, ST.c.dim).where(ST.c.id == 1)).first()
    return Space(row.model, int(row.dim)) if row else None


def _mismatch(found: str, model: str, dim: int) -> EmbeddingSpaceMismatch:
    return EmbeddingSpaceMismatch(
        f"The store's vectors were made by {found}; this memdesk embeds with {model} "
        f"({dim} dims). Vectors of different models cannot be compared, so none were "
        "written. Run `memdesk embed --reembed` to replace every vector with the new model."
    )


def check_space_in(conn: Connection, model: str = embeddings.MODEL_NAME,
                   dim: int = embeddings.DIM) -> None:
    """Raise EmbeddingSpaceMismatch unless vectors of (model, dim) may be written here;
    records the space on first use (inside ``conn``'s write transaction)."""
    space = recorded_space(conn)
    if space is not None:
        if (space.model, space.dim) != (model, dim):
            raise _mismatch(f"{space.model} ({space.dim} dims)", model, dim)
        return
    existing = any_vector_size(conn)
    if existing is not None:
        raise _mismatch(f"an unrecorded model ({int(existing) // 4} dims)", model, dim)
    conn.execute(insert(ST).values(id=1, model=model, dim=dim, recorded_at=utcnow()))


def space_problem(store) -> str | None:  # type: ignore[no-untyped-def]
    """Why this store cannot take our vectors now (None: it can), without writing."""
    reason = embeddings.unavailable_reason()
    if reason:
        return reason
    with store.read() as conn:
        space = recorded_space(conn)
        if space is not None:
            if (space.model, space.dim) != (embeddings.MODEL_NAME, embeddings.DIM):
                return str(_mismatch(f"{space.model} ({space.dim} dims)",
                                     embeddings.MODEL_NAME, embeddings.DIM))
            return None
        n = any_vector_size(conn)
    if n is not None:
        return str(_mismatch(f"an unrecorded model ({int(n) // 4} dims)",
                             embeddings.MODEL_NAME, embeddings.DIM))
    return None


def missing_count(store) -> int:  # type: ignore[no-untyped-def]
    with store.read() as conn:
        return int(conn.execute(select(func.count()).select_from(MT).where(
            ~has_vector(), M.deleted_at.is_(None))).scalar_one())


def backfill(store, *, batch: int = DEFAULT_BATCH,  # type: ignore[no-untyped-def]
             embedder: embeddings.Embedder | None = None, progress: Progress | None = None,
             cancelled: Cancelled | None = None) -> BackfillReport:
    """Embed every (not deleted) memory lacking a vector, ``batch`` rows per transaction.

    Resumable: each batch commits on its own, so a cancelled or killed run keeps what it
    did and the next run continues with the rows still lacking a vector.
    """
    if batch < 1:
        raise MemdeskError("--batch must be at least 1")
    embedder = embedder or embeddings.default_embedder()
    with store.write() as conn:
        check_space_in(conn, embedder.name, embedder.dim)
    total = missing_count(store)
    done, last_seq = 0, -1
    if progress:
        progress(0, total)
    while True:
        if cancelled is not None and cancelled():
            return BackfillReport(done, total - done, True, embedder.name)
        with store.read() as conn:
            rows = conn.execute(
                select(M.seq, M.text)
                .where(~has_vector(), M.deleted_at.is_(None), M.seq > last_seq)
                .order_by(M.seq).limit(batch)
            ).all()
        if not rows:
            return BackfillReport(done, max(0, total - done), False, embedder.name)
        vecs = embedder.encode([r.text for r in rows], batch_size=min(batch, 128))
        blobs = [(r.seq, embeddings.to_blob(v)) for r, v in zip(rows, vecs, strict=True)]
        with store.write() as conn:
            check_space_in(conn, embedder.name, embedder.dim)
            write_vectors_in(conn, blobs)
            conn.execute(insert(MemoryEvent.__table__).values(
                memory_id="*", actor="worker", action="embed", before="{}",
                after=encode_values({"rows": len(blobs), "model": embedder.name}),
                at=utcnow(), note=f"vectors for {len(blobs)} memories"))
        done += len(rows)
        last_seq = rows[-1].seq
        if progress:
            progress(min(done, total), total)


def reembed_all(store, model: str = embeddings.MODEL_NAME,  # type: ignore[no-untyped-def]
                dim: int = embeddings.DIM) -> int:
    """Clear every vector and record (model, dim) as the store's space; returns rows
    cleared.  Run a backfill afterwards."""
    with store.write() as conn:
        n = clear_all_vectors_in(conn)
        conn.execute(ST.delete())
        conn.execute(insert(ST).values(id=1, model=model, dim=dim, recorded_at=utcnow()))
        conn.execute(insert(MemoryEvent.__table__).values(
            memory_id="*", actor="operator", action="reembed", before="{}",
            after=encode_values({"cleared": n, "model": model, "dim": dim}), at=utcnow(),
            note=f"vectors cleared for re-embedding with {model}"))
    return int(n or 0)
