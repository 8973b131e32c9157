"""Agent provenance: who handed a job over, recorded once and never changed.

The MCP server knows the client's name and version (from the initialize request), the
session it assigned and the transport; the agent says only what the turn's source is.
The write path's agent intake (``memdesk.core.write.intake.enqueue_from_agent``) writes
the job and, through :func:`record_origin_in`, its origin in one transaction, so a
worker can never see the job without its origin.  Nothing here updates an origin, and
migration 0011's triggers refuse it at the database.  This module reads no write-path
code: the guard sits below the write path, which calls it (``screen_job_in``).

Operators outrank agents: :func:`curated_ids_in` names the memories an operator has
touched, which no agent may change (:func:`check_agent_may_change`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Table, insert, select

from memdesk.core.errors import MemdeskError
from memdesk.core.guard.models import JobOrigin
from memdesk.core.guard.rules import Source
from memdesk.core.ids import utcnow
from memdesk.core.store.models import MemoryEvent, MemoryProvenance
from memdesk.core.taxonomy import Actor

if TYPE_CHECKING:
    from memdesk.core.store.records import AnyRow

# Declarative types __table__ as a FromClause; JobOrigin maps a plain Table.
OT = cast(Table, JobOrigin.__table__)
O = OT.c  # noqa: E741 - the table's column namespace, as M/E/J elsewhere
P = MemoryProvenance.__table__.c
E = MemoryEvent.__table__.c


class CuratedByOperator(MemdeskError):
    """An agent tried to change a memory an operator curated."""


@dataclass(frozen=True)
class AgentOrigin:
    """Where an agent's write came from.  Set by the server, never by the agent."""

    client_name: str
    session: str
    transport: str
    source: str = Source.USER.value
    client_version: str | None = None
    actor: str = Actor.AGENT.value
    created_at: datetime | None = None
    # The bearer token's name over HTTP (``memdesk tokens``); None over stdio.
    token: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"actor": self.actor, "client_name": self.client_name,
                "client_version": self.client_version, "session": self.session,
                "transport": self.transport, "source": self.source,
                "created_at": self.created_at.isoformat() if self.created_at else None,
                "token": self.token}


def record_origin_in(conn: Connection, job_id: str, origin: AgentOrigin) -> None:
    """Record who handed job ``job_id`` over, inside the transaction that enqueued it."""
    source = Source(origin.source).value
    conn.execute(insert(OT).values(
        job_id=job_id, actor=Actor(origin.actor).value,
        client_name=origin.client_name[:200] or "unknown",
        client_version=(origin.client_version or None) and origin.client_version[:200],
        session=origin.session[:64], transport=origin.transport[:32], source=source,
        created_at=utcnow(), token=origin.token[:64] if origin.token else None))


def _origin(row: AnyRow) -> AgentOrigin:
    return AgentOrigin(client_name=row.client_name, session=row.session,
                       transport=row.transport, source=row.source,
                       client_version=row.client_version, actor=row.actor,
                       created_at=row.created_at, token=row.token)


def origin_of_job(conn: Connection, job_id: str) -> AgentOrigin | None:
    row = conn.execute(select(OT).where(O.job_id == job_id)).first()
    return _origin(row) if row is not None else None


def origin_of_memory(conn: Connection, memory_id: str) -> AgentOrigin | None:
    """The agent origin of a memory an agent's job produced; None for any other memory."""
    row = conn.execute(
        select(OT).join_from(MemoryProvenance.__table__, OT, P.job_id == O.job_id)
        .where(P.memory_id == memory_id)
    ).first()
    return _origin(row) if row is not None else None


def curated_ids_in(conn: Connection, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` an operator has touched (any audited operator action)."""
    out: set[str] = set()
    for i in range(0, len(ids), 500):
        chunk = list(ids[i : i + 500])
        out.update(conn.execute(
            select(E.memory_id).where(E.memory_id.in_(chunk), E.actor == Actor.OPERATOR.value)
            .distinct()).scalars())
    return out


def check_agent_may_change(conn: Connection, memory_id: str) -> None:
    """Raise :class:`CuratedByOperator` if an agent must leave ``memory_id`` alone.

    For any automatic path that would edit, supersede or delete a memory on an agent's
    behalf: the agent may add a new memory instead, which the operator then reviews."""
    if curated_ids_in(conn, [memory_id]):
        raise CuratedByOperator(
            f"memory {memory_id} was curated by an operator; an agent cannot change or "
            "delete it (store a new memory instead: the operator reviews it)")
