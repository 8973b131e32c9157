"""Import from a Recall SQLite file: the write-phase design's ``memories`` table, column for column.

The file is opened read-only through SQLite's URI ``mode=ro`` and is never modified
(tests check its sha256).  SQLite stores whatever a writer gave it, whatever the
declared column type, so every value is checked here: text is decoded as UTF-8 by us
(a bad byte costs that row, not the import).  Vectors are not imported: Recall does not
record which model made them (counted; ``memdesk embed`` computes ours).  A memdesk
store is a superset of Recall's table and can be imported the same way (its ``layer``
and ``deleted_at`` come along; for its vectors use an export with embeddings).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdesk.core.errors import ValidationError
from memdesk.core.transfer.importer import STORE_LOCAL, Candidate, Source, TransferError
from memdesk.core.transfer.jsonl import FIELDS

SQLITE_MAGIC = b"SQLite format 3\x00"
REQUIRED = ("id", "user_id", "text", "type", "created_at")
NO_VECTORS = "embedding (Recall does not record its model; `memdesk embed` computes vectors)"
# Recall columns with a DEFAULT: NULL there means "never set", so the default applies.
DEFAULTED = frozenset({"importance", "confidence", "access_count"})


def is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


class BadText(bytes):
    """A TEXT value that is not UTF-8 (SQLite stores whatever it is given)."""


def _text(raw: bytes) -> str | BadText:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return BadText(raw)


def _wal_mode(path: Path) -> bool:
    """Header bytes 18-19 are 2 for a database in WAL mode."""
    with path.open("rb") as f:
        head = f.read(20)
    return len(head) == 20 and head[18] == 2 and head[19] == 2


def open_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot write to ``path`` (SQLite's own guarantee, not ours).

    A WAL-mode file needs a -shm (and -wal) file beside it even to be read, which a
    read-only connection then leaves behind.  When no -wal file exists, nothing was
    left uncheckpointed, so ``immutable=1`` reads the file alone and creates nothing;
    otherwise (its writer may be running) the WAL must be read too.
    """
    uri = path.resolve().as_uri() + "?mode=ro"
    wal = Path(str(path) + "-wal")
    if _wal_mode(path) and not (wal.exists() and wal.stat().st_size > 0):
        uri += "&immutable=1"
    conn = sqlite3.connect(uri, uri=True)
    # The default decoder raises on the first bad byte and ends the whole read; this
    # one marks the value so only that row is reported.
    conn.text_factory = _text
    return conn


class RecallSource(Source):
    """Rows of a Recall ``memories`` table in insertion (rowid) order; progress in rows."""

    unit = "row"
    kind = "Recall"

    def __init__(self, path: Path, *, label: str = "") -> None:
        super().__init__()
        self.path = Path(path)
        self.label = label or str(path)
        if not is_sqlite(self.path):
            raise TransferError(f"{self.label} is not a SQLite database.")
        try:
            self.conn = open_readonly(self.path)
            cols = [str(r[1]) for r in self.conn.execute("PRAGMA table_info(memories)")]
            if not cols:
                raise TransferError(f"{self.label} has no memories table: not a Recall store.")
            missing = [c for c in REQUIRED if c not in cols]
            if missing:
                raise TransferError(
                    f"{self.label}: its memories table lacks {', '.join(missing)}; "
                    "not a Recall store."
                )
            self.columns = [c for c in cols if c in FIELDS]
            self.extra = [c for c in cols if c not in FIELDS and c not in STORE_LOCAL]
            self.total = int(self.conn.execute("SELECT count(*) FROM memories").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise TransferError(f"Cannot read {self.label}: {exc}.") from None

    def close(self) -> None:
        self.conn.close()

    def __iter__(self) -> Iterator[Candidate]:
        names = self.columns + self.extra
        quoted = ", ".join('"' + c.replace('"', '""') + '"' for c in names)
        sql = f"SELECT {quoted} FROM memories ORDER BY rowid"
        try:
            for n, raw in enumerate(self.conn.execute(sql), start=1):
                row = dict(zip(names, raw, strict=True))
                for c in self.extra:
                    if row.pop(c) is not None:
                        self.dropped[c] += 1
                try:
                    values = self.map_row(row)
                except ValidationError as exc:
                    yield Candidate(n, None, str(exc), n, ref=self._ref(row))
                    continue
                yield Candidate(n, values, None, n)
        except sqlite3.DatabaseError as exc:
            raise TransferError(f"Cannot read {self.label}: {exc}.") from None

    @staticmethod
    def _ref(row: dict[str, Any]) -> str | None:
        rid = row.get("id")
        return str(rid) if isinstance(rid, str | int) else None

    def map_row(self, row: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, v in row.items():
            if v is None:
                if name not in DEFAULTED:
                    out[name] = None
                continue
            if name == "embedding":
                # Recall does not record which model made its vectors, and vectors of
                # two models are not comparable (memdesk.core.write.embed): leave them,
                # say so, and let `memdesk embed` compute ours.
                self.dropped[NO_VECTORS] += 1
                continue
            if isinstance(v, BadText):
                try:
                    v.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ValidationError(
                        name, f"is not valid UTF-8 text (bad byte at {exc.start + 1})"
                    ) from None
            if isinstance(v, bytes):
                raise ValidationError(name, "holds binary data")
            if name in ("id", "user_id", "superseded_by") and isinstance(v, int):
                v = str(v)  # an integer key is still an id
            out[name] = v
        return out
