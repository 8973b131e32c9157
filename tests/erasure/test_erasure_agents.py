"""An agent's purge (MCP ``forget`` with ``purge: true`` calls this service with its
scope): the agent rules of forget hold for every memory the purge would take."""

from __future__ import annotations

import pytest

from memdesk.core.erasure.plan import PurgeRefused
from memdesk.core.erasure.service import Erasure
from memdesk.core.errors import NotFoundError
from memdesk.core.guard.agent_api import HeldForReview
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.episodes import say


def serves(user: str) -> bool:
    return user == "mel"


def test_an_agent_erases_what_it_may_forget(store: MemoryStore) -> None:
    mid = store.add(user_id="mel", text="Mel's Vexquillan locker", type="fact",
                    actor="agent").id
    erased = Erasure(store).purge(mid, actor="agent", who="bot (session 1)", serves=serves)
    assert erased.verdict == "erased"
    assert erased.receipt["by"] == {"actor": "agent", "who": "bot (session 1)"}
    [ev] = [e for e in store.events(mid) if e.action == "purge"]
    assert ev.actor == "agent"


def test_an_agent_cannot_erase_held_curated_or_others(store: MemoryStore) -> None:
    held = say(store, "My password is Quorptilla77 and I live in Zqvorthax.")
    curated = store.add(user_id="mel", text="Mel's Vexquillan locker", type="fact",
                        actor="operator").id
    other = store.add(user_id="bob", text="Bob's Drubbleforth locker", type="fact",
                      actor="agent").id
    erasure = Erasure(store)
    with pytest.raises(HeldForReview, match="an agent cannot erase it"):
        erasure.purge(held.episode_id or "", actor="agent", who="bot", serves=serves)
    with pytest.raises(PurgeRefused, match="An operator curated"):
        erasure.purge(curated, actor="agent", who="bot", serves=serves)
    with pytest.raises(NotFoundError, match=f"No memory with id '{other}'"):
        erasure.purge(other, actor="agent", who="bot", serves=serves)
    assert erasure.receipts() == []
    for mid in (held.episode_id or "", curated, other):
        assert store.get(mid).id == mid  # all still there
    # Once erased by the operator, the agent hears "not found", as for any id.
    erasure.purge(curated)
    with pytest.raises(NotFoundError, match=f"^'?No memory with id '{curated}'"):
        erasure.purge(curated, actor="agent", who="bot", serves=serves)
