"""The access log's figures per token: a call exactly one day old still counts among the
last day's calls, and MEMDESK_MCP_ACCESS_DAYS sets how long rows are kept."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from memdesk.core.guard.access import AccessLog, recent_calls, usage
from memdesk.core.ids import utcnow
from memdesk.core.store.memory_store import MemoryStore


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = MemoryStore.open(tmp_path / "s.db", create=True)
    yield s
    s.close()


def test_a_call_exactly_one_day_old_counts_in_the_last_day(store: MemoryStore) -> None:
    now = utcnow()
    log = AccessLog(store, keep_days=30)
    log.record(caller="bot", transport="http", tool="retrieve", user_id="alice", results=1,
               outcome="ok", ms=1.0, at=now - timedelta(days=1))
    log.record(caller="bot", transport="http", tool="retrieve", user_id="alice", results=0,
               outcome="refused", ms=1.0, at=now - timedelta(days=1))
    assert log.flush()
    u = usage(store, ["bot"], now=now)["bot"]
    assert (u.day, u.day_refused) == (2, 1)


def test_the_environment_sets_how_long_calls_are_kept(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("time.monotonic", lambda: 10.0 ** 6)  # a prune is due
    monkeypatch.setenv("MEMDESK_MCP_ACCESS_DAYS", "5")
    log = AccessLog(store)
    now = utcnow()
    for days in (10, 1):
        log.record(caller="bot", transport="http", tool="retrieve", user_id=None,
                   results=0, outcome="ok", ms=1.0, at=now - timedelta(days=days))
    assert log.flush()
    kept = recent_calls(store, "bot")
    assert [round((now - c.at) / timedelta(days=1)) for c in kept] == [1]
