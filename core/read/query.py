"""An agent's query, read once.

Every step of a retrieval needs something of the query: the keyword channel its
content words, the graph channel its phrases, the vector channel its embedding, the
preferences whether it asks for a task to be done, the episodic step whether it asks
*when*, the reranker and the record its text.  Each used to take the raw string and
normalise it again (five times on one call).  :func:`parse` reads it once into a
:class:`Query` that the channels share; a string given to a channel directly (tests,
benchmarks) is parsed there by :func:`as_query`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from memdesk.core.read import episodic, prompts
from memdesk.core.read import terms as qt

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Query:
    """What the retriever's steps read of one query."""

    text: str  # as asked, outer spaces stripped (what is recorded and reranked)
    keywords: tuple[str, ...]  # distinct stems of its content words (keyword channel)
    grams: tuple[str, ...]  # its 1- to 3-word phrases (graph channel)
    is_task: bool  # asks for something to be done (its preferences come first)
    is_when: bool  # asks when something happened (dated results first)
    vector: np.ndarray | None = None  # its embedding, once computed (vector channel)

    def with_vector(self, vector: np.ndarray | None) -> Query:
        return replace(self, vector=vector)


def parse(text: str) -> Query:
    """Read ``text`` once: one normal form, and everything derived from it."""
    text = text.strip()
    normal = qt.normalise(text)
    return Query(
        text=text,
        keywords=tuple(qt.keywords_of(normal)),
        grams=tuple(qt.entity_grams_of(normal)),
        is_task=prompts.is_task(text),
        is_when=episodic.is_when_question(text),
    )


def as_query(query: Query | str) -> Query:
    """``query`` itself, or the string parsed (for callers that hold only text)."""
    return query if isinstance(query, Query) else parse(query)
