"""What agents may hand over and see (core/guard/agent_api.py), tested in-process.

The MCP tests run the server in a subprocess, where mutation testing cannot reach these
rules; these tests pin them directly.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.guard.agent_actions import forget, history
from memdesk.core.guard.agent_api import (
    AGENT_FIELDS,
    INVALID_MARK,
    HeldForReview,
    agent_filter,
    agent_view,
    check_agent_text,
)
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.undo.generic import undo_changes


@pytest.mark.parametrize(("value", "message"), [
    ("a\x00b", "text: contains a NUL character"),
    (f"a{INVALID_MARK}b", "text: is not valid Unicode (it holds a lone surrogate or the "
                          "noncharacter U+FFFF)"),
    ("a\ud800b", "text: is not valid Unicode (it holds a lone surrogate code point)"),
])
def test_agent_text_that_a_store_cannot_hold_is_refused(value: str, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        check_agent_text("text", value)
    assert str(info.value) == message and info.value.field == "text"


def test_agent_text_that_is_well_formed_passes_unchanged() -> None:
    odd = "Zoë 🦜 \u202e rtl <b>not markup</b> " + "x" * 5000
    assert check_agent_text("text", odd) == odd
    assert check_agent_text("text", None) is None


def test_an_agent_sees_a_memory_without_its_vector_and_with_its_status(
        store: MemoryStore) -> None:
    old = store.add(user_id="u", text="old", type="fact", embedding=b"\0" * 16)
    new = store.add(user_id="u", text="new", type="fact")
    store.supersede(old.id, new.id)
    view = agent_view(store.get(old.id))
    assert set(view) == {*AGENT_FIELDS, "status"}
    assert "embedding" not in view and "embedding_dims" not in view
    assert (view["id"], view["text"], view["status"]) == (old.id, "old", "superseded")
    assert view["superseded_by"] == new.id
    assert agent_view(store.get(new.id))["status"] == "active"


def test_an_agent_never_reads_a_deleted_or_held_memory(store: MemoryStore) -> None:
    gone = store.add(user_id="u", text="gone", type="note")
    store.soft_delete(gone.id)
    with pytest.raises(NotFoundError) as info:
        agent_view(store.get(gone.id))
    assert str(info.value) == f"No memory with id {gone.id!r}"
    held = store.add(user_id="u", text="held", type="note",
                     quarantined_at=datetime(2026, 11, 1))
    with pytest.raises(HeldForReview) as held_info:
        agent_view(store.get(held.id))
    assert str(held_info.value) == (f"Memory {held.id} is held for an operator's review; "
                                    "it cannot be read until it is approved")
    assert isinstance(held_info.value, NotFoundError)  # callers that only know "not found"


@pytest.mark.parametrize(("status", "statuses"), [
    ("active", (Status.ACTIVE,)), ("superseded", (Status.SUPERSEDED,)),
    ("expired", (Status.EXPIRED,)),
    ("any", (Status.ACTIVE, Status.SUPERSEDED, Status.EXPIRED)),
])
def test_an_agent_filter_is_one_user_and_belief_statuses_only(status, statuses) -> None:  # type: ignore[no-untyped-def]
    flt = agent_filter("alice", text="tea", types=["fact"], topics=["drinks"],
                       layers=["semantic"], status=status, importance=(0.2, 0.9),
                       confidence=(0.5, 0.5), entity="alice", attribute="drinks")
    assert flt == MemoryFilter(text="tea", user_ids=("alice",), types=("fact",),
                               topics=("drinks",), layers=("semantic",), statuses=statuses,
                               importance=(0.2, 0.9), confidence=(0.5, 0.5),
                               entity="alice", attribute="drinks")
    assert agent_filter("bob") == MemoryFilter(user_ids=("bob",), statuses=(Status.ACTIVE,))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"status": "deleted"}, "status: must be one of active, superseded, expired, any"),
    ({"importance": (0.9, 0.2)}, "importance: minimum 0.9 is above maximum 0.2"),
    ({"confidence": (1.0, 0.0)}, "confidence: minimum 1.0 is above maximum 0.0"),
    ({"topics": ["ok", "bad\x00"]}, "topics: contains a NUL character"),
    ({"text": "a\ud800"}, "text: is not valid Unicode (it holds a lone surrogate code point)"),
    ({"entity": "e\x00"}, "entity: contains a NUL character"),
    ({"attribute": "a\x00"}, "attribute: contains a NUL character"),
])
def test_an_agent_filter_refuses_what_it_cannot_run(kwargs, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError) as info:
        agent_filter("alice", **kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize(("user", "message"), [
    ("", "user_id: must not be empty"), ("   ", "user_id: must not be empty"),
    ("a\x00", "user_id: contains a NUL character"),
])
def test_an_agent_filter_needs_a_user(user: str, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        agent_filter(user)
    assert info.value.field == "user_id" and str(info.value) == message


def test_an_agent_cannot_read_a_held_memorys_history(store: MemoryStore) -> None:
    held = store.add(user_id="u", text="held", type="note",
                     quarantined_at=datetime(2026, 11, 1))
    with pytest.raises(HeldForReview) as info:
        history(store, held.id, lambda user: True)
    assert "an agent cannot read it" in str(info.value)


def test_what_an_agent_forgot_is_undone_from_the_change_it_returns(
        store: MemoryStore) -> None:
    mid = store.add(user_id="u", text="Alice drinks tea", type="fact").id
    change = forget(store, mid, lambda user: True, note="user asked")
    assert (change.status, store.get(mid).status) == ("forgotten", Status.DELETED)
    undo_changes(store, change.changes)
    assert store.get(mid).status is Status.ACTIVE
