"""The default demo's vectors, shipped with memdesk: a new demo is searchable at once.

Embedding the default demo's ~5,000 texts on 2 cores takes minutes (65 s of ONNX Runtime
at load 7, about 4 minutes the first time, when the model is exported through PyTorch),
so a first ``memdesk --demo`` waited that long before the vector channel had anything
to show.  The demo's texts are a function of its seed and size, not of the day it is
built, so their vectors are computed once (``tools/build_demo_vectors.py``) and shipped
beside this module (``vectors.npz``: a 64-bit key of each text and its vector as
float16, ~3.8 MB; float16 keeps every cosine within 1e-3 of the model's).

:func:`write_shipped` gives every memory whose text has a shipped vector that vector
(one audited ``embed`` event per batch, as a backfill writes them); a demo of another
seed or size gets the ones it shares with the default demo and leaves the rest to
``memdesk embed --backfill``, whose caller says so.  The vectors are the packaged
model's (``embeddings.MODEL_NAME``): the file records the model and the store's
embedding space is checked as for any vector write.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import select

from memdesk.core import embeddings
from memdesk.core.store.vectors import has_vector
from memdesk.core.write.embed import M, missing_count, store_vectors

if TYPE_CHECKING:
    import numpy as np

    from memdesk.core.store.memory_store import MemoryStore

FILE = Path(__file__).with_name("vectors.npz")
BATCH = 1000
SEED, SIZE = 7, 5000  # the demo whose texts are shipped: `memdesk --demo`'s

Progress = Callable[[int, int], None]


def key(text: str) -> int:
    """A text's 64-bit key in the file (BLAKE2b; ~5,000 texts never collide)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(),
                          "little")


@dataclass(frozen=True)
class Shipped:
    """The shipped vectors: ``rows[key]`` is the row of ``vectors`` for that text."""

    model: str
    rows: dict[int, int]
    vectors: np.ndarray

    def blob(self, text: str) -> bytes | None:
        row = self.rows.get(key(text))
        return None if row is None else embeddings.to_blob(self.vectors[row])


@cache
def shipped() -> Shipped | None:
    """The file's vectors (None when it is missing: a checkout that never built it)."""
    import numpy as np

    if not FILE.exists():
        return None
    try:
        with np.load(FILE) as data:
            keys = data["keys"]
            vectors = data["vectors"].astype(np.float32)
            model = str(data["model"])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):  # damaged: as if absent
        return None
    # float16 moved each norm off 1 by ~1e-4; the store's vectors are unit length (a
    # cosine is a dot product), so they are normalised again.
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return Shipped(model, {int(k): i for i, k in enumerate(keys)}, vectors)


@dataclass(frozen=True)
class Written:
    """What :func:`write_shipped` did: vectors written, memories still without one, and
    why none were written when that is the case."""

    written: int
    missing: int
    reason: str | None = None


def write_shipped(store: MemoryStore, progress: Progress | None = None) -> Written:
    """Give every memory lacking a vector its shipped one, ``BATCH`` rows a transaction."""
    data = shipped()
    if data is None:
        return Written(0, missing_count(store),
                       f"{FILE.name} is not installed with memdesk, or is damaged")
    if data.model != embeddings.MODEL_NAME:
        return Written(0, missing_count(store),
                       f"the shipped vectors are {data.model}'s, not {embeddings.MODEL_NAME}'s")
    with store.read() as conn:
        rows = conn.execute(select(M.seq, M.text).where(~has_vector(), M.deleted_at.is_(None))
                            .order_by(M.seq)).all()
    ready = [(r.seq, b) for r in rows if (b := data.blob(r.text)) is not None]
    if progress:
        progress(0, len(ready))
    for i in range(0, len(ready), BATCH):
        blobs = ready[i:i + BATCH]
        store_vectors(store, blobs, embeddings.MODEL_NAME, embeddings.DIM,
                      f"shipped demo vectors for {len(blobs)} memories")
        if progress:
            progress(i + len(blobs), len(ready))
    return Written(len(ready), len(rows) - len(ready))
