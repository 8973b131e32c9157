"""Tables of the agents feature (migration 0011), on the shared ``Base``.

- ``job_origins``: who handed a job over: actor (``agent``), the MCP client's name and
  version from its initialize request, the server-assigned session, the transport and
  the turn's source (the user's own words, or a tool result, a document, the
  assistant).  Written once, in the transaction that enqueues the job, and never
  changed: the SQLite (and PostgreSQL) triggers of migration 0011 refuse UPDATE and
  DELETE.  A memory's agent provenance is ``memory_provenance.job_id`` → this row.
- ``mcp_tokens``: the shared HTTP server's bearer tokens (hash, users, rights), and
  ``job_origins.token`` the token a write came in with (migration 0018).
- ``mcp_access``: the MCP server's access log, one row per tool call (migration 0020):
  who (the token's name, ``local`` without one), the tool, the user, how many
  memories it returned or changed, and whether it was refused (core/guard/access.py).
- ``quarantine_reasons``: why the guard held a memory, one row per rule that matched,
  with the evidence (the text that matched) shown to the operator.

The quarantine state itself is ``memories.quarantined_at`` (see core/store/models.py),
so excluding it from the active belief state is one column test, and approving or
rejecting is an ordinary audited, undoable field change.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from memdesk.core.store.models import Base, SeqType


class JobOrigin(Base):
    """The immutable agent provenance of one job."""

    __tablename__ = "job_origins"

    # No foreign key to jobs: provenance outlives a purged job.
    job_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    actor: Mapped[str] = mapped_column(String(32), nullable=False)
    client_name: Mapped[str] = mapped_column(String(200), nullable=False)
    client_version: Mapped[str | None] = mapped_column(String(200))
    session: Mapped[str] = mapped_column(String(64), nullable=False)
    transport: Mapped[str] = mapped_column(String(32), nullable=False)
    source: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    # The bearer token an HTTP write came in with (migration 0018; NULL over stdio).
    token: Mapped[str | None] = mapped_column(String(64))


class McpToken(Base):
    """A bearer token of the shared MCP server (migration 0018): only its secret's
    SHA-256 is kept; revoked rows stay (names are never reused)."""

    __tablename__ = "mcp_tokens"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    secret_sha256: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    users: Mapped[str] = mapped_column(Text, nullable=False)
    rights: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Paused by the operator (migration 0023): the secret stays valid, every call is
    # refused until the token is resumed (NULL: not paused).
    paused_at: Mapped[datetime | None] = mapped_column(DateTime)


class McpAccess(Base):
    """One MCP tool call (migration 0020): appended in batches off the call path, pruned
    after the retention; never part of a memory's audit trail or of undo."""

    __tablename__ = "mcp_access"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    caller: Mapped[str] = mapped_column(String(64), nullable=False)  # token name or "local"
    transport: Mapped[str] = mapped_column(String(32), nullable=False)
    tool: Mapped[str] = mapped_column(String(64), nullable=False)
    user_id: Mapped[str | None] = mapped_column(String(200))
    results: Mapped[int | None] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(16), nullable=False)  # ok, refused, paused, error
    ms: Mapped[float | None] = mapped_column(Float)

    __table_args__ = (Index("ix_mcp_access_caller_at", "caller", "at"),
                      Index("ix_mcp_access_at", "at"))


class QuarantineReason(Base):
    """One rule that matched a quarantined memory, with the text that matched."""

    __tablename__ = "quarantine_reasons"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    memory_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("memories.id", ondelete="CASCADE"), nullable=False
    )
    rule_id: Mapped[str] = mapped_column(String(64), nullable=False)
    reason: Mapped[str] = mapped_column(Text, nullable=False)
    evidence: Mapped[str | None] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)

    __table_args__ = (Index("ix_quarantine_reasons_memory", "memory_id"),)
