"""Query embeddings, remembered: an LRU of the encoder's answers keyed by query text.

Encoding the query is the largest part of a warm retrieval (a forward pass of the
model, 7 ms on an idle core, 50–100 ms on a loaded one), and agents repeat their
prompts: the same task description, the same "what does the user prefer" on every
turn.  The encoder is deterministic for a given model, so a repeated text gets the
vector it got before.

One cache per embedder object (a different model must not see another model's
vectors), bounded by entry count; vectors are handed out read-only so no caller can
change what the next caller gets.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from memdesk.core.embeddings import Embedder

log = logging.getLogger(__name__)
MAX_ENTRIES = 1024  # × 1.5 KB per 384-dim vector: about 1.5 MB


class QueryVectorCache:
    """LRU of ``text -> vector`` for one embedder; thread-safe."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def vector(self, embedder: Embedder, text: str) -> np.ndarray:
        """``embedder.encode([text])[0]``, from the cache when this text was seen."""
        with self._lock:
            vec = self._items.get(text)
            if vec is not None:
                self._items.move_to_end(text)
                self.hits += 1
                return vec
        # Encode outside the lock: a slow encode must not hold up other queries' hits.
        import numpy as np

        vec = np.array(embedder.encode([text])[0], dtype=np.float32)
        vec.flags.writeable = False
        with self._lock:
            self.misses += 1
            self._items[text] = vec
            self._items.move_to_end(text)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)
        return vec

    def prime(self, embedder: Embedder, texts: list[str], *, batch_size: int = 64) -> int:
        """Encode the texts not cached yet in one batched call and keep their vectors, so
        the retrievals that follow find them (the recall checks' run: one forward pass
        per batch instead of one per query).  Returns how many were encoded.  At most
        ``max_entries`` are primed: more would push out the first before they are used."""
        import numpy as np

        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._items))
        todo = todo[: self.max_entries]
        if not todo:
            return 0
        vecs = embedder.encode(todo, batch_size=batch_size)
        with self._lock:
            for text, v in zip(todo, vecs, strict=True):
                vec = np.array(v, dtype=np.float32)
                vec.flags.writeable = False
                self._items[text] = vec
                self._items.move_to_end(text)
                self.misses += 1
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)
        return len(todo)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_caches: weakref.WeakKeyDictionary[Any, QueryVectorCache] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def cache_for(embedder: Embedder) -> QueryVectorCache | None:
    """The cache of this embedder object (created on first use, dropped with it).

    None for an embedder that cannot be weakly referenced or hashed (a dataclass with
    ``eq``, say): it is then asked every time rather than cached under a wrong key.
    """
    size = configured_size()
    if size == 0:
        return None
    with _caches_lock:
        try:
            cache = _caches.get(embedder)
            if cache is None:
                cache = _caches[embedder] = QueryVectorCache(size)
        except TypeError:
            return None
        return cache


def configured_size() -> int:
    """``MEMDESK_QUERY_CACHE_SIZE`` (entries; 0 turns the cache off), else MAX_ENTRIES.

    Off is for measuring the encoder on every call (the benchmarks' repeated queries
    would otherwise all be hits); a value that is not a whole number ≥ 0 is ignored
    with a warning rather than failing a retrieval.
    """
    raw = os.environ.get("MEMDESK_QUERY_CACHE_SIZE")
    if raw is None:
        return MAX_ENTRIES
    try:
        size = int(raw)
        if size < 0:
            raise ValueError(raw)
    except ValueError:
        log.warning("MEMDESK_QUERY_CACHE_SIZE=%r is not a whole number >= 0; using %d",
                    raw, MAX_ENTRIES)
        return MAX_ENTRIES
    return size


def query_vector(embedder: Embedder, text: str) -> np.ndarray:
    """The query's vector: cached per embedder and text."""
    cache = cache_for(embedder)
    if cache is None:
        vector: np.ndarray = embedder.encode([text])[0]
        return vector
    return cache.vector(embedder, text)
