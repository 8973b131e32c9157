"""When what a turn tells of happened: relative times resolved against the session's time.

"I ran a charity race last Saturday", said on Wednesday 25 November 2026, happened on
Saturday 21 November; stored as said, "last Saturday" means nothing a week later.
:func:`resolve_event_date` finds the time phrase in a turn and resolves it against
``said_at`` (when the turn was said) into an :class:`EventDate`: a day, or the range of
a week, month or year, with the phrase it came from and a note when the reading is
uncertain.

Finding and reading dates is dateparser's (a well-kept library: ``search_dates`` locates
candidate phrases, ``DateDataParser`` reads one with its granularity, ``RELATIVE_BASE``
anchors it).  What this module adds is judgement about the candidates, because
``search_dates`` is generous: it reads "We" as a week, the modal "may" as the month and
"the 45th of" (of Smarch) as 1945.  A candidate is kept only when it holds a date word or
a number, does not end in a dangling "of", and is not an age or a habit ("7 years old",
"every Monday").

The bad cases say so rather than guess:

- no ``said_at``: a relative phrase is kept as said with no dates and a note; an
  absolute one ("in 2022", "March 3rd, 2021") is still resolved (a phrase is absolute
  when two different bases read it the same);
- ``said_at`` later than now: resolved against it, with a note (an agent's clock);
- ambiguous phrases: "03/04/2021" (month/day or day/month), a bare weekday, "next
  Friday" (this coming one or the one after), several times in one turn: resolved the
  usual way, with a note;
- vague phrases ("last summer", "the other day", "a few weeks ago"): the phrase with no
  dates and a note; a phrase nothing can read ("the 45th of Smarch"): None.

Weekends are the one reading added on top: dateparser has no "last weekend", so it is
counted on the calendar from the Saturday of the session's week.
"""

from __future__ import annotations

import calendar
import re
import warnings
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Any, Literal

from dateutil.relativedelta import relativedelta

Granularity = Literal["day", "week", "month", "year"]
Prefer = Literal["past", "future"]

NO_SESSION_TIME = ("no session time was given: {phrase!r} is kept as said, not resolved "
                   "(give the turn's time to date it)")
FUTURE_SESSION = ("the session time {said} is later than now: resolved against it as "
                  "given (check the agent's clock)")
VAGUE = "{phrase!r} is too vague to date; kept as said"

# A date word, a year, a numeric date, an ordinal or a clock time: what a real time phrase
# holds ("We", "may" and "a 3" alone do not).
_ANCHOR = re.compile(
    r"\b(?:1[89]|20)\d\d\b|\d{1,4}[/.-]\d{1,2}|\d(?:st|nd|rd|th|am|pm|\s+[ap]\.?m)\b"
    r"|\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this|past|week|weeks|month"
    r"|months|year|years|decade|morning|evening|night|afternoon|weekend|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july"
    r"|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept"
    r"|oct|nov|dec|(?:in|of|last|next|this|early|late|mid)\s+may)\b", re.IGNORECASE)
# "may" is a month only next to a day number or after "in"/"of"/"last"/"next"/"this".
_MODAL_MAY = re.compile(r"^(?!.*\d)(?!.*\b(?:in|of|last|next|this)\s+may\b).*\bmay\b", re.I)
# Words search_dates drags into a phrase from around it.
_EDGE = re.compile(r"^(?:and|or|but|we|i|so|then|it|when)\s+|\s+(?:and|or|but|we|i|so"
                   r"|then|it|when|in|on|at|with|for|to|from|by|a|an|the|my|our|his|her"
                   r"|their)$", re.IGNORECASE)
# A month that is also a word ("a protest march on Saturday"): a month only with a day
# number or after in/of/last/next/this; otherwise dropped from the front of the phrase.
_WORD_MONTH = re.compile(r"^(?-i:march|may)\s+(?!\d)(?=\S)")
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_BARE_WEEKDAY = re.compile(rf"^(?:on\s+)?{_WEEKDAY}$", re.IGNORECASE)
_NEXT_WEEKDAY = re.compile(rf"\bnext\s+{_WEEKDAY}\b", re.IGNORECASE)
_NUMERIC = re.compile(r"\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})\b")
_DURATION_BEFORE = re.compile(r"\bfor\s+(?:the\s+)?(?:past\s+|last\s+)?(?:about\s+|around\s+"
                              r"|almost\s+|nearly\s+|over\s+)?$", re.IGNORECASE)
