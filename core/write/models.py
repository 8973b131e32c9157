"""ORM tables of the write path, on the shared ``Base``; migration 0008 creates them.

- ``jobs``: the asynchronous store queue (the write-phase design's ``store_memory``).  A job is
claimed
  with a lease (``lease_owner``/``lease_until``) in one write transaction, so several
  workers never take the same job, and a job whose worker died is taken again once.
- ``memory_provenance`` (declared with the store's tables, ``memdesk.core.store.models``,
  since the guard below the write path reads it too): which extractor and model produced
  a memory, and from which job.
- ``embedding_space``: the one embedding model (name and dimension) whose vectors the
  store holds, so vectors of different models are never mixed.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from memdesk.core.store.models import Base
from memdesk.core.store.models import MemoryProvenance as MemoryProvenance  # re-exported


class Job(Base):
    """One conversation turn waiting for (or done with) extraction → routing → insert."""

    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), nullable=False)
    user_id: Mapped[str] = mapped_column(String(200), nullable=False)
    session_id: Mapped[str | None] = mapped_column(String(200))
    topic: Mapped[str | None] = mapped_column(String(200))
    # The agent and run an MCP store_memory named (migration 0019), copied to the memories.
    agent_id: Mapped[str | None] = mapped_column(String(200))
    run_id: Mapped[str | None] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text, nullable=False)
    # Who said the turn and when its session took place (migration 0021): copied to the
    # turn's episode, and the base that "yesterday" in it is resolved against.
    speaker: Mapped[str | None] = mapped_column(String(200))
    said_at: Mapped[datetime | None] = mapped_column(DateTime)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    lease_until: Mapped[datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    extractor: Mapped[str | None] = mapped_column(String(64))
    model: Mapped[str | None] = mapped_column(String(200))
    memory_ids: Mapped[str | None] = mapped_column(Text)  # JSON list
    error: Mapped[str | None] = mapped_column(Text)
    log: Mapped[str | None] = mapped_column(Text)  # JSON list of {"at", "msg"}

    __table_args__ = (Index("ix_jobs_status_created", "status", "created_at"),)


class EmbeddingSpace(Base):
    """The store's embedding model; one row (id 1) once the first vector is written."""

    __tablename__ = "embedding_space"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    model: Mapped[str] = mapped_column(String(200), nullable=False)
    dim: Mapped[int] = mapped_column(Integer, nullable=False)
    recorded_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)


class DuplicateFlag(Base):
    """A new memory the job worker found restating an active one of its user
    (``memdesk.core.write.duplicates``; migration 0016).  A queue for the duplicates
    view, not an action: the memory's ``add`` is the audited step, and a flag whose
    memories are no longer both active is not shown."""

    __tablename__ = "duplicate_flags"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(200), nullable=False)
    memory_id: Mapped[str] = mapped_column(String(64), nullable=False)  # the new memory
    duplicate_of: Mapped[str] = mapped_column(String(64), nullable=False)
    cosine: Mapped[float | None] = mapped_column(Float)  # None: no vectors to compare
    same_text: Mapped[bool] = mapped_column(Boolean, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)

    __table_args__ = (
        Index("ix_duplicate_flags_user", "user_id", "id"),
        Index("ix_duplicate_flags_memory", "memory_id"),
    )
