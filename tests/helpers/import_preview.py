"""What the import-preview tests share: an embedder that makes chosen texts near
duplicates, files of every import format, and a fingerprint of a store file that any
write would change."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from memdesk.core import embeddings
from tests.helpers.embedders import CountingEmbedder


class NearEmbedder(CountingEmbedder):
    """Deterministic vectors; the texts of each ``near`` group get vectors with a cosine
    of about 0.95 to one another (a rewording, as the model sees one)."""

    def __init__(self, *near: tuple[str, ...]) -> None:
        super().__init__()
        self.base = {t: k for k, group in enumerate(near) for t in group}

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        self.calls.append(list(texts))
        out = []
        for t in texts:
            if t in self.base:
                anchor = self.vector(f"group {self.base[t]}")
                v = anchor + 0.3 * self.vector(t)
                out.append(v / np.linalg.norm(v))
            else:
                out.append(self.vector(t))
        return np.stack(out) if out else np.zeros((0, embeddings.DIM), dtype=np.float32)


class NoModel:
    """The embedding packages are not installed here."""

    name, dim = embeddings.MODEL_NAME, embeddings.DIM

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        raise embeddings.EmbeddingsUnavailable(
            "vectors are off: the sentence-transformers package is not installed")


def jsonl(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in rows), encoding="utf-8")
    return path


def fingerprint(db: Path) -> dict[str, Any]:
    """The store file's bytes (and its WAL's), and its rows per table: equal before and
    after means nothing was written, not even to a log or an index."""
    wal = Path(str(db) + "-wal")
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " AND name NOT LIKE '%fts%'")]
        rows = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        conn.close()
    return {"sha256": hashlib.sha256(db.read_bytes()).hexdigest(),
            "wal": wal.read_bytes() if wal.exists() else b"", "rows": rows}
