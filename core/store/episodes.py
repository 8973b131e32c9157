"""Episodes as stored: a conversation turn kept as said, and the units that came from it.

An episode is a ``memories`` row of type ``episode`` (layer episodic) with a side row in
``episodes`` (speaker, session, the session's time, the event date).  A unit extracted
from it names it in ``memory_provenance.episode_id``, so both ways are one indexed
lookup.  The write path creates them (core/write/episodes.py); the retriever, the desk's
detail pane, the CLI and the MCP tools read them here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Table, select

from memdesk.core.store.models import Episode, Memory, MemoryProvenance

ET: Table = Episode.__table__  # type: ignore[assignment]  # a declarative table
E = ET.c
M = Memory.__table__.c
P = MemoryProvenance.__table__.c
EPISODE_TYPE = "episode"


@dataclass(frozen=True)
class EpisodeInfo:
    """What a reader shows of an episode: who said it, in which session, when, and
    when what it tells of happened (``event_*``; None when the turn names no time)."""

    id: str
    session_id: str | None
    speaker: str | None
    said_at: datetime | None
    event_start: datetime | None = None
    event_end: datetime | None = None
    event_granularity: str | None = None
    event_phrase: str | None = None
    date_note: str | None = None

    @property
    def event_date(self) -> str | None:
        """The event's date as text at its granularity (2023-05-07, 2023-05, 2023)."""
        if self.event_start is None:
            return None
        g = self.event_granularity or "day"
        if g == "year":
            return f"{self.event_start:%Y}"
        if g == "month":
            return f"{self.event_start:%Y-%m}"
        if g == "week" and self.event_end is not None:
            return f"{self.event_start:%Y-%m-%d}/{self.event_end:%Y-%m-%d}"
        return f"{self.event_start:%Y-%m-%d}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "session": self.session_id, "speaker": self.speaker,
            "said_at": self.said_at.isoformat() if self.said_at else None,
        }
        if self.event_start is not None:
            out["event_date"] = self.event_date
            out["event_phrase"] = self.event_phrase
        if self.date_note:
            out["date_note"] = self.date_note
        return out


def not_an_episode() -> ColumnElement[bool]:
    """Rows that are not episodes: what the duplicates queue compares.  Turns kept as
    said restate their own units by design, and two identical turns in two sessions
    are two things that happened, not one memory to merge."""
    return M.type != EPISODE_TYPE


def _info(row: Any) -> EpisodeInfo:
    return EpisodeInfo(row.memory_id, row.session_id, row.speaker, row.said_at,
                       row.event_start, row.event_end, row.event_granularity,
                       row.event_phrase, row.date_note)


def episodes_in(conn: Connection, ids: Iterable[str]) -> dict[str, EpisodeInfo]:
    """The episodes among ``ids`` (memory ids), by id."""
    wanted = list(dict.fromkeys(ids))
    out: dict[str, EpisodeInfo] = {}
    for i in range(0, len(wanted), 500):
        for row in conn.execute(select(ET).where(E.memory_id.in_(wanted[i:i + 500]))):
            out[row.memory_id] = _info(row)
    return out


def source_episodes_in(conn: Connection, ids: Iterable[str]) -> dict[str, str]:
    """unit id -> the id of the episode it was extracted from, for those of ``ids`` that
    came from one."""
    wanted = list(dict.fromkeys(ids))
    out: dict[str, str] = {}
    for i in range(0, len(wanted), 500):
        for mid, eid in conn.execute(select(P.memory_id, P.episode_id).where(
                P.memory_id.in_(wanted[i:i + 500]), P.episode_id.is_not(None))):
            out[mid] = eid
    return out


def units_of_in(conn: Connection, episode_id: str) -> list[str]:
    """The ids of the units extracted from ``episode_id``, oldest first."""
    return list(conn.execute(
        select(P.memory_id).join(Memory.__table__, M.id == P.memory_id)
        .where(P.episode_id == episode_id).order_by(M.seq)).scalars())


def episode_rows_in(conn: Connection, episode_ids: Iterable[str]) -> dict[str, tuple[str, str]]:
    """episode id -> (its text, its user) for each of ``episode_ids`` still stored."""
    wanted = list(dict.fromkeys(episode_ids))
    out: dict[str, tuple[str, str]] = {}
    for i in range(0, len(wanted), 500):
        for mid, text, user in conn.execute(select(M.id, M.text, M.user_id).where(
                M.id.in_(wanted[i:i + 500]))):
            out[mid] = (text, user)
    return out


class Episodes:
    """Read façade over one store's episodes (the desk, the CLI and the MCP tools)."""

    def __init__(self, store: Any) -> None:  # a MemoryStore (not imported: no cycle)
        self.store = store

    def get(self, memory_id: str) -> EpisodeInfo | None:
        """The episode ``memory_id`` is, or None when it is not one."""
        with self.store.read() as conn:
            return episodes_in(conn, [memory_id]).get(memory_id)

    def infos(self, memory_ids: Iterable[str]) -> dict[str, EpisodeInfo]:
        """The episodes among ``memory_ids``, by id (one query a page: the browser)."""
        with self.store.read() as conn:
            return episodes_in(conn, memory_ids)

    def source_of(self, unit_id: str) -> EpisodeInfo | None:
        """The episode the unit ``unit_id`` was extracted from, if it came from one."""
        with self.store.read() as conn:
            eid = source_episodes_in(conn, [unit_id]).get(unit_id)
            return episodes_in(conn, [eid]).get(eid) if eid else None

    def of_job(self, job_id: str) -> str | None:
        """The id of the episode a write-path job kept (its own, or the stored one of an
        identical turn its units link to); None when it kept none."""
        with self.store.read() as conn:
            own = conn.execute(select(E.memory_id).where(E.job_id == job_id)).first()
            if own is not None:
                return str(own[0])
            linked = conn.execute(select(P.episode_id).where(
                P.job_id == job_id, P.episode_id.is_not(None)).limit(1)).first()
            return str(linked[0]) if linked is not None else None

    def units_of(self, episode_id: str) -> list[str]:
        """The ids of the units extracted from the episode, oldest first."""
        with self.store.read() as conn:
            return units_of_in(conn, episode_id)
