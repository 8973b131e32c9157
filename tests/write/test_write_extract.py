"""Extraction: the write-phase decision table and checklist for the heuristic extractor, and
the Ollama extractor against a fake Ollama HTTP server (valid, bad and failing replies)."""

from __future__ import annotations

import json
import socket

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.write.extract import ExtractorConfig, FallbackExtractor, make_extractor
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.extract_ollama import REPLY_SCHEMA, SYSTEM_PROMPT, OllamaExtractor
from memdesk.core.write.units import ExtractionError, Turn, Unit, UnitRejected, validate_unit
from tests.helpers.fake_ollama import FakeOllama, Reply, unit, units

H = HeuristicExtractor()


def ext(text: str) -> list[Unit]:
    return H.extract(Turn(text, "alice")).units


# -- the write-phase decision table, with our own further phrasings per row -------------
# Preferences carry a specific attribute (prefers_theme, prefers_editor, …): one generic
# "prefers"/"uses" let a correction of one preference supersede all the others.
STORE_ROWS = [
    # (turn, type, (entity, attribute, value) or None)
    ("I always use dark mode", "preference", ("user", "prefers_theme", "dark mode")),
    ("I usually use Neovim for everything.", "preference",
     ("user", "prefers_editor", "Neovim")),
    ("I prefer tabs over spaces.", "preference", ("user", "prefers_indentation", "tabs")),
    ("Please always answer in British English.", "preference", None),
    ("I never deploy on Fridays.", "preference", None),
    ("I'm a backend engineer", "fact", ("user", "occupation", "backend engineer")),
    ("I work at Acme Corp.", "fact", ("user", "works_at", "Acme Corp")),
    ("I live in Lisbon these days.", "fact", ("user", "lives_in", "Lisbon")),
    ("I'm allergic to peanuts.", "fact", ("user", "allergic_to", "peanuts")),
    ("I chose PostgreSQL for this project", "decision", None),
    ("We went with Kafka because the team knows it.", "decision", None),
    ("No, I use pytest not unittest", "correction",
     ("user", "prefers_test_framework", "pytest")),
    ("Actually, I prefer Emacs now.", "correction", ("user", "prefers_editor", "Emacs")),
    ("My morning routine: check alerts, then review PRs, then standup.", "procedure", None),
    ("First I run the linter, then I run the tests.", "procedure", None),
]


@pytest.mark.parametrize(("turn", "type_", "triple"), STORE_ROWS)
def test_store_rows(turn: str, type_: str, triple: tuple[str, str, str] | None) -> None:
    [u] = ext(turn)
    assert u.type == type_
    assert u.confidence >= 0.8 and u.importance >= 0.6
    assert (u.entity, u.attribute, u.value) == (triple or (None, None, None))
    assert u.text != turn and "the user" in u.text.lower()  # third person, not raw text


SKIP_ROWS = [
    "Thanks, that's helpful!",  # pleasantry (the checklist's one-liner)
    "Thank you so much!",
    "ok",
    "Sounds good 👍",
    "Got it, perfect.",
    "I'm tired today",  # transient state
    "I'm so hungry right now.",
    "Feeling stressed? I am a bit stressed.",
    "Oh great, another meeting",  # sarcasm
    "Yeah, right, like that will ever work.",
    "I just love it when the build breaks on a Friday.",
    "Can you tell me what I use for testing?",  # a question asserts nothing
    "The weather is nice.",  # nothing about the user
]


@pytest.mark.parametrize("turn", SKIP_ROWS)
def test_skip_rows_give_nothing(turn: str) -> None:
    out = H.extract(Turn(turn, "alice"))
    assert out.units == []
    assert out.notes  # and it says why


HEDGED = [
    ("What if I were a doctor?", "doctor"),  # the checklist's test
    ("What if I worked at Google?", "Google"),
    ("Imagine I worked at a bank; how would compliance see this?", "a bank"),
    ("Suppose I lived in Paris, what would rent be?", "Paris"),
    ("Let's say I live in Tokyo.", "Tokyo"),
    ("Pretend I'm a pirate captain.", "pirate captain"),
    ("I'm basically a Rust expert, skip the basics.", "Rust expert"),
    ("I'm actually a doctor, so walk me through the mechanism more technically.", "doctor"),
    ("Hypothetically, if I were a lawyer, would this hold?", "lawyer"),
]


@pytest.mark.parametrize(("turn", "value"), HEDGED)
def test_hypotheticals_and_roleplay_get_low_confidence(turn: str, value: str) -> None:
    [u] = ext(turn)
    assert u.confidence <= 0.3
    assert u.value == value
    assert u.text.startswith("Not asserted")


