"""``retrieve(..., floor=False)``: always k results, what relates first, the rest marked.

An agent that ranks or judges results itself (or wants plain vector search's contract)
asks for the top k whatever their relevance; the default keeps a question without an
answer empty.
"""

from __future__ import annotations

from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put

PETS = [
    {"text": "We adopted a tortoise named Pebble.", "days_ago": 30},
    {"text": "Pebble the tortoise eats dandelions in summer.", "days_ago": 20},
    {"text": "Using PostgreSQL for analytics.", "days_ago": 1, "type": "decision"},
    {"text": "Timeout connecting to Redis.", "days_ago": 1, "type": "error"},
    {"text": "The quarterly report is due on Friday.", "days_ago": 3},
    {"text": "My sister lives in Vienna.", "days_ago": 40},
]


def retriever(store: MemoryStore) -> Retriever:
    return Retriever(store, ReadConfig(record=False), clock=lambda: NOW)


def test_a_question_without_an_answer_gets_k_marked_results_only_when_asked(
        store: MemoryStore) -> None:
    put(store, PETS)
    r = retriever(store)
    strict = r.retrieve("What is my blood type?", "u", k=4, inject=False)
    filled = r.retrieve("What is my blood type?", "u", k=4, inject=False, floor=False)
    assert strict.results == []
    assert len(filled.results) == 4
    assert all(h.below_floor for h in filled.results)
    assert all(j.get("below_floor") is True for j in filled.to_json()["results"])  # type: ignore[union-attr]
    # Nothing is both a result and "dropped"; what did not fit in k is still explained.
    shown = {h.id for h in filled.results}
    assert not shown & {d.hit.id for d in filled.dropped}


def test_what_passes_the_floor_comes_first_and_is_not_marked(store: MemoryStore) -> None:
    put(store, PETS)
    r = retriever(store)
    strict = r.retrieve("Pebble tortoise", "u", k=6, inject=False)
    filled = r.retrieve("Pebble tortoise", "u", k=6, inject=False, floor=False)
    passed = [h.text for h in strict.results]
    assert passed and len(passed) < 6
    assert [h.text for h in filled.results[: len(passed)]] == passed
    assert not any(h.below_floor for h in filled.results[: len(passed)])
    assert all(h.below_floor for h in filled.results[len(passed):])
    assert "below_floor" not in strict.to_json()["results"][0]  # type: ignore[index]


def test_the_rejects_come_nearest_to_the_query_first(store: MemoryStore) -> None:
    """Below the floor fusion gives every candidate relevance 0, so the score alone would
    order them by importance and recency: the reptile question must still get the
    pet memories before the database incidents written yesterday."""
    put(store, PETS)
    filled = retriever(store).retrieve("What reptile lives with us?", "u", k=6,
                                       inject=False, floor=False)
    order = [h.text for h in filled.results]
    assert order.index("We adopted a tortoise named Pebble.") < order.index(
        "Timeout connecting to Redis.")
    cos = [h.cosine for h in filled.results if h.below_floor]
    assert cos == sorted(cos, reverse=True)
