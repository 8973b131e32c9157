"""Full-text search finds by word and survives FTS syntax typed into the box."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from memdesk.core.store.fts import fts5_expression
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter


@pytest.fixture
def texts(store: MemoryStore) -> MemoryStore:
    for t in [
        "User prefers Python for backend work.",
        "User works at Acme Corp (since 2024).",
        'The "quoted" AND operator NEAR stuff',
        "Timeout connecting to ollama during the deploy",
        "Café au lait préféré",
    ]:
        store.add(user_id="u", text=t, type="note")
    return store


def ids_for(store: MemoryStore, q: str) -> list[str]:
    return [r.text for r in store.page(MemoryFilter(text=q), limit=None)]


def test_finds_by_word_and_prefix(texts: MemoryStore) -> None:
    assert ids_for(texts, "python") == ["User prefers Python for backend work."]
    assert ids_for(texts, "pyth") == ["User prefers Python for backend work."]  # as-you-type
    assert ids_for(texts, "acme corp") == ["User works at Acme Corp (since 2024)."]
    assert ids_for(texts, "acme python") == []  # all words must match


def test_diacritics_fold(texts: MemoryStore, backend: str) -> None:
    assert ids_for(texts, "café") == ["Café au lait préféré"]
    # PostgreSQL's 'simple' configuration does not fold diacritics (docs/scaling.md).
    want = [] if backend == "postgresql" else ["Café au lait préféré"]
    assert ids_for(texts, "cafe") == want


@pytest.mark.parametrize(("q", "expected"), [
    ("AND", ['The "quoted" AND operator NEAR stuff']),
    ("acme AND (", []),  # "and" is a word to find; Acme's memory does not contain it
    ('"unterminated', []),
    ("NEAR(a b", []),
    ("NEAR(stuff", ['The "quoted" AND operator NEAR stuff']),
    ("col:value", []),
    ("^timeout", ["Timeout connecting to ollama during the deploy"]),
    ("-deploy", ["Timeout connecting to ollama during the deploy"]),
    ("a OR", []),
    ("NOT", []),
    ("'; DROP TABLE memories; --", []),
])
def test_fts_syntax_is_searched_as_words(texts: MemoryStore, q: str, expected) -> None:
    """Results, not merely "no error" (tests/store/test_fts_results.py has more)."""
    assert ids_for(texts, q) == expected
    assert texts.count(MemoryFilter(text=q)) == len(expected)


@pytest.mark.parametrize("q", ['"', "*", "(", ")", "\u0000", "\U0001f9e0"])
def test_queries_without_words_never_error(texts: MemoryStore, q: str) -> None:
    # What a query with no word characters should match is being decided (it applies
    # no text filter today); whatever it means, it must not raise.
    texts.page(MemoryFilter(text=q), limit=None)
    texts.count(MemoryFilter(text=q))


def test_syntax_words_are_searched_literally(texts: MemoryStore) -> None:
    assert ids_for(texts, "AND operator") == ['The "quoted" AND operator NEAR stuff']
    assert ids_for(texts, '"quoted"') == ['The "quoted" AND operator NEAR stuff']
    assert ids_for(texts, "acme (") == ["User works at Acme Corp (since 2024)."]


def test_query_without_words_matches_literally_not_everything(texts: MemoryStore) -> None:
    """Emoji and punctuation have no words to index: they match the text that contains
    them, and nothing when no text does (they used to match every memory)."""
    assert fts5_expression("*()\"") is None
    texts.add(user_id="u", text="Brain dump 🧠💾 saved", type="note")
    texts.add(user_id="u", text="Arrow -> and <tag> here", type="note")
    assert ids_for(texts, "🧠💾") == ["Brain dump 🧠💾 saved"]
    assert ids_for(texts, "💾🧠") == []
    assert ids_for(texts, "<>") == []
    assert ids_for(texts, "*()") == []
    assert ids_for(texts, "<") == ["Arrow -> and <tag> here"]
    assert ids_for(texts, " -> ") == ["Arrow -> and <tag> here"]
    assert ids_for(texts, '"') == ['The "quoted" AND operator NEAR stuff']
    # LIKE wildcards in the query are literal characters, not patterns
    assert ids_for(texts, "%") == []
    assert texts.count(MemoryFilter(text="🧠💾")) == 1
    # blank and invisible queries are no text filter at all
    assert len(ids_for(texts, "   ")) == len(ids_for(texts, "\u0000")) == 7


def test_index_follows_edits_and_deletes(texts: MemoryStore) -> None:
    rec = texts.page(MemoryFilter(text="ollama"))[0]
    texts.update(rec.id, text="Timeout connecting to redis")
    assert ids_for(texts, "ollama") == [] and len(ids_for(texts, "redis")) == 1
    with texts.write() as conn:  # a hard delete by another tool keeps the index in sync
        conn.execute(text("DELETE FROM memories WHERE id = :id"), {"id": rec.id})
    assert ids_for(texts, "redis") == []


def test_fts_index_has_short_prefix_indexes(store: MemoryStore, backend: str) -> None:
    """As-you-type prefixes of 1-3 characters read precomputed lists (migration 0007);
    PostgreSQL's GIN index answers prefixes without them."""
    if backend == "sqlite":
        with store.read() as conn:
            sql = conn.exec_driver_sql(
                "SELECT sql FROM sqlite_master WHERE name = 'memories_fts'").scalar()
        assert "prefix='1 2 3'" in sql
    store.add(user_id="u", text="Benchmark the bold backend", type="note")
    for q in ("b", "bo", "bol", "bold", "benchmark bo", "backe"):
        assert store.count(MemoryFilter(text=q)) == 1, q