def test_uncertainty_lowers_confidence_but_keeps_the_unit() -> None:
    [u] = ext("I think I prefer Go for services.")
    assert u.type == "preference" and u.confidence <= 0.5
    [c] = ext("I'm considering switching to Rust.")
    assert c.type == "decision" and c.confidence <= 0.5


def test_a_mixed_turn_keeps_only_the_signal() -> None:
    out = ext("Thanks! I work at Initech and I live in Berlin. Oh great, another meeting.")
    assert [(u.attribute, u.value) for u in out] == [("works_at", "Initech"),
                                                     ("lives_in", "Berlin")]


def test_emphasis_raises_importance() -> None:
    [plain] = ext("I'm allergic to shellfish.")
    [loud] = ext("I'm severely allergic to shellfish!!")
    assert loud.importance > plain.importance


def test_never_more_than_five_units_and_the_most_important_kept() -> None:
    text = ("I like jazz. I like tea. I like cats. I like rain. I like chess. "
            "I'm allergic to peanuts.")
    out = H.extract(Turn(text, "u"))
    assert len(out.units) == 5
    assert any(u.attribute == "allergic_to" for u in out.units)
    assert any("5 most important" in n for n in out.notes)


@pytest.mark.parametrize("turn", ["\u202e\u0000"[:1] + "I use vim", "🙂" * 5000,
                                  "I work at Ünïcødé GmbH 日本", "x" * 99_000])
def test_odd_and_huge_unicode_is_handled(turn: str) -> None:
    out = H.extract(Turn(turn, "u"))
    assert len(out.units) <= 5


def test_turn_validation() -> None:
    with pytest.raises(ValidationError, match="text"):
        Turn("   ", "u")
    with pytest.raises(ValidationError, match="user_id"):
        Turn("I use vim", " ")
    with pytest.raises(ValidationError, match="limit"):
        Turn("x" * 100_001, "u")


# -- the validation gate -----------------------------------------------------------------
@pytest.mark.parametrize(("raw", "reason"), [
    ({k: v for k, v in unit().items() if k != "confidence"}, "missing field"),
    (unit(importance=1.5), "outside"),
    (unit(confidence=-0.1), "outside"),
    (unit(importance=float("nan")), "not a number"),
    (unit(importance=True), "must be a number"),
    (unit(importance="0.8"), "must be a number"),
    (unit(type_="opinion"), "type"),
    (unit(text=""), "non-empty"),
    (unit(entity=3), "entity"),
    (["not", "an", "object"], "object"),
])
def test_invalid_units_are_rejected_with_a_reason(raw: object, reason: str) -> None:
    with pytest.raises(UnitRejected, match=reason):
        validate_unit(raw)


def test_a_valid_unit_is_kept_exactly() -> None:
    u = validate_unit(unit(importance=0.0, confidence=1))
    assert (u.importance, u.confidence, u.value) == (0.0, 1.0, "Python")


# -- Ollama through the official client, against a fake server --------------------------
def ollama(fake: FakeOllama, **kw: object) -> OllamaExtractor:
    return OllamaExtractor(fake.host, "test-model", **kw)  # type: ignore[arg-type]


def test_ollama_request_follows_the_contract() -> None:
    with FakeOllama([units(unit())]) as fake:
        out = ollama(fake).extract(Turn("I prefer Python.", "u", "s", "tech"))
    [req] = fake.requests
    assert req["path"] == "/api/chat" and req["model"] == "test-model"
    assert req["format"] == REPLY_SCHEMA and req["stream"] is False
    assert req["options"] == {"temperature": 0}  # the same turn extracts the same way
    system, user = req["messages"]
    assert system["content"] == SYSTEM_PROMPT and "I prefer Python." in user["content"]
    assert "Topic: tech" in user["content"]
    # the checklist's prompt items: both scores, the empty answer, low-confidence framing
    assert '"importance"' in SYSTEM_PROMPT and '"confidence"' in SYSTEM_PROMPT
    assert '{"memories": []}' in SYSTEM_PROMPT and "0.3 or less" in SYSTEM_PROMPT
    assert out.extractor == "ollama" and out.model == "test-model"
    assert out.units == [validate_unit(unit())]


def test_ollama_empty_answer_is_valid() -> None:
    with FakeOllama([Reply('{"memories": []}')]) as fake:
        out = ollama(fake).extract(Turn("Thanks, that's helpful!", "u"))
    assert out.units == [] and out.notes == []


