"""Full-text search: turns whatever an operator types into a safe match expression.

Users type FTS syntax by accident (quotes, ``*``, ``AND``, parentheses).  We never pass
their text to MATCH as syntax: words are extracted and each is quoted, so every
query is valid and means "all these words", the last one as a prefix (as-you-type).
"""

from __future__ import annotations

import re

from sqlalchemy import ColumnElement, func, literal, select, text
from sqlalchemy.sql import Select

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32


def terms(query: str) -> list[str]:
    return _WORD.findall(query or "")[:MAX_TERMS]


def fts5_expression(query: str, prefix_last: bool = True) -> str | None:
    """Return a valid FTS5 MATCH expression for ``query``, or None if it has no words."""
    words = terms(query)
    if not words:
        return None
    quoted = ['"' + w.replace('"', '""') + '"' for w in words]
    if prefix_last:
        quoted[-1] += "*"
    return " ".join(quoted)


def match_clause(dialect: str, seq_col: ColumnElement, text_col: ColumnElement, query: str):
    """A WHERE clause restricting memories to those matching ``query``, or None."""
    words = terms(query)
    if not words:
        return None
    if dialect == "sqlite":
        expr = fts5_expression(query)
        sub: Select = select(text("rowid")).select_from(text("memories_fts")).where(
            text("memories_fts MATCH :fts_q").bindparams(fts_q=expr)
        )
        return seq_col.in_(sub)
    if dialect == "postgresql":
        tsq = " & ".join(w + (":*" if i == len(words) - 1 else "") for i, w in enumerate(words))
        return func.to_tsvector(literal("simple"), text_col).op("@@")(
            func.to_tsquery(literal("simple"), tsq)
        )
    # Other databases: a plain case-insensitive substring match on every word.
    clause = None
    for w in words:
        c = func.lower(text_col).contains(w.lower())
        clause = c if clause is None else clause & c
    return clause
