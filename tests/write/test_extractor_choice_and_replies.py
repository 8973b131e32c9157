"""Choosing the extractor and reading Ollama's replies, message by message: the config's
precedence (flag, environment, default), the fallback's note, the request the Ollama
extractor sends, and the exact error for each kind of bad reply (fake Ollama server)."""

from __future__ import annotations

import json
import logging
import socket

import pytest

from memdesk.core.write.extract import ExtractorConfig, FallbackExtractor, make_extractor
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.extract_ollama import (
    REPLY_SCHEMA,
    SYSTEM_PROMPT,
    OllamaExtractor,
    parse_reply,
    user_message,
)
from memdesk.core.write.units import Extraction, ExtractionError, Turn, Unit, validate_unit
from tests.helpers.fake_ollama import FakeOllama, Reply, unit, units

TURN = Turn("I prefer Python.", "u", "s", "tech")


class Failing:
    name, model = "primary", "p-1"

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error

    def extract(self, turn: Turn) -> Extraction:
        if self.error is not None:
            raise self.error
        return Extraction([Unit("The user prefers Python.", "preference", 0.8, 0.9)],
                          "primary", "p-1", ["rejected unit 2: bad", "kept"])


# -- the config -----------------------------------------------------------------------------
def test_the_default_config() -> None:
    c = ExtractorConfig()
    assert (c.offline, c.host, c.model, c.timeout, c.fallback) == (
        False, "http://localhost:11434", "llama3.2", 60.0, True)


def test_from_env_without_environment_gives_the_defaults(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMDESK_OLLAMA_HOST", raising=False)
    monkeypatch.delenv("MEMDESK_OLLAMA_MODEL", raising=False)
    assert ExtractorConfig.from_env() == ExtractorConfig()
    monkeypatch.setenv("MEMDESK_OLLAMA_HOST", "")
    assert ExtractorConfig.from_env().host == "http://localhost:11434"


def test_from_env_flags_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDESK_OLLAMA_HOST", "http://envhost:1")
    monkeypatch.setenv("MEMDESK_OLLAMA_MODEL", "envmodel")
    assert ExtractorConfig.from_env() == ExtractorConfig(
        host="http://envhost:1", model="envmodel")
    assert ExtractorConfig.from_env(offline=True, host="http://flag:2", model="flagmodel",
                                    timeout=0.0, fallback=False) == ExtractorConfig(
        True, "http://flag:2", "flagmodel", 0.0, False)
    assert ExtractorConfig.from_env(timeout=7.5).timeout == 7.5


def test_make_extractor_builds_what_the_config_says() -> None:
    assert isinstance(make_extractor(ExtractorConfig(offline=True)), HeuristicExtractor)
    cfg = ExtractorConfig(host="http://h:1", model="m1", timeout=3.0)
    ex = make_extractor(cfg)
    assert isinstance(ex, FallbackExtractor) and isinstance(ex.primary, OllamaExtractor)
    assert (ex.primary.host, ex.primary.model, ex.primary.timeout) == ("http://h:1", "m1", 3.0)
    assert isinstance(ex.fallback, HeuristicExtractor)
    assert (ex.name, ex.model) == ("ollama", "m1")
    bare = make_extractor(ExtractorConfig(host="http://h:1", model="m1", timeout=3.0,
                                          fallback=False))
    assert isinstance(bare, OllamaExtractor)
    assert (bare.host, bare.model, bare.timeout) == ("http://h:1", "m1", 3.0)


# -- the fallback ---------------------------------------------------------------------------
def test_the_primarys_answer_is_used_when_it_answers() -> None:
    ex = FallbackExtractor(Failing())
    out = ex.extract(TURN)
    assert (out.extractor, out.model, out.notes) == ("primary", "p-1", ["rejected unit 2: bad",
                                                                         "kept"])
    assert (ex.name, ex.model) == ("primary", "p-1")


def test_a_failing_primary_falls_back_and_the_first_note_says_why() -> None:
    out = FallbackExtractor(Failing(ExtractionError("server down"))).extract(
        Turn("I work at Acme. The sky is blue.", "u"))
    assert out.extractor == "heuristic"
    assert out.notes == ["primary failed: server down; used the heuristic extractor",
                         "nothing recognised in 'The sky is blue.'"]
    assert [u.value for u in out.units] == ["Acme"]


def test_the_fallback_and_each_rejected_unit_are_logged(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="memdesk.core.write.extract")
    FallbackExtractor(Failing()).extract(TURN)
    FallbackExtractor(Failing(ExtractionError("server down"))).extract(TURN)
    assert [(r.levelno, r.getMessage()) for r in caplog.records
            if r.name == "memdesk.core.write.extract"] == [
        (logging.INFO, "primary: rejected unit 2: bad"),
        (logging.INFO, "primary failed: server down; used the heuristic extractor")]


def test_a_given_fallback_is_the_one_used() -> None:
    other = Failing()
    other.name = "backup"
    out = FallbackExtractor(Failing(ExtractionError("x")), other).extract(TURN)
    assert out.notes[0] == "primary failed: x; used the backup extractor"
    assert out.notes[1:] == ["rejected unit 2: bad", "kept"]


def test_a_bug_in_the_primary_is_not_hidden_by_the_fallback() -> None:
    with pytest.raises(RuntimeError, match="bug"):
        FallbackExtractor(Failing(RuntimeError("bug"))).extract(TURN)


# -- the reply ------------------------------------------------------------------------------
@pytest.mark.parametrize(("content", "raws"), [
    ('{"memories": []}', []),
    ('{"memories": [1, 2]}', [1, 2]),
    ("[]", []),
    ('[{"a": 1}]', [{"a": 1}]),
])
def test_parse_reply_accepts_the_object_or_a_bare_array(content: str, raws: list) -> None:  # type: ignore[type-arg]
    assert parse_reply(content) == raws


@pytest.mark.parametrize(("content", "message"), [
    ("not json", "the model's reply is not valid JSON (Expecting value: line 1 column 1 "
                 "(char 0))"),
    ('{"memories": [NaN]}', "the model's reply is not valid JSON (NaN is not valid JSON)"),
    ('[Infinity]', "the model's reply is not valid JSON (Infinity is not valid JSON)"),
    ('{"memories": "x"}', "the model's reply is JSON but not {\"memories\": [...]}"),
    ('{"answer": []}', "the model's reply is JSON but not {\"memories\": [...]}"),
    ('"text"', "the model's reply is JSON but not {\"memories\": [...]}"),
    (None, "the model's reply is not valid JSON (the JSON object must be str, bytes or "
           "bytearray, not NoneType)"),
])
def test_parse_reply_says_what_is_wrong(content: str, message: str) -> None:
    with pytest.raises(ExtractionError) as err:
        parse_reply(content)
    assert str(err.value) == message


def test_the_user_message_carries_topic_and_turn() -> None:
    assert user_message(TURN) == "Topic: tech\n\nTurn:\nI prefer Python."
    assert user_message(Turn("hi", "u")) == "Topic: (none given)\n\nTurn:\nhi"


def test_an_ollama_extractor_defaults() -> None:
    ex = OllamaExtractor()
    assert (ex.name, ex.host, ex.model, ex.timeout) == (
        "ollama", "http://localhost:11434", "llama3.2", 60.0)
    ex = OllamaExtractor(None, None, 5)
    assert (ex.host, ex.model, ex.timeout) == ("http://localhost:11434", "llama3.2", 5)


def test_the_request_is_the_contracts_and_the_client_is_reused() -> None:
    with FakeOllama([units(unit())]) as fake:
        ex = OllamaExtractor(fake.host, "test-model", timeout=5)
        out = ex.extract(TURN)
        ex.extract(TURN)
    first, second = fake.requests
    assert first == second
    assert (first["path"], first["model"], first["stream"]) == ("/api/chat", "test-model", False)
    assert first["format"] == REPLY_SCHEMA and first["options"] == {"temperature": 0}
    assert first["messages"] == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "Topic: tech\n\nTurn:\nI prefer Python."}]
    assert out == Extraction([validate_unit(unit())], "ollama", "test-model", [])


