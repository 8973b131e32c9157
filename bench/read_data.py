"""Read-path benchmark data: real embeddings for a demo store, and labelled queries.

The demo generator writes templated text (about 5,000 distinct strings in 1,000,000
rows), so every row gets a *real* all-MiniLM-L6-v2 vector by encoding each distinct
text once and copying it to its rows in one INSERT … SELECT through a temporary table.
This fills ``memory_vectors`` directly, as the write path's ``memdesk embed`` would, because
embedding is not an operator-editable field.
"""

from __future__ import annotations

import time

from memdesk.core.embeddings import default_embedder, to_blob
from memdesk.core.store.memory_store import MemoryStore

NO_VECTOR = "NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.seq = m.seq)"


def ensure_read_tables(store: MemoryStore) -> None:
    """Stores built while revision 0010 was an empty placeholder lack its tables."""
    from memdesk.core.read.models import PreferenceCursor, Retrieval, RetrievalItem

    for t in (Retrieval, RetrievalItem, PreferenceCursor):
        t.__table__.create(store.engine, checkfirst=True)


def fill_embeddings(store: MemoryStore, batch: int = 256) -> tuple[int, float]:
    """Give every row without a vector its text's vector; returns (distinct texts, seconds)."""
    t0 = time.perf_counter()
    with store.read() as conn:
        texts = [r[0] for r in conn.exec_driver_sql(
            f"SELECT DISTINCT text FROM memories m WHERE {NO_VECTOR}")]
    if not texts:
        return 0, 0.0
    vecs = default_embedder().encode(texts, batch_size=batch)
    with store.write() as conn:
        conn.exec_driver_sql("CREATE TEMP TABLE vec_fill (text TEXT PRIMARY KEY, v BLOB)")
        conn.exec_driver_sql("INSERT INTO vec_fill VALUES (?, ?)",
                             [(t, to_blob(v)) for t, v in zip(texts, vecs, strict=True)])
        conn.exec_driver_sql(
            "INSERT INTO memory_vectors (seq, vector) SELECT m.seq, f.v FROM memories m "
            f"JOIN vec_fill f ON f.text = m.text WHERE {NO_VECTOR} ORDER BY m.seq")
        conn.exec_driver_sql("DROP TABLE vec_fill")
    return len(texts), time.perf_counter() - t0


if __name__ == "__main__":
    import sys

    s = MemoryStore.open(sys.argv[1], create=False)
    ensure_read_tables(s)
    n, secs = fill_embeddings(s)
    s.checkpoint()
    print(f"embedded {n:,} distinct texts and filled their rows in {secs:.1f}s")
