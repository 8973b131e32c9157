"""A Recall store (the write-phase design's schema) for the upgrade, open and store-safety
tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memdesk.core.store.migrations.versions.m0001_recall_schema import RECALL_SCHEMA


def make_recall_store(path: Path, rows: int = 50) -> Path:
    """A store exactly as Recall writes it: the write-phase design's schema, ISO text timestamps."""
    conn = sqlite3.connect(path)
    conn.execute(RECALL_SCHEMA.replace("BYTEA_OR_BLOB", "BLOB"))
    for i in range(rows):
        conn.execute(
            "INSERT INTO memories (id, user_id, text, type, topic, importance, confidence, "
            "source_session, created_at, last_accessed, access_count, embedding, entity, "
            "attribute, value) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (f"r{i}", "alice", f"Recall memory number {i} about kayaks", "fact", "personal",
             0.5, 0.8, "s1", f"2025-01-{i % 28 + 1:02d}T10:00:00.123456+02:00",
             None if i % 2 else "2025-02-01T00:00:00", i, b"\x00\x00\x80?" * 3, "user",
             "hobby", "kayak"),
        )
    conn.execute("UPDATE memories SET superseded_by = 'r1', valid_until = "
                 "'2025-03-01T00:00:00' WHERE id = 'r0'")
    conn.commit()
    conn.close()
    return path