def test_rejected_units_are_noted_by_position() -> None:
    good = unit("The user works at Acme.", "fact", 0.7, 0.9, "user", "works_at", "Acme")
    with FakeOllama([units(unit(importance=1.7), good, {"text": "x"})]) as fake:
        out = OllamaExtractor(fake.host, "m").extract(TURN)
    assert [u.value for u in out.units] == ["Acme"]
    assert out.notes == [
        "rejected unit 1: importance 1.7 is outside [0, 1]",
        "rejected unit 3: missing field(s): type, importance, confidence, entity, "
        "attribute, value"]


def test_a_reply_of_only_invalid_units_is_an_error_listing_them() -> None:
    with FakeOllama([units(unit(importance=2.0), unit(confidence=-1))]) as fake, \
            pytest.raises(ExtractionError) as err:
        OllamaExtractor(fake.host, "m").extract(TURN)
    assert str(err.value) == (
        "every unit the model returned was invalid (rejected unit 1: importance 2.0 is "
        "outside [0, 1]; rejected unit 2: confidence -1.0 is outside [0, 1])")


def test_more_than_five_units_are_capped_with_a_note() -> None:
    many = [unit(f"Memory {i}.", importance=i / 10) for i in range(6)]
    with FakeOllama([Reply(json.dumps({"memories": many}))]) as fake:
        out = OllamaExtractor(fake.host, "m").extract(TURN)
    assert [u.text for u in out.units] == [f"Memory {i}." for i in range(1, 6)]
    assert out.notes == ["kept the 5 most important of 6 units"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _error(reply: Reply, timeout: float = 5) -> tuple[str, str]:
    with FakeOllama([reply]) as fake, pytest.raises(ExtractionError) as err:
        OllamaExtractor(fake.host, "test-model", timeout=timeout).extract(TURN)
    return fake.host, str(err.value)


def test_a_missing_model_says_how_to_get_it() -> None:
    host, message = _error(Reply(status=404, error="model not found"))
    assert message == (f"Ollama at {host} has no model 'test-model' (run `ollama pull "
                       "test-model` there, or choose another model)")


def test_a_server_error_is_passed_on() -> None:
    host, message = _error(Reply(status=500, error="out of memory"))
    assert message.startswith(f"Ollama at {host} refused the request: out of memory")


def test_a_slow_server_times_out_with_the_limit_in_the_message() -> None:
    host, message = _error(Reply(delay=3.0), timeout=0.25)
    assert message == f"Ollama at {host} did not answer within 0.25 s"


def test_an_unreadable_body_is_a_transport_failure() -> None:
    host, message = _error(Reply(raw=b"<html>proxy error</html>"))
    assert message == (f"talking to Ollama at {host} failed: Expecting value: line 1 "
                       "column 1 (char 0)")


def test_a_reply_without_content_says_so() -> None:
    body = {"model": "m", "created_at": "2026-01-01T00:00:00Z", "done": True,
            "message": {"role": "assistant", "content": None}}
    _, message = _error(Reply(raw=json.dumps(body).encode()))
    assert message == "Ollama's reply has no message content"


def test_no_server_is_a_readable_error() -> None:
    host = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(ExtractionError) as err:
        OllamaExtractor(host, "m", timeout=2).extract(TURN)
    assert str(err.value) == f"no Ollama server answers at {host}"
