"""core/store/fts.py: how typed text becomes a safe match expression, and what it matches.

Pure functions are checked against the rules of the module docstring (words quoted,
last word a prefix, at most MAX_TERMS words, word-less queries matched literally).
The clauses run on a tiny in-memory SQLite ``memories`` table with an external-content
FTS5 index shaped like migration 0007's, so each test takes milliseconds.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, Text, create_engine, select

from memdesk.core.store import fts

_META = MetaData()
MEMORIES = Table("memories", _META, Column("seq", Integer, primary_key=True),
                 Column("text", Text))

TRIGGERS = {
    "memories_fts_ai": "CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN "
    "INSERT INTO memories_fts(rowid, text) VALUES (new.seq, new.text); END",
    "memories_fts_ad": "CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN "
    "INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.seq, old.text); END",
}


@pytest.fixture()
def engine():
    eng = create_engine("sqlite://")
    with eng.begin() as c:
        c.exec_driver_sql("CREATE TABLE memories(seq INTEGER PRIMARY KEY, text TEXT)")
        c.exec_driver_sql("CREATE VIRTUAL TABLE memories_fts USING fts5(text, "
                          "content='memories', content_rowid='seq')")
        for sql in TRIGGERS.values():
            c.exec_driver_sql(sql)
    yield eng
    eng.dispose()


def _add(engine, *texts: str) -> None:  # type: ignore[no-untyped-def]
    with engine.begin() as c:
        c.execute(MEMORIES.insert(), [{"text": t} for t in texts])


def _matching(engine, query: str, dialect: str = "sqlite", scan: bool = False) -> list[str]:  # type: ignore[no-untyped-def]
    clause = fts.match_clause(dialect, MEMORIES.c.seq, MEMORIES.c.text, query, scan=scan)
    q = select(MEMORIES.c.text).order_by(MEMORIES.c.seq)
    if clause is not None:
        q = q.where(clause)
    with engine.connect() as c:
        return [r[0] for r in c.execute(q)]


# --- terms / literal_text / fts5_expression -------------------------------------------


def test_terms_are_word_runs_capped_at_max_terms() -> None:
    assert fts.terms('say "hi", (there) AND*') == ["say", "hi", "there", "AND"]
    assert fts.terms(None) == []  # type: ignore[arg-type]
    assert fts.terms("") == []
    words = [f"w{n}" for n in range(40)]
    assert fts.terms(" ".join(words)) == words[:32]


def test_literal_text_only_for_wordless_queries() -> None:
    assert fts.literal_text("a <>") is None  # has a word: the index handles it
    assert fts.literal_text(" <> ") == "<>"
    assert fts.literal_text("🧠💾") == "🧠💾"


def test_literal_text_drops_control_characters() -> None:
    assert fts.literal_text("<\x00>") == "<>"
    assert fts.literal_text("\x00\x01") is None
    assert fts.literal_text("   ") is None
    assert fts.literal_text("") is None
    assert fts.literal_text(None) is None  # type: ignore[arg-type]


def test_fts5_expression_quotes_every_word_and_prefixes_the_last() -> None:
    assert fts.fts5_expression('say "hi" (there') == '"say" "hi" "there"*'
    assert fts.fts5_expression("one") == '"one"*'
    assert fts.fts5_expression("NOT near", prefix_last=False) == '"NOT" "near"'
    assert fts.fts5_expression("->") is None
    assert fts.fts5_expression("") is None


# --- tsquery_text (PostgreSQL input) -------------------------------------------------


def test_tsquery_text_quotes_lowercased_chunks_and_prefixes_the_last() -> None:
    assert fts.tsquery_text("CAFÉ Bar") == "'café' & 'bar':*"


def test_tsquery_text_prefix_options_and_joiner() -> None:
    assert fts.tsquery_text("a b", prefix_last=False) == "'a' & 'b'"
    assert fts.tsquery_text("a b", prefix_all=True) == "'a':* & 'b':*"
    assert fts.tsquery_text("a b", prefix_last=False, prefix_all=True) == "'a':* & 'b':*"
    assert fts.tsquery_text("a b", joiner=" | ") == "'a' | 'b':*"


def test_tsquery_text_keeps_chunks_whole_and_drops_wordless_ones() -> None:
    assert fts.tsquery_text("alice@example.com && 3.11") == "'alice@example.com' & '3.11':*"


def test_tsquery_text_escapes_quotes_backslashes_and_control_chars() -> None:
    assert fts.tsquery_text("it's") == "'it''s':*"
    assert fts.tsquery_text("a\\b") == "'a\\\\b':*"
    assert fts.tsquery_text("a\x00b") == "'ab':*"


def test_tsquery_text_none_without_words_and_capped() -> None:
    assert fts.tsquery_text("<> 🧠") is None
    assert fts.tsquery_text("") is None
    assert fts.tsquery_text(None) is None  # type: ignore[arg-type]
    chunks = [f"w{n}" for n in range(40)]
    expected = " & ".join(f"'{c}'" for c in chunks[:32]) + ":*"
    assert fts.tsquery_text(" ".join(chunks)) == expected


# --- match_clause on SQLite ----------------------------------------------------------


def test_blank_query_is_no_filter(engine) -> None:  # type: ignore[no-untyped-def]
    assert fts.match_clause("sqlite", MEMORIES.c.seq, MEMORIES.c.text, "   ") is None
    assert fts.match_clause("sqlite", MEMORIES.c.seq, MEMORIES.c.text, "") is None


def test_sqlite_words_all_required_last_one_a_prefix(engine) -> None:  # type: ignore[no-untyped-def]
    _add(engine, "alice works at acme", "alice likes tea", "bob works at acme",
         "alice worked at acme")
    assert _matching(engine, "alice works") == ["alice works at acme"]
    assert _matching(engine, "alice wor") == ["alice works at acme", "alice worked at acme"]
    assert _matching(engine, 'ALICE "tea') == ["alice likes tea"]


def test_sqlite_scan_matches_the_same_rows(engine) -> None:  # type: ignore[no-untyped-def]
    _add(engine, "alpha one", "beta two", "alpha three")
    assert _matching(engine, "alpha", scan=True) == ["alpha one", "alpha three"]
    assert _matching(engine, "alpha") == ["alpha one", "alpha three"]


def test_wordless_query_matches_literally(engine) -> None:  # type: ignore[no-untyped-def]
    _add(engine, "a -> b", "a b", "x->y", "arrow")
    assert _matching(engine, "->") == ["a -> b", "x->y"]
    assert _matching(engine, " -> ", dialect="postgresql") == ["a -> b", "x->y"]


def test_literal_match_escapes_like_wildcards(engine) -> None:  # type: ignore[no-untyped-def]
    _add(engine, "100% sure", "sure", "50 percent")
    assert _matching(engine, "%") == ["100% sure"]


def test_other_databases_match_every_word_case_insensitively(engine) -> None:  # type: ignore[no-untyped-def]
    _add(engine, "Alice WORKS here", "alice rests", "works for bob", "xalicex worksx")
    assert _matching(engine, "ALICE works", dialect="mysql") == [
        "Alice WORKS here", "xalicex worksx"]
    assert _matching(engine, "rests", dialect="mysql") == ["alice rests"]


# --- is_broad / triggers / rebuild ----------------------------------------------------


def test_is_broad_at_cap_boundary(engine) -> None:  # type: ignore[no-untyped-def]
    _add(engine, "tea one", "tea two", "tea three", "coffee")
    with engine.connect() as c:
        assert fts.is_broad(c, "tea", cap=3) is True
        assert fts.is_broad(c, "tea", cap=2) is True
        assert fts.is_broad(c, "tea", cap=4) is False
        assert fts.is_broad(c, "te", cap=3) is True  # the last word is a prefix
        assert fts.is_broad(c, "->", cap=1) is False  # no words: never broad


def test_a_query_is_broad_from_twenty_thousand_matches() -> None:
    eng = create_engine("sqlite://")
    fill = ("INSERT INTO memories_fts(text) WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL "
            "SELECT n + 1 FROM c WHERE n < {}) SELECT 'tea' FROM c")
    try:
        with eng.begin() as c:
            c.exec_driver_sql("CREATE VIRTUAL TABLE memories_fts USING fts5(text)")
            c.exec_driver_sql(fill.format(19_999))
            assert fts.is_broad(c, "tea") is False
            c.exec_driver_sql(fill.format(1))
            assert fts.is_broad(c, "tea") is True
    finally:
        eng.dispose()


def test_is_broad_false_off_sqlite() -> None:
    conn = SimpleNamespace(dialect=SimpleNamespace(name="postgresql"))  # never queried
    assert fts.is_broad(conn, "tea", cap=0) is False


def test_sync_triggers_reads_the_fts_triggers_by_name(engine) -> None:  # type: ignore[no-untyped-def]
    with engine.begin() as c:
        c.exec_driver_sql("CREATE TABLE other(x)")
        c.exec_driver_sql("CREATE TRIGGER aa_other AFTER INSERT ON other BEGIN "
                          "INSERT INTO memories_fts(rowid, text) VALUES (new.x, ''); END")
        c.exec_driver_sql("CREATE TRIGGER aa_plain AFTER INSERT ON memories BEGIN "
                          "SELECT 1; END")
        got = fts.sync_triggers(c)
    assert got == [("memories_fts_ad", TRIGGERS["memories_fts_ad"]),
                   ("memories_fts_ai", TRIGGERS["memories_fts_ai"])]


def test_rebuild_index_catches_up_after_a_load_without_triggers(engine) -> None:  # type: ignore[no-untyped-def]
    with engine.begin() as c:
        c.exec_driver_sql("DROP TRIGGER memories_fts_ai")
    _add(engine, "loaded quietly")
    assert _matching(engine, "quietly") == []
    with engine.begin() as c:
        fts.rebuild_index(c)
    assert _matching(engine, "quietly") == ["loaded quietly"]
