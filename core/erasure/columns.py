"""Every column of every table of a store, read from the database itself (not from the
models): a table added by a later migration is searched and redacted without anyone
remembering to list it here.

Byte-level searches on SQLite cast each value to a BLOB, so a needle is found in TEXT,
BLOB and untyped columns alike (FTS5's shadow tables are untyped); on PostgreSQL text,
character and JSON columns are searched as text, ``bytea`` columns as bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, text

# Tables the purge never rewrites: the memories it deletes itself, the full-text
# index it merges, its own records, the immutable agent provenance (no memory text:
# who handed a job over) and the schema's bookkeeping.
NOT_REDACTED = frozenset({
    "memories", "memory_vectors", "erasures", "erased_memories", "job_origins",
    "alembic_version",
})


@dataclass(frozen=True)
class Column:
    table: str
    name: str
    binary: bool  # a BLOB / bytea column (vectors, full-text segments, statistics)

    @property
    def where(self) -> str:
        return f"{self.table}.{self.name}"

    def sql(self) -> tuple[str, str]:
        """(quoted table, quoted column) for statements."""
        return _quote(self.table), _quote(self.name)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def all_columns(conn: Connection) -> list[Column]:
    """Every column a text could hide in, of every table of the store."""
    if conn.dialect.name == "sqlite":
        return _sqlite_columns(conn)
    return _pg_columns(conn)


def _sqlite_columns(conn: Connection) -> list[Column]:
    out: list[Column] = []
    tables = conn.exec_driver_sql(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all()
    for name, sql in tables:
        if (sql or "").upper().startswith("CREATE VIRTUAL"):
            continue  # reading the FTS table reads memories: its shadow tables are listed
        for row in conn.exec_driver_sql(f"PRAGMA table_info({_quote(name)})"):
            declared = (row[2] or "").upper()
            if any(t in declared for t in ("INT", "REAL", "FLOA", "DOUB", "BOOL")):
                continue  # numbers and dates-as-numbers hold no text
            if "DATE" in declared or "TIME" in declared:
                continue
            out.append(Column(name, row[1], "BLOB" in declared or not declared))
    return out


def _pg_columns(conn: Connection) -> list[Column]:
    rows = conn.execute(text(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND data_type IN ('text', "
        "'character varying', 'character', 'json', 'jsonb', 'bytea') "
        "ORDER BY table_name, ordinal_position")).all()
    return [Column(t, c, d == "bytea") for t, c, d in rows]


def text_columns(conn: Connection) -> list[Column]:
    """The columns a purge may redact: text columns of every table it does not rewrite
    otherwise (see :data:`NOT_REDACTED`), full-text and statistics tables left out."""
    return [c for c in all_columns(conn) if not c.binary and c.table not in NOT_REDACTED
            and not c.table.startswith(("memories_fts", "sqlite_"))]
