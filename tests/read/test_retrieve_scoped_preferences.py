"""A retrieval scoped to one agent or run (the Retriever, in process): the preferences
injected are that agent's or run's only, and the unscoped call still sees them all."""

from __future__ import annotations

from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW


def test_scoped_retrieval_injects_only_that_agents_preferences(store: MemoryStore) -> None:
    for text, agent, run in (("Prefer green tea in the morning.", "planner", "r1"),
                             ("Prefer black coffee after lunch.", "coder", "r2"),
                             ("Prefer still water at night.", None, None)):
        store.add(user_id="u", text=text, type="preference", confidence=0.9,
                  importance=0.5, agent_id=agent, run_id=run, created_at=NOW)
    r = Retriever(store, ReadConfig(record=False), clock=lambda: NOW)

    def injected(**scope: str) -> set[str]:
        return {p.text for p in r.retrieve("what should I drink", "u", **scope).preferences}

    assert injected(agent_id="planner") == {"Prefer green tea in the morning."}
    assert injected(run_id="r2") == {"Prefer black coffee after lunch."}
    assert injected(agent_id="planner", run_id="r2") == set()
    assert injected() == {"Prefer green tea in the morning.", "Prefer black coffee after lunch.",
                          "Prefer still water at night."}
