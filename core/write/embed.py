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

Throughput (docs/benchmarks.md, "Write path"): the encoder dominates, and its cost is
the padded length of each encode batch.  sentence-transformers sorts one call's texts
by length, so the backfill encodes a window of ``READ_AHEAD`` rows at a time (texts
sorted by length across the whole window, batches of ``ENCODE_BATCH``) and still commits
``batch`` rows per transaction.  Identical texts are encoded once (agents repeat
themselves; :func:`encode_unique`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from sqlalchemy import Connection, Table, func, insert, select

from memdesk.core import embeddings
from memdesk.core.errors import MemdeskError
from memdesk.core.ids import utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.records import encode_values
from memdesk.core.store.vectors import (  # the storage SQL of vectors
    any_vector_size,
    clear_all_vectors_in,
    has_vector,
    write_vectors_in,
)
from memdesk.core.write.models import EmbeddingSpace

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore

# Declarative types __table__ as a FromClause; these models map plain Tables.
MT = cast(Table, Memory.__table__)
M = MT.c
ST = cast(Table, EmbeddingSpace.__table__)
ET = cast(Table, MemoryEvent.__table__)
DEFAULT_BATCH = 256
# Rows encoded together: long enough that sorting by length leaves little padding (the
# demo's 10,000 texts: 1.18x the real token count at 1,024 and up, 1.57x with the old
# 256-row windows in batches of 128), short enough that a cancel is seen within seconds.
READ_AHEAD = 1024
ENCODE_BATCH = 32  # what the raw encoder does best with on 2 cores (128 was slower)
ENCODE_CHUNK = 256  # texts per encode call inside a window: a cancel is checked between
CACHE_LIMIT = 20_000  # texts whose vectors one backfill remembers (~35 MB)

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


def space_problem(store: MemoryStore) -> str | None:
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


def missing_count(store: MemoryStore) -> int:
    with store.read() as conn:
        return int(conn.execute(select(func.count()).select_from(MT).where(
            ~has_vector(), M.deleted_at.is_(None))).scalar_one())


def encode_unique(embedder: embeddings.Embedder, texts: Sequence[str], *,
                  cache: dict[str, bytes] | None = None,
                  cancelled: Cancelled | None = None) -> dict[str, bytes]:
    """Stored vectors (blobs) of ``texts``, each distinct text encoded once.

    ``cache`` (text → blob) is consulted and filled, so repeats across calls are free
    too.  Texts are encoded longest first in chunks of ``ENCODE_CHUNK``; when
    ``cancelled()`` turns true between chunks, the texts encoded so far are returned
    (the caller writes what it can and stops).
    """
    cache = {} if cache is None else cache
    todo = [t for t in dict.fromkeys(texts) if t not in cache]
    todo.sort(key=len, reverse=True)  # as sentence-transformers sorts: little padding
    out = {t: cache[t] for t in texts if t in cache}
    for i in range(0, len(todo), ENCODE_CHUNK):
        if i and cancelled is not None and cancelled():
            break
        chunk = todo[i:i + ENCODE_CHUNK]
        vecs = embedder.encode(chunk, batch_size=ENCODE_BATCH)
        for text, vec in zip(chunk, vecs, strict=True):
            out[text] = embeddings.to_blob(vec)
    if len(cache) + len(out) > CACHE_LIMIT:
        cache.clear()  # a bounded memory; the next window refills it
    cache.update(out)
    return out


def store_vectors(store: MemoryStore, blobs: Sequence[tuple[int, bytes]], model: str,
                  dim: int, note: str) -> None:
    """One batch of vectors and its audit row, in one transaction, after checking that
    the store's embedding space is ``model``'s."""
    with store.write() as conn:
        check_space_in(conn, model, dim)
        write_vectors_in(conn, blobs)
        conn.execute(insert(ET).values(
            memory_id=None, stream=acts.Stream.STORE, actor="worker",
            action=acts.EMBED.name, before="{}",
            after=encode_values({"rows": len(blobs), "model": model}),
            at=utcnow(), note=note))


def backfill(store: MemoryStore, *, batch: int = DEFAULT_BATCH,
             embedder: embeddings.Embedder | None = None, progress: Progress | None = None,
             cancelled: Cancelled | None = None) -> BackfillReport:
    """Embed every (not deleted) memory lacking a vector, ``batch`` rows per transaction.

    Resumable: each batch commits on its own, so a cancelled or killed run keeps what it
    did and the next run continues with the rows still lacking a vector.  Rows are read
    and encoded ``READ_AHEAD`` at a time (see the module docstring); a cancel during
    the encoding writes the rows already encoded, then stops.
    """
    if batch < 1:
        raise MemdeskError("--batch must be at least 1")
    embedder = embedder or embeddings.default_embedder()
    with store.write() as conn:
        check_space_in(conn, embedder.name, embedder.dim)
    total = missing_count(store)
    done, last_seq = 0, -1
    cache: dict[str, bytes] = {}
    if progress:
        progress(0, total)
    while True:
        if cancelled is not None and cancelled():
            return BackfillReport(done, total - done, True, embedder.name)
        with store.read() as conn:
            rows = conn.execute(
                select(M.seq, M.text)
                .where(~has_vector(), M.deleted_at.is_(None), M.seq > last_seq)
                .order_by(M.seq).limit(max(batch, READ_AHEAD))
            ).all()
        if not rows:
            return BackfillReport(done, max(0, total - done), False, embedder.name)
        vectors = encode_unique(embedder, [r.text for r in rows], cache=cache,
                                cancelled=cancelled)
        ready = [(r.seq, vectors[r.text]) for r in rows if r.text in vectors]
        for i in range(0, len(ready), batch):
            blobs = ready[i:i + batch]
            store_vectors(store, blobs, embedder.name, embedder.dim,
                          f"vectors for {len(blobs)} memories")
            done += len(blobs)
            if progress:
                progress(min(done, total), total)
        if len(ready) < len(rows):  # cancelled while encoding: what was encoded is kept
            return BackfillReport(done, total - done, True, embedder.name)
        last_seq = rows[-1].seq


def reembed_all(store: MemoryStore, model: str = embeddings.MODEL_NAME,
                dim: int = embeddings.DIM) -> int:
    """Clear every vector and record (model, dim) as the store's space; returns rows
    cleared.  Run a backfill afterwards."""
    with store.write() as conn:
        n = clear_all_vectors_in(conn)
        conn.execute(ST.delete())
        conn.execute(insert(ST).values(id=1, model=model, dim=dim, recorded_at=utcnow()))
        conn.execute(insert(ET).values(
            memory_id=None, stream=acts.Stream.STORE, actor="operator",
            action=acts.REEMBED.name, before="{}",
            after=encode_values({"cleared": n, "model": model, "dim": dim}), at=utcnow(),
            note=f"vectors cleared for re-embedding with {model}"))
    return int(n or 0)
