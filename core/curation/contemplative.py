"""Contemplative-pattern hints for revaluation sweeps (the V4 retriever proposal, change 4 option
A).

The V4 retriever proposal found foundational memories ("chose not to force it", "sat with
heaviness")
recorded at importance 0.3 because the write-time scorer rewards drama.  Option A
(boost +0.2 on keywords) was rejected as fragile; here the same patterns only *flag* a
memory during a sweep, saying which pattern matched and where, and never change it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# (label shown to the operator, pattern).  Word boundaries so "practiced" does not
# match inside other words; case-insensitive; tolerant of extra whitespace.
PATTERNS: tuple[tuple[str, str], ...] = (
    ("chose not to", r"\bchose\s+not\s+to\b"),
    ("sat with", r"\bsat\s+with\b"),
    ("practiced", r"\bpractic(?:ed|ing|e)\b"),
    ("honestly", r"\bhonest(?:ly)?\b"),
    ("for the first time", r"\bfor\s+the\s+first\s+time\b"),
)
_COMPILED = tuple((label, re.compile(rx, re.IGNORECASE)) for label, rx in PATTERNS)

OPTION_A_BOOST = 0.2  # the V4 retriever proposal's proposed write-time boost, shown as a hint only


@dataclass(frozen=True)
class PatternMatch:
    label: str
    start: int
    end: int
    excerpt: str  # the matched words with a little context


@dataclass(frozen=True)
class ContemplativeHint:
    matches: tuple[PatternMatch, ...]
    importance: float

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.label for m in self.matches))

    @property
    def option_a(self) -> float:
        """What the V4 retriever proposal's option A would have set (importance + 0.2, capped at
        1)."""
        return round(min(1.0, self.importance + OPTION_A_BOOST), 2)

    def explain(self) -> str:
        pats = ", ".join(f'"{label}"' for label in self.labels)
        quote = self.matches[0].excerpt
        return (
            f"Contemplative pattern {pats} matched in “{quote}”. The write-time boost "
            f"proposed for such memories (+{OPTION_A_BOOST:.1f}) would raise this to "
            f"{self.option_a:.2f}; a hint only, your call."
        )


def _excerpt(text: str, start: int, end: int, pad: int = 30) -> str:
    """The match with about ``pad`` characters either side, cut at word boundaries."""
    lo = max(0, start - pad)
    hi = min(len(text), end + pad)
    while lo > 0 and not text[lo - 1].isspace():
        lo -= 1
    while hi < len(text) and not text[hi].isspace():
        hi += 1
    return " ".join(text[lo:hi].split())


def contemplative_hint(text: str, importance: float) -> ContemplativeHint | None:
    """The patterns ``text`` matches (None when it matches none)."""
    found: list[PatternMatch] = []
    for label, rx in _COMPILED:
        for m in rx.finditer(text):
            excerpt = _excerpt(text, m.start(), m.end())
            found.append(PatternMatch(label, m.start(), m.end(), excerpt))
    if not found:
        return None
    found.sort(key=lambda m: m.start)
    return ContemplativeHint(tuple(found), importance)
