"""core/write/availability.py's status sentences and core/errors.py's operator messages.

The Ollama client is replaced by a stand-in class (no server, no network): the
behaviour under test is how its answer or failure becomes the status-bar sentence.
"""

from __future__ import annotations

import sys
from types import ModuleType, SimpleNamespace

import pytest

from memdesk.core import embeddings
from memdesk.core.errors import (
    EditConflictError,
    NotFoundError,
    StoreCorruptError,
    StoreDamagedError,
    ValidationError,
)
from memdesk.core.write import availability
from memdesk.core.write.availability import Availability


def _fake_ollama(monkeypatch: pytest.MonkeyPatch, models=None, error=None) -> list:  # type: ignore[no-untyped-def]
    calls: list = []

    class Client:
        def __init__(self, host: str, timeout: float) -> None:
            calls.append((host, timeout))

        def list(self):  # type: ignore[no-untyped-def]
            if error is not None:
                raise error
            return SimpleNamespace(models=[SimpleNamespace(model=m) for m in models])

    mod = ModuleType("ollama")
    mod.Client = Client  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ollama", mod)
    return calls


def test_ollama_reachable_counts_models(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_ollama(monkeypatch, models=["a", "b", "c"])
    assert availability.ollama("http://h:1") == Availability(True, "http://h:1: 3 models")
    assert calls == [("http://h:1", 1.5)]  # a quick look: 1.5 s unless told otherwise


def test_ollama_timeout_is_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_ollama(monkeypatch, models=[])
    assert availability.ollama("h", timeout=0.2) == Availability(True, "h: 0 models")
    assert calls == [("h", 0.2)]


def test_ollama_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_ollama(monkeypatch, error=ConnectionError("refused"))
    assert availability.ollama("http://h:1") == Availability(
        False, "http://h:1: ConnectionError: refused")


def test_ollama_package_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ollama", None)  # import raises ImportError
    assert availability.ollama("h") == Availability(False, "the ollama package is not installed")


def test_embedding_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: None)
    assert availability.embedding_vectors() == Availability(True, "all-MiniLM-L6-v2, offline")
    monkeypatch.setattr(embeddings, "unavailable_reason", lambda: "no torch")
    assert availability.embedding_vectors() == Availability(False, "no torch")


# --- errors --------------------------------------------------------------------------


def test_validation_error_names_its_field() -> None:
    e = ValidationError("importance", "must be between 0 and 1")
    assert str(e) == "importance: must be between 0 and 1"
    assert e.field == "importance"
    assert isinstance(e, ValueError)


def test_not_found_reads_plainly() -> None:
    assert str(NotFoundError("No memory 'abc'")) == "No memory 'abc'"
    assert str(NotFoundError()) == "not found"
    assert isinstance(NotFoundError("x"), KeyError)


def test_edit_conflict_message_and_fields() -> None:
    e = EditConflictError("m1", 2, 5, current="rec")
    assert str(e) == ("Memory m1 was changed by someone else since you read it (you edited "
                      "version 2; it is now at version 5). Nothing was written; reload it "
                      "and apply your change again.")
    assert (e.memory_id, e.expected, e.actual, e.current) == ("m1", 2, 5, "rec")
    assert EditConflictError("m1", 1, 2).current is None


def test_store_damaged_carries_its_report() -> None:
    e = StoreDamagedError("damaged", health="report")
    assert (str(e), e.health) == ("damaged", "report")
    assert isinstance(e, StoreCorruptError)
    assert StoreDamagedError("d").health is None
