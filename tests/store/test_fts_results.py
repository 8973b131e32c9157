"""Full-text search results: only the last word is a prefix, and queries full of FTS
syntax return exactly the memories holding their words (not merely "no error")."""

from __future__ import annotations

import pytest

from memdesk.core.store.fts import fts5_expression, terms
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter

TEXTS = {
    "py": "User prefers Python for backend work.",
    "pyth": "Pythonic code matters to the team.",
    "acme": "User works at Acme Corp (since 2024).",
    "quoted": 'The "quoted" AND operator NEAR stuff',
    "ollama": "Timeout connecting to ollama during the deploy",
    "or": "Either tea OR coffee, never both",
    "col": "col value pairs like key:value in configs",
    "not": "NOT everything is a NEAR miss",
}


@pytest.fixture
def texts(store: MemoryStore) -> dict[str, str]:
    """Name → id of memories with the texts above."""
    return {k: store.add(user_id="u", text=t, type="note").id for k, t in TEXTS.items()}


def found(store: MemoryStore, q: str) -> set[str]:
    ids = {r.id for r in store.page(MemoryFilter(text=q), limit=None)}
    assert store.count(MemoryFilter(text=q)) == len(ids)
    return ids


def names(texts: dict[str, str], *keys: str) -> set[str]:
    return {texts[k] for k in keys}


def test_only_the_last_word_is_a_prefix(store: MemoryStore, texts) -> None:
    assert found(store, "pyth") == names(texts, "py", "pyth")  # "python", "pythonic"
    assert found(store, "pyth code") == set()  # an earlier word must match whole
    assert found(store, "code pyth") == names(texts, "pyth")
    assert found(store, "user pref") == names(texts, "py")
    assert found(store, "pref user") == set()  # "pref" is first: a whole word or nothing
    assert found(store, "prefers us") == names(texts, "py")
    assert found(store, "prefer") == names(texts, "py")
    assert found(store, "prefer backend") == set()  # "prefer" is not a whole word here
    assert found(store, "prefers backend") == names(texts, "py")
    assert found(store, "prefers back") == names(texts, "py")
    assert found(store, "prefers backe work") == set()  # "backe" is not a word


def test_expression_quotes_every_word_and_stars_only_the_last() -> None:
    assert fts5_expression("acme corp") == '"acme" "corp"*'
    assert fts5_expression("acme corp", prefix_last=False) == '"acme" "corp"'
    assert fts5_expression('say "hi" AND (bye)') == '"say" "hi" "AND" "bye"*'
    assert fts5_expression("ünïcode wörds") == '"ünïcode" "wörds"*'
    assert terms("a-b c_d") == ["a", "b", "c_d"]
    assert len(terms(" ".join(f"w{i}" for i in range(50)))) == 32  # bounded


@pytest.mark.parametrize(("query", "expect"), [
    ('"quoted"', {"quoted"}),
    ("quoted AND operator", {"quoted"}),
    ("AND", {"quoted"}),  # the word "and" itself, not the operator
    ("OR", {"or"}),  # "or…" words only: "operator" does not start with "or"
    ("tea OR coffee", {"or"}),
    ("NOT", {"not"}),
    ("NEAR(", {"quoted", "not"}),
    ("NEAR(stuff", {"quoted"}),
    ("acme AND (", set()),  # "and" is a word to find, and Acme's text lacks it
    ("acme (", {"acme"}),
    ("(since 2024)", {"acme"}),
    ("col:value", {"col"}),
    ("key:value", {"col"}),
    ("^deploy", {"ollama"}),
    ("-ollama", {"ollama"}),
    ("ollama*", {"ollama"}),
    ("*ollama", {"ollama"}),
    ("'; DROP TABLE memories; --", set()),
    ('"unterminated', set()),
    ("a OR", set()),
])
def test_fts_syntax_is_searched_as_words(store: MemoryStore, texts, query: str,
                                         expect: set[str]) -> None:
    assert found(store, query) == names(texts, *expect)
    assert store.counts()["total"] == len(TEXTS)


def test_diacritics_and_case_fold_both_ways(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="Café au lait préféré", type="note").id
    b = store.add(user_id="u", text="CAFE NOIR", type="note").id
    if store.dialect == "postgresql":
        # to_tsvector('simple') folds case but not diacritics (docs/scaling.md's table).
        assert found(store, "cafe") == {b}
        assert found(store, "CAFÉ") == {a}
        assert found(store, "préféré") == {a}
        return
    assert found(store, "cafe") == {a, b}
    assert found(store, "CAFÉ") == {a, b}
    assert found(store, "prefere") == {a}


def test_text_filter_combines_with_other_filters(store: MemoryStore, texts) -> None:
    other = store.add(user_id="v", text="User prefers Python too.", type="fact").id
    assert found(store, "python") == {texts["py"], texts["pyth"], other}  # "pythonic"
    both = MemoryFilter(text="python", user_ids=("v",))
    assert {r.id for r in store.page(both, limit=None)} == {other}
    assert store.count(MemoryFilter(text="python", types=("note",))) == 2  # not the fact
