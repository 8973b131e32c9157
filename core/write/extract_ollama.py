"""Extraction through a local Ollama server, with the official ``ollama`` client.

The reply is constrained by a JSON schema (``format=``) and then checked field by field
anyway (:func:`memdesk.core.write.units.validate_unit`): a model can ignore a schema, a
server can be an older one.  Units with a missing or out-of-range field are rejected
with the reason noted; NaN or Infinity make the whole reply malformed (they are not
JSON), as does anything that is not the documented shape.  Every failure to get a
usable answer raises :class:`ExtractionError` with a sentence for the operator.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NoReturn

from memdesk.core.write.units import (
    MAX_UNITS,
    Extraction,
    ExtractionError,
    Turn,
    Unit,
    UnitRejected,
    top_units,
    validate_unit,
)

if TYPE_CHECKING:
    import ollama

NAME = "ollama"
DEFAULT_HOST = "http://localhost:11434"
DEFAULT_MODEL = "llama3.2"
DEFAULT_TIMEOUT_S = 60.0

# Our prompt, written to the write-phase design's extraction contract: separate importance and
# confidence, an explicit empty answer, low confidence for framing that is not assertion.
SYSTEM_PROMPT = """\
You turn one turn of a conversation between a user and an AI assistant into long-term \
memories about the user. Most turns contain nothing worth remembering.

Answer with a JSON object {"memories": [...]} holding 0 to 5 memories. Each memory has:
- "text": one or two self-contained sentences in the third person ("The user prefers \
Python for backend work"), readable without the conversation.
- "type": "preference" (likes, dislikes, settings, how the assistant should behave), \
"fact" (true information about the user), "decision" (a choice the user or their team \
made), "procedure" (steps or a routine the user follows) or "correction" (the user \
corrects something said or believed before).
- "importance": 0.0-1.0, how much this matters in future conversations. 0.8-1.0: stated \
preferences, corrections, health and safety facts; 0.5-0.8: facts offered in context; \
0.2-0.5: mentioned in passing.
- "confidence": 0.0-1.0, how sure you are the statement is literally true of the user \
from what was said. Direct statements: 0.8-0.95. Hypotheticals, role-play, jokes, \
"what if I were", "imagine I", "I'm basically a", framing used to ask for something: \
0.3 or less.
- "entity", "attribute", "value": the subject, property and value of a fact or \
preference, e.g. "user", "works_at", "Acme Corp"; null when the memory is not such a \
triple (most decisions and procedures). They must agree with "text". The attribute \
names what the value is about ("prefers_editor", "prefers_theme", "prefers_language", \
"diet", "allergic_to", "occupation"), never a bare "prefers": a correction replaces \
every memory with the same entity and attribute. About another person ("my wife is \
vegetarian", "my daughter Emma is 7") the entity is that person ("wife", "Emma"), not \
"user". A correction keeps the entity and attribute of what it corrects.

Return {"memories": []} for greetings, thanks, acknowledgements, small talk, sarcasm, \
questions, and passing states ("I'm tired today"). Never invent what was not said."""

UNIT_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "type": {"type": "string",
                 "enum": ["preference", "fact", "decision", "procedure", "correction"]},
        "importance": {"type": "number", "minimum": 0, "maximum": 1},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "entity": {"type": ["string", "null"]},
        "attribute": {"type": ["string", "null"]},
        "value": {"type": ["string", "null"]},
    },
    "required": ["text", "type", "importance", "confidence", "entity", "attribute", "value"],
}
REPLY_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {"memories": {"type": "array", "items": UNIT_SCHEMA,
                                "maxItems": MAX_UNITS}},
    "required": ["memories"],
}


def _no_constants(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def parse_reply(content: str) -> list[object]:
    """The list of raw units in a reply, or ExtractionError when it is malformed."""
    try:
        data = json.loads(content, parse_constant=_no_constants)
    except (ValueError, TypeError) as exc:
        raise ExtractionError(f"the model's reply is not valid JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(memories := data.get("memories"), list):
        return memories
    if isinstance(data, list):  # the contract's bare array, from a model ignoring format=
        return data
    raise ExtractionError("the model's reply is JSON but not {\"memories\": [...]}")


def user_message(turn: Turn) -> str:
    topic = turn.topic or "(none given)"
    return f"Topic: {topic}\n\nTurn:\n{turn.text}"


class OllamaExtractor:
    """Asks an Ollama model for units; raises ExtractionError when it cannot answer."""

    name = NAME

    def __init__(self, host: str | None = None, model: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self.host = host or DEFAULT_HOST
        self.model = model or DEFAULT_MODEL
        self.timeout = timeout
        self._client: ollama.Client | None = None

    def _chat(self, turn: Turn) -> str:
        import httpx
        import ollama  # lazily: the client pulls in httpx and pydantic

        if self._client is None:
            self._client = ollama.Client(host=self.host, timeout=self.timeout)
        try:
            reply = self._client.chat(
                model=self.model,
                messages=[{"role": "system", "content": SYSTEM_PROMPT},
                          {"role": "user", "content": user_message(turn)}],
                format=REPLY_SCHEMA,
                options={"temperature": 0},
            )
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise ExtractionError(
                    f"Ollama at {self.host} has no model {self.model!r} "
                    f"(run `ollama pull {self.model}` there, or choose another model)"
                ) from None
            raise ExtractionError(f"Ollama at {self.host} refused the request: {exc}") from None
        except ConnectionError:
            raise ExtractionError(f"no Ollama server answers at {self.host}") from None
        except httpx.TimeoutException:
            raise ExtractionError(
                f"Ollama at {self.host} did not answer within {self.timeout:g} s"
            ) from None
        except (httpx.HTTPError, ValueError) as exc:  # transport errors, unparseable bodies
            raise ExtractionError(f"talking to Ollama at {self.host} failed: {exc}") from None
        content = getattr(getattr(reply, "message", None), "content", None)
        if not isinstance(content, str):
            raise ExtractionError("Ollama's reply has no message content")
        return content

    def extract(self, turn: Turn) -> Extraction:
        raws = parse_reply(self._chat(turn))
        notes: list[str] = []
        units: list[Unit] = []
        for i, raw in enumerate(raws, 1):
            try:
                units.append(validate_unit(raw))
            except UnitRejected as exc:
                notes.append(f"rejected unit {i}: {exc}")
        if raws and not units:
            raise ExtractionError(
                f"every unit the model returned was invalid ({'; '.join(notes)})"
            )
        return Extraction(top_units(units, notes), NAME, self.model, notes)
