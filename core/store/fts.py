"""Full-text search: turns whatever an operator types into a safe match expression.

Users type FTS syntax by accident (quotes, ``*``, ``AND``, parentheses).  We never pass
their text to MATCH as syntax: words are extracted and each is quoted, so every
query is valid and means "all these words", the last one as a prefix (as-you-type).

A query with no word characters at all (``🧠💾``, ``<>``, ``->``) has nothing the word
index knows, so it is matched literally instead: memories whose text contains it.
That is one scan of the table (no index helps with arbitrary substrings; about 0.3 s
at 1,000,000 rows), acceptable for these rare queries; a blank query is no filter.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from sqlalchemy import ColumnElement, Connection, false, func, literal_column, select, text
from sqlalchemy.sql import Select

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32


def terms(query: str) -> list[str]:
    return _WORD.findall(query or "")[:MAX_TERMS]


def literal_text(query: str) -> str | None:
    """The text a word-less query is matched literally with, or None.

    None when the query has words (the index handles it) or nothing visible.  Control
    characters are dropped: SQLite compares text as C strings, so a NUL would cut the
    pattern short and match everything.
    """
    if terms(query):
        return None
    kept = "".join(ch for ch in (query or "") if unicodedata.category(ch) != "Cc").strip()
    return kept or None


def fts5_expression(query: str, prefix_last: bool = True) -> str | None:
    """Return a valid FTS5 MATCH expression for ``query``, or None if it has no words."""
    words = terms(query)
    if not words:
        return None
    quoted = ['"' + w.replace('"', '""') + '"' for w in words]
    if prefix_last:
        quoted[-1] += "*"
    return " ".join(quoted)


# PostgreSQL: the text search configuration of the GIN index that migration 0002 creates
# on ``to_tsvector('simple', text)``.  ``simple`` lower-cases and does no stemming or
# stop words, like SQLite's unicode61 (which also folds diacritics; simple does not).
# Spelled as a constant in the SQL, never a bound parameter, so the planner can match
# the query's expression against the index's.
PG_TS_CONFIG = "simple"


def pg_tsvector(text_col: ColumnElement[str]) -> ColumnElement[Any]:
    """The indexed expression ``to_tsvector('simple', text)``."""
    return func.to_tsvector(literal_column(f"'{PG_TS_CONFIG}'::regconfig"), text_col)


def tsquery_text(
    query: str, prefix_last: bool = True, joiner: str = " & ", *, prefix_all: bool = False
) -> str | None:
    """A valid ``to_tsquery`` input for ``query``: every whitespace-separated chunk as
    a quoted operand, so nothing the user types is read as tsquery syntax.

    Inside quotes PostgreSQL runs the chunk through the same parser as the index, so
    ``3.11``, ``alice@example.com`` or ``backend-work`` match as the index stores them;
    a chunk with no lexeme (``&&``, ``"``) is dropped by PostgreSQL.  None when the query
    has no words (the caller matches it literally, as on SQLite).
    """
    if not terms(query):
        return None
    # Lower-cased here, not only by to_tsquery: a database created with the C locale
    # lower-cases ASCII only, so "CAFÉ" would never meet the indexed "café".
    chunks = [
        "".join(ch for ch in c if unicodedata.category(ch) != "Cc")  # no NUL in PG text
        for c in (query or "").lower().split()
    ]
    chunks = [c for c in chunks if _WORD.search(c)][:MAX_TERMS]
    if not chunks:
        return None
    quoted = ["'" + c.replace("\\", "\\\\").replace("'", "''") + "'" for c in chunks]
    if prefix_all:
        quoted = [q + ":*" for q in quoted]
    elif prefix_last:
        quoted[-1] += ":*"
    return joiner.join(quoted)


def pg_match(text_col: ColumnElement[str], tsq: str) -> ColumnElement[bool]:
    """``to_tsvector('simple', text) @@ to_tsquery('simple', :q)``: served by the GIN index."""
    return pg_tsvector(text_col).op("@@")(
        func.to_tsquery(literal_column(f"'{PG_TS_CONFIG}'::regconfig"), tsq)
    )


BROAD_MATCHES = 20_000


def sync_triggers(conn: Connection) -> list[tuple[str, str]]:
    """(name, CREATE statement) of the SQLite triggers that keep ``memories_fts`` in
    step with ``memories``, read from the store itself.

    A bulk load drops them, inserts, re-runs these statements and calls
    ``rebuild_index``: the triggers come back exactly as this store's migrations
    created them, whatever revision that was, with no second copy of their DDL.
    """
    return [(r[0], r[1]) for r in conn.exec_driver_sql(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
        "AND tbl_name = 'memories' AND sql LIKE '%memories_fts%' ORDER BY name"
    )]


def rebuild_index(conn: Connection) -> None:
    """Rebuild the whole SQLite full-text index from the ``memories`` table."""
    conn.exec_driver_sql("INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')")


def is_broad(conn: Connection, query: str, cap: int | None = None) -> bool:
    """Whether ``query`` matches at least ``cap`` memories (SQLite; counting stops at cap)."""
    cap = BROAD_MATCHES if cap is None else cap
    expr = fts5_expression(query)
    if expr is None or conn.dialect.name != "sqlite":
        return False
    n = conn.execute(
        text("SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH :q "
             "LIMIT :cap)"),
        {"q": expr, "cap": cap},
    ).scalar_one()
    return int(n) >= cap


def match_clause(
    dialect: str, seq_col: ColumnElement[int], text_col: ColumnElement[str], query: str,
    *, scan: bool = False,
) -> ColumnElement[bool] | None:
    """A WHERE clause restricting memories to those matching ``query``, or None.

    None only for a blank query (no text filter); a query without words is matched
    literally (see the module docstring).

    ``scan``: for a query matching a large share of the store.  By default SQLite
    looks up every match by rowid and sorts them all before the first row comes out
    (300 ms for 336k matches at 1M rows); with ``seq + 0`` the rowid lookup is
    unusable, so the planner walks the ORDER BY column's index and tests membership
    in the materialised match set, stopping after LIMIT rows (5x faster when matches
    are dense, much slower when they are rare — hence the choice per query).
    """
    words = terms(query)
    if not words:
        lit = literal_text(query)
        if lit is None:
            return None
        # One scan of the table into a set of seqs, then paging probes that set: a bare
        # LIKE in the WHERE would make SQLite walk the ORDER BY index and fetch every
        # row to test it (20 s at 1M rows when nothing matches).
        hits = select(seq_col).where(text_col.contains(lit, autoescape=True)).correlate(None)
        return seq_col.in_(hits)
    if dialect == "sqlite":
        expr = fts5_expression(query)
        sub: Select[Any] = select(text("rowid")).select_from(text("memories_fts")).where(
            text("memories_fts MATCH :fts_q").bindparams(fts_q=expr)
        )
        return (seq_col + 0).in_(sub) if scan else seq_col.in_(sub)
    if dialect == "postgresql":
        tsq = tsquery_text(query)
        return pg_match(text_col, tsq) if tsq is not None else false()
    # Other databases: a plain case-insensitive substring match on every word.
    clause = None
    for w in words:
        c = func.lower(text_col).contains(w.lower())
        clause = c if clause is None else clause & c
    return clause
