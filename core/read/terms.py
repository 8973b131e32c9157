"""What a prompt asks about: keywords for the full-text channel, n-grams for entities.

An agent's query is a sentence ("how should I organize imports in Python files?"),
so the keyword channel ORs its content words (an AND of every word rarely matches
anything) and weights them by rarity.  Words are matched as whole words through a light
stem and its inflections ("imports" finds "import", "imported" and "importing"), never
as a prefix: an agent asking about "red" means red, not Redis.  (The operator's
search-as-you-type in the browser is another path, core/store/fts.py, and keeps its
prefix match on the last word: there the word is still being typed.)
"""

from __future__ import annotations

import math
import re
import unicodedata

MAX_QUERY_CHARS = 10_000
MAX_TERMS = 16
_WORD = re.compile(r"\w+", re.UNICODE)
# Entity names keep inner punctuation: "project-alpha", "node.js", "c++".
_ENTITY_TOKEN = re.compile(r"\w[\w.+#-]*\w|\w", re.UNICODE)

STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been
before being below between both but by can could did do does doing done down during
each either else ever every few for from further get gets got had has have having he
her here hers him his how i if in into is it its itself just let like made make many
me might more most much must my myself need no nor not now of off on once only or
other our ours out over own please same she should so some such than that the their
theirs them then there these they this those through to too under until up us use
used using very was we were what when where which while who whom why will with would
yet you your yours
""".split())  # noqa: SIM905 (a readable word list)
_SUFFIXES = ("ing", "ies", "es", "ed", "s")


def normalise(text: str) -> str:
    """NFKC, lower case, at most MAX_QUERY_CHARS characters; no NULs."""
    text = unicodedata.normalize("NFKC", text or "").replace("\x00", " ")
    return text[:MAX_QUERY_CHARS].lower()


SEP = "\x1e"  # ASCII record separator: NFKC keeps it and ``\\w`` never matches it


def normalise_many(texts: list[str]) -> list[str]:
    """``[normalise(t) for t in texts]`` with one NFKC pass over all of them.

    A snapshot normalises a user's 2,000 texts at once; one call instead of 2,000 is
    most of the saving.  NFKC never composes across the separator (a starter with no
    compositions), so splitting gives each text's own normal form.
    """
    if not texts or any(SEP in t for t in texts if t):
        return [normalise(t) for t in texts]
    joined = unicodedata.normalize("NFKC", SEP.join(t or "" for t in texts))
    parts = joined.replace("\x00", " ").split(SEP)
    return [p[:MAX_QUERY_CHARS].lower() for p in parts]


def stem(word: str) -> str:
    """A prefix that the word's inflections share (``imports`` → ``import``)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


# What may follow a stem inside one word: the endings ``stem`` strips, plus ``e``/``d``
# and ``y`` so that "organized" (stem ``organiz``) still finds "organize" and
# "studies" (``stud``) finds "study".
_ENDINGS = "(?:s|es|e|ed|d|ing|ings|ies|ied|y)?"


def word_pattern(stem_: str, *, start: bool = True) -> str:
    """A regular expression matching the stem's inflections as whole words.

    ``red`` matches "red" and "reds", never "Redis" or "reduce".  A stem ending in
    ``e`` also matches without it ("organize" finds "organizing").  ``start=False``
    leaves out the word-start check (a look-behind, which stops the regular-expression
    engine from searching for the stem as a literal: ten times slower over a user's
    texts); the caller then checks the character before each match itself.
    """
    if stem_.endswith("e") and len(stem_) > 3:
        body = re.escape(stem_[:-1]) + "e?"
    else:
        body = re.escape(stem_)
    return (r"(?<!\w)" if start else "") + body + _ENDINGS + r"(?!\w)"


def is_word_char(ch: str) -> bool:
    """What ``\\w`` matches (str patterns): alphanumerics and the underscore."""
    return ch.isalnum() or ch == "_"


def keywords(query: str) -> list[str]:
    """Distinct stems of the query's content words, in order, at most MAX_TERMS."""
    return keywords_of(normalise(query))


def keywords_of(normal: str) -> list[str]:
    """:func:`keywords` of a text already normalised (core/read/query.py reads once)."""
    out: list[str] = []
    for w in _WORD.findall(normal):
        if w in STOPWORDS or (len(w) < 2 and not w.isdigit()):
            continue
        s = stem(w)
        if s not in out:
            out.append(s)
        if len(out) >= MAX_TERMS:
            break
    return out


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``, as the keyword channel indexes them."""
    return _WORD.findall(normalise(text))


def idf(n_docs: int, doc_freq: int) -> float:
    """BM25's inverse document frequency (always positive)."""
    return math.log(1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5))


def entity_grams(query: str, longest: int = 3) -> list[str]:
    """Lower-cased 1- to 3-token phrases of the query, for matching triple entities/values."""
    return entity_grams_of(normalise(query), longest)


def entity_grams_of(normal: str, longest: int = 3) -> list[str]:
    """:func:`entity_grams` of a text already normalised."""
    toks = _ENTITY_TOKEN.findall(normal)[:200]
    grams: list[str] = []
    for n in range(1, longest + 1):
        for i in range(len(toks) - n + 1):
            g = " ".join(toks[i : i + n])
            if n == 1 and g in STOPWORDS:
                continue
            if g not in grams:
                grams.append(g)
    return grams[:500]