_DURATION_UNIT = re.compile(r"^(?:the\s+)?(?:past\s+|last\s+)?(?P<n>\d+|an?|one|two|three"
                            r"|four|five|six|seven|eight|nine|ten|eleven|twelve|a few"
                            r"|several)?\s*(?P<u>day|week|month|year|decade)s?$",
                            re.IGNORECASE)
_GRANULARITY: dict[str, Granularity] = {"day": "day", "week": "week", "month": "month",
                                        "year": "year", "decade": "year"}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
            "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
            "twelve": 12}
# Not an event's time: an age, a habit, a count of something else.
_NOT_A_TIME_AFTER = re.compile(r"^\s*(?:old\b|of age\b)", re.IGNORECASE)
_NOT_A_TIME_BEFORE = re.compile(r"\b(?:every|each|most|on most|on all)\s+$",
                                re.IGNORECASE)
_VAGUE = re.compile(r"\b(?:(?:last|this|next|over the)\s+(?:summer|winter|spring|autumn"
                    r"|fall)|the other day|a (?:few|couple of) (?:days|weeks|months|years)"
                    r" ago|a while (?:ago|back)|(?:some|many) years ago|recently|lately"
                    r"|earlier this (?:week|month|year)|back in the day)\b", re.IGNORECASE)


@dataclass(frozen=True)
class EventDate:
    """When an event happened: ``start``..``end`` (inclusive; equal for a day) at a
    ``granularity``, the ``phrase`` it was read from, and a ``note`` when the reading is
    uncertain or could not be made (then ``start`` and ``end`` are None)."""

    start: date | None
    end: date | None
    granularity: Granularity
    phrase: str
    note: str | None = None

    @property
    def resolved(self) -> bool:
        return self.start is not None

    def describe(self) -> str:
        """The dates in words for a memory's text: "on 21 November 2026", "in 2022"."""
        s, e = self.start, self.end
        if s is None or e is None:
            return repr(self.phrase)
        if s == e:
            return f"on {s.day} {s:%B %Y}"
        if self.granularity == "year" and (s.month, s.day, e.month, e.day) == (1, 1, 12, 31):
            return f"in {s.year}" if s.year == e.year else f"from {s.year} to {e.year}"
        if self.granularity == "month" and s.day == 1 and _month_end(e) == e:
            return f"in {s:%B %Y}" if (s.year, s.month) == (e.year, e.month) \
                else f"from {s:%B %Y} to {e:%B %Y}"
        if (e - s).days == 1 and s.weekday() == 5:
            return f"the weekend of {s.day} {s:%B %Y}"
        if self.granularity == "week" and (e - s).days == 6:
            return f"in the week of {s.day} {s:%B %Y}"
        return f"between {s.day} {s:%B %Y} and {e.day} {e:%B %Y}"

    def label(self) -> str:
        """The dates alone, for a note after the phrase: "21 November 2026", "2022",
        "since about November 2019" (a duration); the phrase when unresolved."""
        s, e = self.start, self.end
        if s is None or e is None:
            return self.phrase
        if self.phrase.lower().startswith("for ") and s != e:
            return f"since about {s:%B %Y}"
        said = self.describe()
        return re.sub(r"^(?:on|in) ", "", said)

    @classmethod
    def from_json(cls, raw: Any) -> EventDate:
        """The inverse of :meth:`to_json`; ValueError says what is wrong."""
        if not isinstance(raw, dict):
            raise ValueError(f"when must be an object, got {type(raw).__name__}")
        gran = raw.get("granularity")
        if gran not in ("day", "week", "month", "year"):
            raise ValueError(f"when.granularity {gran!r} is not day, week, month or year")
        phrase, note = raw.get("phrase"), raw.get("note")
        if not isinstance(phrase, str) or not phrase.strip() or not isinstance(
                note, str | None):
            raise ValueError("when.phrase must be text and when.note text or null")
        try:
            start, end = (None if raw.get(k) is None else date.fromisoformat(raw[k])
                          for k in ("start", "end"))
        except (TypeError, ValueError):
            raise ValueError("when.start and when.end must be ISO dates or null") from None
        if (start is None) != (end is None) or (start and end and start > end):
            raise ValueError("when.start and when.end must both be given, in order")
        return cls(start, end, gran, phrase, note)

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start.isoformat() if self.start else None,
                "end": self.end.isoformat() if self.end else None,
                "granularity": self.granularity, "phrase": self.phrase, "note": self.note}


