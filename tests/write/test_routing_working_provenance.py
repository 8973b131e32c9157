"""Routing, working memory and provenance, exactly: the layer of every type, the refusal
of the working layer word for word, which phrases scope a unit to the session, the
bounds of working memory (per session, sessions, least recently used), and how an
extracted memory's provenance reads."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import insert

from memdesk.core.errors import ValidationError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write import working as working_mod
from memdesk.core.write.models import MemoryProvenance
from memdesk.core.write.provenance import Provenance, provenance
from memdesk.core.write.router import is_session_scoped, route, route_values
from memdesk.core.write.units import Unit
from memdesk.core.write.working import (
    WorkingItem,
    WorkingMemory,
    working_memory,
)

T = datetime(2026, 2, 3, 4, 5, 6)


@pytest.mark.parametrize(("type_", "layer"), [
    ("preference", "procedural"), ("procedure", "procedural"), ("fact", "semantic"),
    ("decision", "episodic"), ("correction", "episodic"), ("error", "episodic"),
    ("note", "episodic"), ("reasoning", "episodic"),
])
def test_each_type_has_its_layer(type_: str, layer: str) -> None:
    assert route(type_).value == layer
    assert route_values({"type": type_, "layer": None})["layer"] == layer
    assert route_values({"type": type_, "layer": ""})["layer"] == layer
    assert route_values({"type": type_})["layer"] == layer


def test_a_given_layer_is_kept() -> None:
    assert route_values({"type": "fact", "layer": "episodic"}) == {
        "type": "fact", "layer": "episodic"}


def test_the_working_layer_is_refused_in_words() -> None:
    with pytest.raises(ValidationError) as err:
        route_values({"type": "fact", "layer": "working"})
    assert err.value.field == "layer"
    assert str(err.value) == (
        "layer: working memory is session context and is never stored; give a stored "
        "layer (episodic, semantic, procedural) or leave the layer empty")


@pytest.mark.parametrize(("text", "scoped"), [
    ("Use Python for this task.", True),
    ("Answer tersely for the current session.", True),
    ("Keep it short for this chat.", True),
    ("Use tabs for this script.", True),
    ("For now, use Go.", True),
    ("In this conversation call me Bob.", True),
    ("I am busy right now.", True),
    ("For the moment use the staging server.", True),
    ("Just this once skip the tests.", True),
    ("Use the old API for today.", True),
    ("The user prefers Python.", False),
    ("The user uses Python for this project.", False),
    ("The user has worked here for nowhere near a year.", False),
])
def test_session_scope_phrases(text: str, scoped: bool) -> None:
    assert is_session_scoped(text) is scoped


def unit(i: int) -> Unit:
    return Unit(f"unit {i}", "note", 0.5, 0.5)


def test_working_memory_keeps_units_per_user_and_session_with_their_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(working_mod, "utcnow", lambda: T)
    wm = WorkingMemory()
    wm.add("u", "s1", unit(1))
    wm.add("u", "s1", unit(2))
    wm.add("u", None, unit(3))
    wm.add("v", "s1", unit(4))
    assert wm.get("u", "s1") == [WorkingItem(unit(1), T), WorkingItem(unit(2), T)]
    assert wm.get("u", None) == [WorkingItem(unit(3), T)]
    assert wm.get("v", "s1") == [WorkingItem(unit(4), T)]
    assert wm.get("v", "s2") == []
    wm.end_session("u", "s1")
    assert wm.get("u", "s1") == [] and len(wm.get("u", None)) == 1
    wm.end_session("nobody", "s")  # unknown: nothing else changes
    assert len(wm.get("v", "s1")) == 1


def test_a_session_keeps_its_most_recent_units() -> None:
    wm = WorkingMemory()
    for i in range(52):  # a session keeps 50
        wm.add("u", "s", unit(i))
    assert [it.unit.text for it in wm.get("u", "s")] == [f"unit {i}" for i in range(2, 52)]


def test_the_least_recently_used_session_is_dropped_beyond_the_limit() -> None:
    wm = WorkingMemory()
    for i in range(1000):  # working memory keeps 1,000 sessions
        wm.add("u", f"s{i}", unit(i))
    assert len(wm.get("u", "s0")) == 1  # exactly at the limit: all kept
    wm.add("u", "s0", unit(0))  # s0 is now the most recent; s1 the least
    wm.add("u", "new", unit(-1))
    assert wm.get("u", "s1") == []
    assert [it.unit for it in wm.get("u", "s0")] == [unit(0), unit(0)]
    assert len(wm.get("u", "s2")) == 1 and len(wm.get("u", "new")) == 1


def test_the_process_has_one_working_memory() -> None:
    assert working_memory() is working_memory()
    assert isinstance(working_memory(), WorkingMemory)


@pytest.mark.parametrize(("prov", "line"), [
    (Provenance("ollama", "llama3.2", "job1", T), "ollama (llama3.2), job job1"),
    (Provenance("heuristic", None, "job1", T), "heuristic, job job1"),
    (Provenance("ollama", "llama3.2", None, T), "ollama (llama3.2)"),
    (Provenance("heuristic", "", "", T), "heuristic"),
])
def test_provenance_reads_as_one_line(prov: Provenance, line: str) -> None:
    assert prov.describe() == line


def test_provenance_is_read_from_the_row_of_that_memory(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="extracted", type="fact").id
    b = store.add(user_id="u", text="typed", type="fact").id
    with store.write() as conn:
        conn.execute(insert(MemoryProvenance.__table__).values(
            memory_id=a, extractor="ollama", model="qwen", job_id="j1", created_at=T))
    assert provenance(store, a) == Provenance("ollama", "qwen", "j1", T)
    assert provenance(store, b) is None
