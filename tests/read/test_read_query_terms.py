"""Query terms: normalisation, the light stemmer, keywords, IDF and entity n-grams.

Expected values follow the docstrings of core/read/terms.py: NFKC + lower case + no
NULs, at most 10,000 characters; suffixes ing/ies/es/ed/s tried in that order, kept
only when at least four characters remain; at most 16 distinct keyword stems;
BM25's IDF ``ln(1 + (N - n + 0.5) / (n + 0.5))``; 1- to 3-token entity phrases.
"""

from __future__ import annotations

import math

import pytest

from memdesk.core.read import terms as qt


def test_normalise_nfkc_lower_no_nul_and_none() -> None:
    assert qt.normalise("Ｆｉｌｅ\uFB01\x00X") == "file" + "fi" + " x"
    assert qt.normalise(None) == ""  # type: ignore[arg-type]
    assert qt.normalise("") == ""


def test_normalise_cuts_at_ten_thousand_characters() -> None:
    text = "A" * 10_000 + "B"
    assert qt.normalise(text) == "a" * 10_000


def test_normalise_many_matches_normalise_one_by_one() -> None:
    texts = ["Ｆｏｏ", "", None, "a\x00B", "C" * 10_001, "e\u0301"]
    assert qt.normalise_many(texts) == [  # type: ignore[arg-type]
        "foo", "", "", "a b", "c" * 10_000, "\u00e9"]
    assert qt.normalise_many([]) == []


def test_normalise_many_with_the_separator_inside_a_text_falls_back() -> None:
    texts = ["X" + qt.SEP + "Y", "Z"]
    assert qt.normalise_many(texts) == ["x" + qt.SEP + "y", "z"]
    assert qt.normalise_many([None, "Q" + qt.SEP]) == ["", "q" + qt.SEP]  # type: ignore[list-item]


def test_normalise_many_single_text() -> None:
    assert qt.normalise_many(["ÀB\x00"]) == ["àb "]


@pytest.mark.parametrize(("word", "stem"), [
    ("imports", "import"),
    ("importing", "import"),
    ("studies", "stud"),      # "ies" before "s"
    ("classes", "class"),     # "es" before "s"
    ("played", "play"),       # exactly four left
    ("cards", "card"),        # exactly four left
    ("cars", "cars"),         # three would be left: kept whole
    ("going", "going"),       # "ing" would leave two; no other suffix
    ("boxes", "boxe"),        # "es" would leave three, "s" leaves four
    ("bus", "bus"),
    ("python", "python"),
])
def test_stem(word: str, stem: str) -> None:
    assert qt.stem(word) == stem


def test_keywords_drop_stopwords_and_single_letters_but_keep_digits() -> None:
    assert qt.keywords("How should I organize the imports in Python files?") == [
        "organize", "import", "python", "file"]
    assert qt.keywords("x 7 y 42 z") == ["7", "42"]
    assert qt.keywords("go to db") == ["go", "db"]  # two letters are enough
    assert qt.keywords("") == []
    assert qt.keywords("the and of") == []


def test_keywords_are_distinct_stems_in_order() -> None:
    assert qt.keywords("Imports import IMPORTING deploys deploy") == ["import", "deploy"]


def test_keywords_stop_at_sixteen() -> None:
    words = [f"word{i:02d}" for i in range(20)]
    assert qt.keywords(" ".join(words)) == words[:16]
    sixteen = words[:16]
    assert qt.keywords(" ".join(sixteen)) == sixteen
    assert qt.keywords(" ".join(words[:15])) == words[:15]


def test_words_lower_case_all_words() -> None:
    assert qt.words("Hello, World_2! a the") == ["hello", "world_2", "a", "the"]
    assert qt.words("") == []


def test_idf_is_bm25s() -> None:
    assert qt.idf(10, 2) == pytest.approx(math.log(1 + 8.5 / 2.5))
    assert qt.idf(1, 1) == pytest.approx(math.log(1 + 0.5 / 1.5))
    assert qt.idf(100, 0) == pytest.approx(math.log(1 + 100.5 / 0.5))


def test_entity_grams_keep_inner_punctuation_and_skip_stopword_unigrams() -> None:
    assert qt.entity_grams("Use Project-Alpha with node.js") == [
        "project-alpha", "node.js",
        "use project-alpha", "project-alpha with", "with node.js",
        "use project-alpha with", "project-alpha with node.js",
    ]
    # Punctuation inside a token only: a trailing dot ends the sentence, not the name.
    assert qt.entity_grams("Run node.js.") == ["run", "node.js", "run node.js"]


def test_entity_grams_are_distinct_and_honour_longest() -> None:
    assert qt.entity_grams("go go go") == ["go", "go go", "go go go"]
    assert qt.entity_grams("alpha beta gamma delta", longest=2) == [
        "alpha", "beta", "gamma", "delta", "alpha beta", "beta gamma", "gamma delta"]
    assert qt.entity_grams("alpha") == ["alpha"]
    assert qt.entity_grams("") == []


def test_entity_grams_limits_two_hundred_tokens_five_hundred_grams() -> None:
    toks = [f"t{i}" for i in range(250)]
    grams = qt.entity_grams(" ".join(toks))
    # 200 tokens: 200 unigrams + 199 bigrams + 101 of the 198 trigrams.
    assert len(grams) == 500
    assert grams[:200] == toks[:200]
    assert grams[200] == "t0 t1" and grams[398] == "t198 t199"
    assert grams[399] == "t0 t1 t2" and grams[-1] == "t100 t101 t102"
    assert "t200" not in grams
    few = qt.entity_grams(" ".join(toks[:10]))
    assert len(few) == 10 + 9 + 8
