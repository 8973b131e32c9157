"""Helpers for the read-path tests: write memories with real vectors at given ages."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from memdesk.core.embeddings import default_embedder, to_blob
from memdesk.core.store.memory_store import MemoryStore

NOW = datetime(2026, 11, 4, 12, 0)  # a Wednesday: ISO week 2026-W45
_cache: dict[str, bytes] = {}
OPTIONAL = ("topic", "entity", "attribute", "value", "layer", "source_session", "embedding")


def vectors(texts: list[str]) -> list[bytes]:
    missing = [t for t in dict.fromkeys(texts) if t not in _cache]
    if missing:
        for t, v in zip(missing, default_embedder().encode(missing), strict=True):
            _cache[t] = to_blob(v)
    return [_cache[t] for t in texts]


def put(store: MemoryStore, items: list[dict[str, Any]], *, now: datetime = NOW,
        embed: bool = True, user: str = "u") -> list[str]:
    """Insert ``items`` (``days_ago`` → created_at); returns their ids in order."""
    rows = []
    blobs = vectors([it["text"] for it in items]) if embed else [None] * len(items)
    for it, blob in zip(items, blobs, strict=True):
        row = {k: v for k, v in it.items() if k != "days_ago"}
        row.setdefault("user_id", user)
        row.setdefault("type", "note")
        # Every row gets every key: add_many inserts with the first row's keys only.
        for key in OPTIONAL:
            row.setdefault(key, None)
        row.setdefault("importance", 0.5)
        row.setdefault("confidence", 0.8)
        row["created_at"] = now - timedelta(days=it.get("days_ago", 0))
        row["embedding"] = blob
        rows.append(row)
    return store.add_many(rows)