def test_ollama_low_confidence_hypothetical_is_kept_as_given() -> None:
    doctor = unit("The user asked what if they were a doctor.", "fact", 0.2, 0.2,
                  "user", "is_a", "doctor")
    with FakeOllama([units(doctor)]) as fake:
        [u] = ollama(fake).extract(Turn("What if I were a doctor?", "u")).units
    assert u.confidence == 0.2


def test_ollama_bad_units_are_rejected_not_clamped() -> None:
    good = unit("The user works at Acme.", "fact", 0.7, 0.9, "user", "works_at", "Acme")
    with FakeOllama([units(good, unit(importance=1.7), {"text": "no scores"})]) as fake:
        out = ollama(fake).extract(Turn("I work at Acme.", "u"))
    assert [u.value for u in out.units] == ["Acme"]
    assert any("unit 2" in n and "outside [0, 1]" in n for n in out.notes)
    assert any("unit 3" in n and "missing field" in n for n in out.notes)


def test_ollama_more_than_five_keeps_the_five_most_important() -> None:
    many = [unit(f"Memory {i}.", importance=i / 10) for i in range(8)]
    with FakeOllama([units(*many)]) as fake:
        out = ollama(fake).extract(Turn("a long turn", "u"))
    assert [u.text for u in out.units] == [f"Memory {i}." for i in (3, 4, 5, 6, 7)]


def test_ollama_bare_array_reply_is_accepted() -> None:
    with FakeOllama([Reply(json.dumps([unit()]))]) as fake:
        assert len(ollama(fake).extract(Turn("I prefer Python.", "u")).units) == 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BAD_REPLIES = [
    (Reply("this is not json"), "not valid JSON"),
    (Reply('{"memories": [{"text": "x", "type": "fact", "importance": NaN, "confidence": 0.5,'
           ' "entity": null, "attribute": null, "value": null}]}'), "NaN is not valid JSON"),
    (Reply('{"answer": 42}'), "not {\"memories\""),
    (Reply(raw=b"<html>proxy error</html>"), "Ollama"),
    (Reply(status=404, error="model 'test-model' not found, try pulling it first"),
     "has no model 'test-model'"),
    (Reply(status=500, error="out of memory"), "refused the request: out of memory"),
    (Reply(delay=5.0), "did not answer within 0.5 s"),
    (units(unit(importance=2.0)), "every unit the model returned was invalid"),
]


@pytest.mark.parametrize(("reply", "message"), BAD_REPLIES)
def test_ollama_failures_are_readable_errors(reply: Reply, message: str) -> None:
    with FakeOllama([reply]) as fake, pytest.raises(ExtractionError, match=message) as info:
        ollama(fake, timeout=0.5).extract(Turn("I use vim", "u"))
    assert "Traceback" not in str(info.value)


def test_connection_refused_is_a_readable_error() -> None:
    host = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(ExtractionError, match="no Ollama server answers"):
        OllamaExtractor(host, "m", timeout=2).extract(Turn("I use vim", "u"))


@pytest.mark.parametrize(("reply", "message"), BAD_REPLIES)
def test_fallback_runs_the_heuristic_and_notes_why(reply: Reply, message: str) -> None:
    with FakeOllama([reply]) as fake:
        out = FallbackExtractor(ollama(fake, timeout=0.5)).extract(
            Turn("What if I were a doctor?", "u"))
    assert out.extractor == "heuristic" and out.model is None
    assert out.notes[0].startswith("ollama failed:") and message.split()[0] in out.notes[0]
    [u] = out.units
    assert u.confidence <= 0.3  # the offline answer is honest too


def test_make_extractor_honours_offline_and_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    assert make_extractor(ExtractorConfig(offline=True)).name == "heuristic"
    assert isinstance(make_extractor(ExtractorConfig()), FallbackExtractor)
    assert isinstance(make_extractor(ExtractorConfig(fallback=False)), OllamaExtractor)
    monkeypatch.setenv("MEMDESK_OLLAMA_HOST", "http://envhost:1")
    monkeypatch.setenv("MEMDESK_OLLAMA_MODEL", "envmodel")
    cfg = ExtractorConfig.from_env()
    assert (cfg.host, cfg.model) == ("http://envhost:1", "envmodel")
    cfg = ExtractorConfig.from_env(host="http://flag:2", model="flagmodel")
    assert (cfg.host, cfg.model) == ("http://flag:2", "flagmodel")
