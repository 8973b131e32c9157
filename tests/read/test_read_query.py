"""A query is read once (core/read/query.py) and every channel reads the same value.

The parsed query must give the channels exactly what the text would: a channel handed
the string and one handed the parsed value rank alike, and the flags the retriever
acts on (a task, a "when" question) are those of the text as asked.
"""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.core.embeddings import DIM
from memdesk.core.read import channels, snapshot
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.query import parse
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put

CFG = ReadConfig()


@pytest.mark.parametrize(("text", "task", "when"), [
    ("When did I run the charity race?", False, True),
    ("  what date was the LGBTQ support group  ", False, True),
    ("Book a table for Friday at the usual place", True, False),
    ("Where does Lantern run in production?", False, False),
])
def test_the_flags_are_those_of_the_text(text: str, task: bool, when: bool) -> None:
    q = parse(text)
    assert q.text == text.strip()
    assert (q.is_task, q.is_when) == (task, when)


def test_words_are_read_from_one_normal_form() -> None:
    # NFKC folds the full-width letters; case and inflections meet in one stem.
    q = parse("Ｋａｙａｋ paddles and the KAYAK")
    assert q.keywords == ("kayak", "paddl")
    assert "kayak paddles" in q.grams


def test_a_channel_ranks_the_text_and_its_parsed_query_alike(store: MemoryStore) -> None:
    put(store, [
        {"text": "Kayak trip planned with Dana.", "days_ago": 1,
         "entity": "dana", "attribute": "plans", "value": "kayak trip"},
        {"text": "Kayak paddle repaired.", "days_ago": 30},
        {"text": "Paddle board lessons.", "days_ago": 20},
    ], embed=False)
    with store.read() as conn:
        snap = snapshot.build(conn, "u", snapshot.store_version(conn), DIM)
    ok = np.ones(len(snap), dtype=bool)
    for text in ("kayak paddles", "what did Dana plan?", "the and of"):
        q = parse(text)
        by_text = channels.keyword_channel(snap, text, CFG, NOW, ok)
        by_query = channels.keyword_channel(snap, q, CFG, NOW, ok)
        assert (by_text.ranked, by_text.share) == (by_query.ranked, by_query.share)
        assert (channels.graph_channel(snap, text, CFG, ok).ranked
                == channels.graph_channel(snap, q, CFG, ok).ranked)
    assert channels.keyword_channel(snap, parse("kayak"), CFG, NOW, ok).ranked
