"""The demo's conversations: turns kept as said (episodes), as the write path keeps them.

Every hand-shaped demo user has three sessions with its agent: one months ago where the
user says where they live and which test framework they use, one twelve days later
where they correct the agent ("No, I use pytest not unittest.") and mention a release,
and one a few days before the end about a charity run.  The user's turns that carry a
memory link to the demo's own rows of that memory (``memory_provenance.episode_id``:
"User lives in Lisbon." came from "I live in Lisbon now, moved there last Saturday."),
so every episode view of the desk has real turns, speakers, session times and event
dates to show; the assistant's replies and the small talk yield no unit.

What makes them worth curating: the old sessions' replies were never recalled and keep
no unit, so "Prune old episodes" finds them; the unittest turn's only unit is
superseded, so it is prunable too; some turns were recalled, so "include recalled"
changes the figure.  Event dates come from the write path's own resolver
(core/write/when.py) against the session time, so a vague phrase ("the other day")
gets the note the worker would keep.  A separate seeded RNG draws them, so adding them
changes none of the demo's other rows.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from memdesk.core.demo.texts import PROJECTS, proj
from memdesk.core.write.episodes import EPISODE_CONFIDENCE, EPISODE_IMPORTANCE, VERBATIM, dedup_key
from memdesk.core.write.units import Turn
from memdesk.core.write.when import episode_dates

ASSISTANT = "assistant"
EXTRACTOR = "demo"  # the "Extracted by" of a demo unit that came from a turn
IMPORTANCE, CONFIDENCE = EPISODE_IMPORTANCE, EPISODE_CONFIDENCE
# When the user moved, as they put it: a day, a week, a month, a vague one (a note).
MOVED = ("last Saturday", "two weeks ago", "in March", "the other day", "yesterday",
         "last month", "three days ago", "last weekend")
SHIPPED = ("on Monday", "last week", "yesterday", "two days ago", "last Friday",
           "this morning", "a few weeks ago", "on the 3rd")
RAN = ("last Saturday", "yesterday", "last weekend", "on Sunday", "two days ago",
       "last Saturday", "yesterday", "last weekend")


@dataclass(frozen=True)
class Said:
    """One turn of a demo conversation (``unit``: the key of the scenario row it
    yields, or None)."""

    speaker: str
    text: str
    at: datetime
    topic: str
    unit: str | None = None
    recalled: int = 0  # how often a retrieval returned it


def script(user: str, i: int, city: str, base: datetime, end: datetime) -> list[Said]:
    """The turns of user ``i``'s three sessions (``base``: the user's first session)."""
    name = user[:1].upper() + user[1:]
    project = proj(PROJECTS[i % len(PROJECTS)])
    pick = i % len(MOVED)
    fix = base + timedelta(days=12)
    run = end - timedelta(days=2 + i % 4, hours=5)
    return [
        Said(name, "For tests I mostly reach for unittest, out of habit.",
             base + timedelta(hours=1), "tech", unit="tests"),
        Said(ASSISTANT, "Noted: unittest for your tests.",
             base + timedelta(hours=1, minutes=1), "tech"),
        Said(name, f"I live in {city} now, moved there {MOVED[pick]}.",
             base + timedelta(hours=3), "personal", unit="lives"),
        Said(ASSISTANT, f"Good to know, I'll keep {city} in mind for anything local.",
             base + timedelta(hours=3, minutes=1), "personal"),
        Said(name, "No, I use pytest not unittest. Please remember that.", fix, "tech",
             unit="correction"),
        Said(ASSISTANT, "Understood: pytest from now on, sorry for the mix-up.",
             fix + timedelta(minutes=1), "tech"),
        Said(name, f"We shipped the {project} release {SHIPPED[pick]}, finally.",
             fix + timedelta(minutes=6), "work", recalled=2 if i % 2 == 0 else 0),
        Said(ASSISTANT, f"Congratulations on {project}! Anything to follow up on?",
             fix + timedelta(minutes=7), "work"),
        Said(name, f"I ran a charity 10k {RAN[pick]}, my knees still hurt.", run,
             "health", recalled=1 if i % 3 == 0 else 0),
        Said(ASSISTANT, "Well done! Rest up and stretch before the next one.",
             run + timedelta(minutes=1), "health"),
    ]


def _day(d: date | None) -> datetime | None:
    return None if d is None else datetime.combine(d, time())


class Episodes:
    """The side rows of the demo's episodes and the links from their units, collected
    while the rows are generated and written once the rows they name are in."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed * 7919 + 17)  # apart from the demo's own draws
        self.side: dict[str, dict[str, Any]] = {}  # episode id -> its ``episodes`` row
        self.links: dict[str, str] = {}  # unit id -> episode id

    def new_id(self) -> str:
        return f"{self.rng.getrandbits(128):032x}"

    def add(self, episode_id: str, user: str, session: str, said: Said,
            unit_id: str | None) -> None:
        turn = Turn(said.text, user, session, speaker=said.speaker, said_at=said.at)
        event, note = episode_dates(said.text, said.at)
        self.side[episode_id] = {
            "memory_id": episode_id, "user_id": user, "session_id": session,
            "speaker": said.speaker, "said_at": said.at,
            "event_start": _day(event.start) if event else None,
            "event_end": _day(event.end) if event else None,
            "event_granularity": event.granularity if event else None,
            "event_phrase": event.phrase if event else None,
            "date_note": event.note if event and event.note else note,
            "dedup_key": dedup_key(turn), "job_id": None,
        }
        if unit_id is not None:
            self.links[unit_id] = episode_id

    def rows(self, written: Callable[[str], bool]) -> tuple[list[dict[str, Any]],
                                                           list[dict[str, Any]]]:
        """The ``episodes`` rows and the ``memory_provenance`` rows of what was
        written (a small demo size cuts the scenario short)."""
        side = [r for eid, r in self.side.items() if written(eid)]
        prov = [{"memory_id": r["memory_id"], "extractor": VERBATIM, "model": None,
                 "job_id": None, "created_at": r["said_at"], "episode_id": None}
                for r in side]
        prov += [{"memory_id": uid, "extractor": EXTRACTOR, "model": None, "job_id": None,
                  "created_at": self.side[eid]["said_at"], "episode_id": eid}
                 for uid, eid in self.links.items() if written(uid) and written(eid)]
        return side, prov
