"""An episode's who and when as the desk's own words: one line for a table cell, a few
lines for a tooltip, a field at a time for a form.

Shared by the browser (its table and detail pane) and the Retrieval inspector.  The
speaker, the session, the time phrase and the date note come from an agent (the note
quotes the turn's phrase), so each is revealed and isolated before it is put into a
sentence of ours: a speaker named with a right-to-left override cannot turn "said
2023-05-08" around, and a line break cannot start a line of its own.
"""

from __future__ import annotations

from datetime import datetime

from memdesk.core.store.episodes import EpisodeInfo
from memdesk.ui.desk.text import elide_middle, isolate

NAME_WIDTH = 40  # characters of a speaker or session a line shows (the tooltip has more)


def when_text(moment: datetime | None) -> str:
    """A session time to the minute, or that the agent gave none."""
    return f"{moment:%Y-%m-%d %H:%M}" if moment is not None else "time not given"


def name_text(value: str | None, missing: str, width: int = NAME_WIDTH) -> str:
    """A speaker or session id, short, revealed and isolated; ``missing`` when None."""
    return isolate(elide_middle(value, width)) if value else missing


def event_text(info: EpisodeInfo) -> str:
    """When what the turn tells of happened: the date and the phrase it was read from,
    or why it has no date (the resolver's note), or that the turn names no time."""
    if info.event_date is not None:
        phrase = f" (from {isolate(elide_middle(info.event_phrase, 60))})" \
            if info.event_phrase else ""
        return f"{info.event_date}{phrase}"
    if info.date_note:
        return f"not dated: {isolate(elide_middle(info.date_note, 160))}"
    return "names no time"


def episode_line(info: EpisodeInfo, *, own: bool) -> str:
    """One line for a table cell: ``own`` for the episode itself, else for a unit that
    came from it ("from Melanie's turn …")."""
    who = name_text(info.speaker, "speaker not given", 24)
    parts = [who if own else f"from {who}'s turn", f"said {when_text(info.said_at)}"]
    if info.event_date is not None:
        parts.append(f"happened {info.event_date}")
    return " · ".join(parts)


def episode_tip(info: EpisodeInfo, *, own: bool) -> str:
    """A few plain lines for a tooltip (escape it with ``tooltip_text``)."""
    head = "This turn, kept as said" if own else "Extracted from a turn kept as said"
    return "\n".join((
        head,
        f"Speaker: {name_text(info.speaker, 'not given', 80)}",
        f"Session: {name_text(info.session_id, 'not given', 80)}",
        f"Said at: {when_text(info.said_at)}",
        f"Happened: {event_text(info)}",
    ))