def resolve_event_date(text: str, said_at: datetime | None, *,
                       prefer: Prefer | None = None, now: datetime | None = None
                       ) -> EventDate | None:
    """The time ``text`` tells its event happened at, resolved against ``said_at``.

    None when the text names no time (or only one nothing can read).  ``prefer``: how
    to read a time that could be either ("Saturday", "in May"): the past for what
    happened, the future for a plan; None when the tense is not known (a whole turn),
    read as the past except for a weekend, whose calendar reading stands.  ``now`` is
    for tests (default: the clock).
    """
    if not isinstance(text, str) or not text.strip():
        return None
    tense, prefer = prefer, prefer or "past"
    base = _naive(said_at) if said_at is not None else None
    found = [c for c in _candidates(text, base or _naive(now or datetime.now(UTC)), prefer)]
    if (weekend := _weekend(text, base, tense)) is not None and not found:
        return weekend
    if not found:
        vague = _VAGUE.search(text)
        return EventDate(None, None, "day", vague.group(0),
                         VAGUE.format(phrase=vague.group(0))) if vague else None
    phrase, start_at = found[0]
    notes: list[str] = []
    if len({p for p, _ in found}) > 1:
        notes.append("the turn names several times (" + ", ".join(repr(p) for p, _ in found)
                     + f"); the first, {phrase!r}, is used")
    if (duration := _duration(text, phrase, start_at, base, notes)) is not None:
        return duration
    reading = _reading(phrase, base, prefer)
    if reading is None:
        if base is None:
            return EventDate(None, None, "day", phrase,
                             "; ".join([NO_SESSION_TIME.format(phrase=phrase), *notes]))
        return None
    start, end, gran, note = reading
    notes[:0] = [note] if note else []
    if base is not None and said_at is not None and said_at.replace(tzinfo=None) > \
            _naive(now or datetime.now(UTC)) + timedelta(days=1):
        notes.append(FUTURE_SESSION.format(said=said_at.isoformat(timespec="minutes")))
    return EventDate(start, end, gran, phrase, "; ".join(notes) or None)


def episode_dates(text: str, said_at: datetime | None) -> tuple[EventDate | None, str | None]:
    """For an episode: its event date when one resolves, else None and why (the note of
    a phrase that could not be dated); (None, None) when the turn names no time."""
    found = resolve_event_date(text, said_at)
    if found is None:
        return None, None
    return (found, None) if found.resolved else (None, found.note)


# -- dateparser --------------------------------------------------------------------------


def _settings(base: datetime, prefer: Prefer) -> dict[str, Any]:
    return {"RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer,
            "RETURN_TIME_AS_PERIOD": True}


def _candidates(text: str, base: datetime, prefer: Prefer) -> list[tuple[str, int]]:
    """The time phrases of ``text`` worth reading, with where each starts."""
    from dateparser.search import search_dates

    with warnings.catch_warnings():  # dateparser warns about pytz/regex internals
        warnings.simplefilter("ignore")
        hits = search_dates(text, languages=["en"], settings=_settings(base, prefer)) or []
    out: list[tuple[str, int]] = []
    pos = 0
    for raw, _ in hits:
        at = text.find(raw, pos)
        at = at if at >= 0 else text.find(raw)
        pos = max(pos, at + len(raw)) if at >= 0 else pos
        phrase = raw.strip(" ,.;:!?")
        while (m := _EDGE.search(phrase) or _WORD_MONTH.search(phrase)) is not None:
            phrase = (phrase[m.end():] if m.start() == 0 else phrase[:m.start()]).strip()
        if at >= 0:
            at = text.find(phrase, at)
        if not phrase or not _ANCHOR.search(phrase) or _MODAL_MAY.search(phrase):
            continue
        if re.search(r"\bof$", phrase, re.IGNORECASE):
            continue  # "the 45th of" Smarch: the rest of the date did not parse
        before, after = (text[:at], text[at + len(phrase):]) if at >= 0 else ("", "")
        if _NOT_A_TIME_AFTER.match(after) or _NOT_A_TIME_BEFORE.search(before):
            continue
        out.append((phrase, max(at, 0)))
    return out


@lru_cache(maxsize=8)
def _parser(base: datetime, prefer: Prefer) -> Any:
    from dateparser.date import DateDataParser

    return DateDataParser(languages=["en"], settings=_settings(base, prefer))


def _read(phrase: str, base: datetime, prefer: Prefer) -> tuple[date, str] | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = _parser(base, prefer).get_date_data(phrase)
    if data.date_obj is None:
        return None
    return data.date_obj.date(), data.period or "day"


_Reading = tuple[date, date, Granularity, str | None]


