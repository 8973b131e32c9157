"""Episodes in results: which turn a unit came from, when it was said, and the order.

Retrieval searches episodes (turns kept as said) and units (what the extractor typed
from them) together: an episode is a memory like any other to the channels.  Two
rules apply once the results are chosen:

- every result says when it was said: an episode carries its own speaker, session,
  session time and event date; a unit names the episode it came from, with the same;
- a "when" question ("When did …", "What year …", "How long ago …") puts the results
  that carry an event date first: they are the ones that can answer it, and the
  results are already the ones about its subject (the floor chose them); the order
  among the dated, and among the rest, stays the score's;
- a unit ranks above the episode it came from.  The unit is the distilled statement
  ("The user's daughter Emma is 7."), the episode its evidence ("Emma turned 7 last
  week, we had a dinosaur cake!"); an agent reading top-down should meet the claim
  first and the turn that backs it after.  Only the order between the two changes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memdesk.core.store.episodes import EPISODE_TYPE, episodes_in, source_episodes_in

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from memdesk.core.read.fusion import Hit


def attach_in(conn: Connection, hits: list[Hit]) -> None:
    """Fill ``Hit.episode`` for every hit that is, or came from, an episode."""
    if not hits:
        return
    units = [h.id for h in hits if h.type != EPISODE_TYPE]
    source = source_episodes_in(conn, units) if units else {}
    wanted = [h.id for h in hits if h.type == EPISODE_TYPE] + list(source.values())
    infos = episodes_in(conn, wanted) if wanted else {}
    for h in hits:
        eid = h.id if h.type == EPISODE_TYPE else source.get(h.id)
        if eid is not None:
            h.episode = infos.get(eid)


def units_before_their_episodes(hits: list[Hit]) -> list[Hit]:
    """``hits`` with each episode moved just below the last of its own units that ranks
    under it (stable otherwise)."""
    position = {h.id: i for i, h in enumerate(hits)}
    last_unit: dict[str, int] = {}
    for i, h in enumerate(hits):
        if h.type != EPISODE_TYPE and h.episode is not None:
            last_unit[h.episode.id] = i
    moves = {eid: i for eid, i in last_unit.items()
             if eid in position and position[eid] < i}
    if not moves:
        return hits
    out: list[Hit] = []
    after: dict[int, list[Hit]] = {}
    for h in hits:
        if h.id in moves:
            after.setdefault(moves[h.id], []).append(h)
    for i, h in enumerate(hits):
        if h.id not in moves:
            out.append(h)
        out.extend(after.get(i, []))
    return out


WHEN = re.compile(
    r"^\W*(?:when\b|since when\b|how long ago\b|on what (?:day|date)\b"
    r"|(?:what|which) (?:day|date|year|month|week|time)\b|in (?:what|which) (?:year|month)\b)",
    re.IGNORECASE)


def is_when_question(query: str) -> bool:
    """True for a question about when something happened."""
    return WHEN.search(query) is not None


def dated_first(hits: list[Hit]) -> list[Hit]:
    """The hits that carry an event date (an episode's own, or a unit's episode's)
    first, each group in its given order."""
    dated = [h for h in hits if h.episode is not None and h.episode.event_start is not None]
    if not dated or len(dated) == len(hits):
        return hits
    chosen = {id(h) for h in dated}
    return dated + [h for h in hits if id(h) not in chosen]
