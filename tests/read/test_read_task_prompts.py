"""A task prompt gets the preferences it bears on as its first results."""

from __future__ import annotations

import pytest

from memdesk.core.read.config import ReadConfig
from memdesk.core.read.prompts import is_task
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put

FILLER = [
    "The quarterly report is due at the end of the month.",
    "My sister moved to Porto last spring.",
    "The bike needs a new chain before the summer.",
    "We repainted the hallway a pale green.",
    "The team standup moved to half past nine.",
    "I renewed the car insurance with the same company.",
    "The plumber fixed the leaking kitchen tap.",
    "My passport photo was taken at the post office.",
    "The library closes early on Saturdays.",
    "I started reading a biography of Ada Lovelace.",
]
PREFS = [
    "I prefer vegetarian restaurants.",
    "I always want a window seat on planes.",
    "Keep my emails short and informal.",
    "I like British crime dramas and can't stand reality shows.",
    "I prefer swimming over running because of my knees.",
]


@pytest.fixture()
def filled(store: MemoryStore) -> MemoryStore:
    put(store, [{"text": t, "type": "fact", "days_ago": 3 + i} for i, t in enumerate(FILLER * 6)]
        + [{"text": "We had dinner at Lucia's on Friday.", "type": "fact", "days_ago": 2}]
        + [{"text": t, "type": "preference", "days_ago": 10 + i} for i, t in enumerate(PREFS)])
    return store


def retriever(store: MemoryStore, **cfg: object) -> Retriever:
    return Retriever(store, ReadConfig(record=False, **cfg), clock=lambda: NOW)  # type: ignore[arg-type]


@pytest.mark.parametrize("query", [
    "Find a place for dinner tonight", "Book me a massage.", "please recommend a TV series",
    "Can you find me a quiet café?", "Could you book a table for two?",
    "I need a gift for my mother", "Help me plan a weekend away", "Hey, order lunch for us",
])
def test_requests_are_tasks(query: str) -> None:
    assert is_task(query)


@pytest.mark.parametrize("query", [
    "What do I do for a living?", "Which instrument am I learning?", "how do I commute",
    "Where did I study", "Do I have a dog?", "Can you remember my sister's name?",
    "Could you tell me where I parked?", "My blood type?", "", "   ", "kayak club",
    "list of my allergies", "Note taking app?", "answer in French",
])
def test_questions_are_not_tasks(query: str) -> None:
    assert not is_task(query)


def test_a_task_prompt_ranks_its_relevant_preference_first(filled: MemoryStore) -> None:
    res = retriever(filled).retrieve("Find a place for dinner tonight", "u")
    assert res.results[0].text == "I prefer vegetarian restaurants."
    assert res.results[0].to_json()["task_preference"] is True
    # Not injected a second time.
    assert "I prefer vegetarian restaurants." not in [p.text for p in res.preferences]


def test_a_question_on_the_same_topic_does_not_promote_preferences(filled: MemoryStore) -> None:
    res = retriever(filled).retrieve("Where did we have dinner on Friday?", "u")
    assert all(not h.task_preference for h in res.results)
    assert res.results and res.results[0].text == "We had dinner at Lucia's on Friday."


def test_task_preferences_come_without_injection_and_can_be_turned_off(
        filled: MemoryStore) -> None:
    res = retriever(filled).retrieve("Choose a seat for my flight", "u", inject=False)
    assert res.results[0].text == "I always want a window seat on planes."
    assert res.preferences == []
    off = retriever(filled, task_preferences=0).retrieve("Choose a seat for my flight", "u")
    assert all(not h.task_preference for h in off.results)


def test_an_isolated_channel_ranks_only_what_it_finds(filled: MemoryStore) -> None:
    res = retriever(filled).retrieve("Find a place for dinner tonight", "u",
                                     channels=("fts",))
    assert all(not h.task_preference for h in res.results)