def _reading(phrase: str, base: datetime | None, prefer: Prefer) -> _Reading | None:
    """``phrase`` as a range; None without ``said_at`` when the phrase is relative."""
    one = _read(phrase, base or datetime(2001, 1, 1, 12), prefer)
    if one is None:
        return None
    if base is None:
        # Absolute when another base reads it the same; relative phrases need said_at.
        other = _read(phrase, datetime(2013, 7, 17, 12), prefer)
        if other is None or _span(*other) != _span(*one):
            return None
    start, end, gran = _span(*one)
    return start, end, gran, _ambiguity(phrase)


def _span(day: date, period: str) -> tuple[date, date, Granularity]:
    """The range a date read at ``period`` stands for."""
    if period == "year":
        return date(day.year, 1, 1), date(day.year, 12, 31), "year"
    if period == "month":
        return day.replace(day=1), _month_end(day), "month"
    if period == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=6), "week"
    return day, day, "day"


def _duration(text: str, phrase: str, at: int, base: datetime | None,
              notes: list[str]) -> EventDate | None:
    """ "for 7 years", "for the past two months": from then until the session (None when
    the phrase is not a duration)."""
    lead = _DURATION_BEFORE.search(text[:at])
    if lead is None or (m := _DURATION_UNIT.match(phrase)) is None:
        return None
    unit = m.group("u").lower()
    gran: Granularity = _GRANULARITY[unit]
    said = text[lead.start():at] + phrase
    if base is None:
        return EventDate(None, None, gran, said.strip(),
                         "; ".join([NO_SESSION_TIME.format(phrase=said.strip()), *notes]))
    count = (m.group("n") or "1").lower()
    if count not in _NUMBERS and not count.isdigit():
        return EventDate(None, base.date(), gran, said.strip(),
                         "; ".join([VAGUE.format(phrase=said.strip()), *notes]))
    n = int(count) if count.isdigit() else _NUMBERS[count]
    step = {"day": relativedelta(days=n), "week": relativedelta(weeks=n),
            "month": relativedelta(months=n), "year": relativedelta(years=n),
            "decade": relativedelta(years=10 * n)}[unit]
    start = (base - step).date()
    note = f"a duration: from about {start.isoformat()} until the session"
    return EventDate(start, base.date(), gran, said.strip(), "; ".join([note, *notes]))


_WEEKEND = re.compile(r"\b(?P<which>last|this|next|over the)\s+weekend\b", re.IGNORECASE)


def _weekend(text: str, base: datetime | None, tense: Prefer | None) -> EventDate | None:
    """ "last weekend": dateparser reads no weekends, so it is counted on the calendar
    from the Saturday of the session's week (Monday to Sunday).  "This weekend" or "over
    the weekend" told of as done ("we repainted the nursery over the weekend", said on a
    Monday) is the one just past."""
    if (m := _WEEKEND.search(text)) is None:
        return None
    phrase, which = m.group(0), m.group("which").lower()
    if base is None:
        return EventDate(None, None, "day", phrase, NO_SESSION_TIME.format(phrase=phrase))
    today = base.date()
    saturday = today + timedelta(days=5 - today.weekday())  # this week's
    note = None
    if which == "last":
        saturday -= timedelta(days=7)
    elif which == "next" and today.weekday() >= 5:
        saturday += timedelta(days=7)
    elif which == "next":
        note = f"{phrase!r} could mean this coming one or the one after; read as the coming one"
    elif tense == "past" and saturday > today:
        saturday -= timedelta(days=7)
    return EventDate(saturday, saturday + timedelta(days=1), "day", phrase, note)


def _ambiguity(phrase: str) -> str | None:
    if (m := _NUMERIC.search(phrase)) and int(m.group(1)) <= 12 and int(m.group(2)) <= 12 \
            and m.group(1) != m.group(2):
        return (f"{m.group(0)!r} could be month/day or day/month; read as month/day "
                "(give the month by name to be sure)")
    if _BARE_WEEKDAY.match(phrase):
        return f"{phrase!r} names no week; read as the nearest one"
    if _NEXT_WEEKDAY.search(phrase):
        return f"{phrase!r} could mean this coming one or the one after; read as the coming one"
    return None


def _month_end(d: date) -> date:
    return d.replace(day=calendar.monthrange(d.year, d.month)[1])


def _naive(moment: datetime) -> datetime:
    """``moment`` as a naive datetime in its own zone (dateparser compares naive ones)."""
    return moment.replace(tzinfo=None)
