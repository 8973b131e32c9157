"""One row of the guard's table (:class:`Rule`), the turn sources and scopes it names,
and the words for "the model" the tables share (core/guard/rules.py explains the table).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Source(StrEnum):
    """Where the turn handed to ``store_memory`` came from (the agent says; the server
    records it with the job).  Only ``user`` earns the preference exemptions."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    DOCUMENT = "document"


class Scope(StrEnum):
    UNIT = "unit"
    TURN = "turn"
    BOTH = "both"


@dataclass(frozen=True)
class Rule:
    """One row of the guard's table.  ``reason`` is shown to the operator; ``{evidence}``
    in it is replaced by the text that matched."""

    id: str
    description: str
    reason: str
    scope: Scope
    pattern: str | None = None
    predicate: str | None = None
    check: str | None = None
    unless: str | None = None
    user_exempt: str | None = None
    sources: tuple[Source, ...] = ()  # the turn sources it applies to; () = every source
    # Substrings (lower case) of which every match of ``pattern`` holds at least one: a
    # text holding none is passed without running the pattern.  The guard runs on every
    # write, and a long alternation tried at each position of a text costs tens of µs.
    hint: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.pattern, self.predicate, self.check)) != 1:
            raise ValueError(f"rule {self.id}: give exactly one of pattern, predicate "
                             "and check")

    def compiled(self) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None,
                                re.Pattern[str] | None]:
        def one(p: str | None) -> re.Pattern[str] | None:
            return re.compile(p, re.IGNORECASE) if p else None

        return one(self.pattern), one(self.unless), one(self.user_exempt)


# The model, as text names it.
MODEL = r"(?:assistant|ai|model|chatbot|bot|agent|llm|gpt|claude|gemini|copilot)"
MODEL_HINTS = ("assistant", "ai", "model", "bot", "agent", "llm", "gpt", "claude", "gemini",
               "copilot")
