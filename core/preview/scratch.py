"""Where a preview keeps the file's importable items between its two passes: a SQLite
file in a temporary folder of its own, removed when the preview ends.

Why a file and not lists: a 200 MB import holds hundreds of thousands of items and,
with vectors, several times its size in memory; read back one user at a time, the
preview's memory stays that of the largest user (what the duplicates scan itself
holds).  Never the store: the preview writes nothing there.  The standard library's
sqlite3 with journalling and syncing off, since the file dies with the preview.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

_SCHEMA = """
CREATE TABLE items (
    number INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    text TEXT NOT NULL,
    type TEXT NOT NULL,
    entity TEXT, attribute TEXT, value TEXT,
    confidence REAL NOT NULL,
    created_at TEXT NOT NULL,
    superseded_by TEXT,
    compared INTEGER NOT NULL,  -- active, so the duplicates and contradictions scans see it
    vector BLOB
);
CREATE INDEX items_user ON items (user_id, number) WHERE compared;
"""


@dataclass(frozen=True)
class Kept:
    """One importable item as the comparisons read it back."""

    number: int
    id: str
    user_id: str
    text: str
    type: str
    entity: str | None
    attribute: str | None
    value: str | None
    confidence: float
    created_at: str  # ISO text
    vector: bytes | None


class Scratch:
    """The temporary item file (a context manager: the folder goes when it closes)."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="memdesk-preview-")
        self.path = Path(self._dir.name) / "items.db"
        self.conn = sqlite3.connect(self.path, check_same_thread=False)
        self.conn.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *exc: object | type[BaseException] | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()
        self._dir.cleanup()

    def has_id(self, memory_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM items WHERE id = ?",
                                 (memory_id,)).fetchone() is not None

    def add(self, rows: Iterable[tuple[object, ...]]) -> None:
        """Rows of (number, id, user_id, text, type, entity, attribute, value,
        confidence, created_at, superseded_by, compared, vector)."""
        self.conn.executemany("INSERT INTO items VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        self.conn.commit()

    def set_vectors(self, pairs: Iterable[tuple[bytes, int]]) -> None:
        self.conn.executemany("UPDATE items SET vector = ? WHERE number = ?", pairs)
        self.conn.commit()

    def dangling(self) -> list[tuple[int, str, str]]:
        """(number, id, superseded_by) of items whose replacement is not in the file."""
        return self.conn.execute(
            "SELECT number, id, superseded_by FROM items WHERE superseded_by IS NOT NULL "
            "AND superseded_by NOT IN (SELECT id FROM items) ORDER BY number").fetchall()

    def drop(self, numbers: Iterable[int]) -> None:
        self.conn.executemany("DELETE FROM items WHERE number = ?", ((n,) for n in numbers))
        self.conn.commit()

    def users(self) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT user_id FROM items WHERE compared ORDER BY user_id")]

    def of_user(self, user_id: str) -> Iterator[Kept]:
        rows = self.conn.execute(
            "SELECT number, id, user_id, text, type, entity, attribute, value, confidence, "
            "created_at, vector FROM items WHERE compared AND user_id = ? ORDER BY number",
            (user_id,))
        for r in rows:
            yield Kept(*r)
