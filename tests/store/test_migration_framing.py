"""Migration 0013: a store at 0012 upgrades in place with every memory a belief as
before (``framing`` NULL), the contradiction scan and the curated check working on the
upgraded rows, on both backends."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import inspect, text

from memdesk.core.curation.service import Contradictions
from memdesk.core.store.db import make_engine
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from tests.helpers.belief import agent_turn, fact
from tests.helpers.migrations import upgrade_to
from tests.helpers.stores import close_store


def store_at_0012(url: str) -> None:
    """Three memories of one question at revision 0012; m0 was added by an operator."""
    engine = make_engine(url)
    with engine.begin() as conn:
        upgrade_to(conn, "0012")
        for i, value in enumerate(("Acme", "Globex", "Initech")):
            conn.execute(text(
                "INSERT INTO memories (id, user_id, text, type, importance, confidence, "
                "created_at, access_count, entity, attribute, value, version) VALUES "
                "(:id, 'alice', :t, 'fact', 0.5, 0.8, :at, 0, 'user', 'works_at', :v, 1)"),
                {"id": f"m{i}", "t": f"The user works at {value}.", "v": value,
                 "at": datetime(2026, 1, 1 + i)})
            conn.execute(text(
                "INSERT INTO memory_events (memory_id, actor, action, before, after, at) "
                "VALUES (:id, :actor, 'add', '{}', '{}', :at)"),
                {"id": f"m{i}", "actor": "operator" if i == 0 else "agent",
                 "at": datetime(2026, 1, 1 + i)})
    engine.dispose()


def test_0013_keeps_every_memory_a_belief_and_protects_the_curated(old_store) -> None:  # type: ignore[no-untyped-def]
    store_path, url = old_store
    store_at_0012(url)
    store = MemoryStore.open(store_path, allow_upgrade=True)
    try:
        assert store.report is not None and store.report.upgraded_from == "0012"
        with store.read() as conn:
            cols = {c["name"] for c in inspect(conn).get_columns("memories")}
            indexes = {ix["name"] for ix in inspect(conn).get_indexes("memory_events")}
        assert "framing" in cols and "ix_memory_events_operator" in indexes
        assert all(store.get(f"m{i}").framing is None for i in range(3))
        assert store.count(MemoryFilter(statuses=(Status.ACTIVE,))) == 3
        assert [len(g.values) for g in Contradictions(store).find()] == [3]
        # m0 was the operator's before the upgrade: a same-value correction is held.
        held = agent_turn(store, [fact("The user works at Acme.", "Acme",
                                       type="correction")]).memory_ids[0]
        assert store.get(held).status is Status.QUARANTINED
        assert store.get("m0").status is Status.ACTIVE
        hypo = store.add(user_id="alice", text="Imagine working at a bank.", type="fact",
                         entity="user", attribute="works_at", value="a bank",
                         framing="hypothetical", confidence=0.2)
        assert [len(g.values) for g in Contradictions(store).find()] == [3]
        assert store.get(hypo.id).status is Status.HYPOTHETICAL
    finally:
        close_store(store)
