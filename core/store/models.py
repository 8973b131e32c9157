"""ORM schema: the ``memories`` table of Recall's MemoryUnit (the write-phase design) and the audit
log.

``seq`` is an INTEGER PRIMARY KEY (SQLite rowid alias) so the rowid that the FTS5
external-content index refers to never changes, even across VACUUM; ``id`` keeps the
seed's text identity and is what every API and foreign key uses.  All times are UTC.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy import (
    text as sa_text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# BIGINT on PostgreSQL, but exactly INTEGER on SQLite so ``seq`` aliases the rowid.
SeqType = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    pass


class Memory(Base):
    __tablename__ = "memories"

    seq: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    user_id: Mapped[str] = mapped_column(String(200), nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    topic: Mapped[str | None] = mapped_column(String(200))
    importance: Mapped[float] = mapped_column(Float, nullable=False, default=0.5)
    confidence: Mapped[float] = mapped_column(Float, nullable=False, default=0.8)
    source_session: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    last_accessed: Mapped[datetime | None] = mapped_column(DateTime)
    access_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    decay_score: Mapped[float | None] = mapped_column(Float)
    superseded_by: Mapped[str | None] = mapped_column(
        String(64), ForeignKey("memories.id", ondelete="SET NULL")
    )
    entity: Mapped[str | None] = mapped_column(String(200))
    attribute: Mapped[str | None] = mapped_column(String(200))
    value: Mapped[str | None] = mapped_column(Text)
    valid_until: Mapped[datetime | None] = mapped_column(DateTime)
    layer: Mapped[str | None] = mapped_column(String(32))
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Set when the poisoning guard holds an agent's write for operator review (migration
    # 0011, core/guard/); NULL for every other row, so it costs nothing to filter on.
    quarantined_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Set when the operator (or an agent with the right) archives the memory (migration
    # 0023, core/store/archive.py): kept, shown and searchable in the desk, never
    # recalled, injected or queued for curation.  NULL for almost every row.
    archived_at: Mapped[datetime | None] = mapped_column(DateTime)
    # How it was said (migration 0013): NULL = stated as a belief; "hypothetical" = a
    # supposition kept for the operator but never part of the active belief state.
    framing: Mapped[str | None] = mapped_column(String(32))
    # Which agent wrote the memory and in which of its runs (migration 0019): set by an
    # agent's store_memory, NULL for operator writes; agents scope their reads by them.
    agent_id: Mapped[str | None] = mapped_column(String(200))
    run_id: Mapped[str | None] = mapped_column(String(200))
    # Optimistic concurrency (migration 0009): +1 on every audited change; an edit
    # may name the version it was based on and is refused if the row moved on.
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1, server_default="1")

    __table_args__ = (
        Index("ix_memories_user_valid", "user_id", "valid_until"),
        Index("ix_memories_entity_attr", "entity", "attribute"),
        Index("ix_memories_type", "type"),
        Index("ix_memories_importance", "importance"),
        Index("ix_memories_created_at", "created_at"),
        Index("ix_memories_user_agent", "user_id", "agent_id"),
        # Partial (migration 0006): a full index on a column that is NULL in almost every
        # row misleads SQLite's planner after ANALYZE into using it for IS NULL.
        Index(
            "ix_memories_superseded_by",
            "superseded_by",
            sqlite_where=sa_text("superseded_by IS NOT NULL"),
            postgresql_where=sa_text("superseded_by IS NOT NULL"),
        ),
        # The review inbox lists the few quarantined rows; partial for the same reason.
        Index(
            "ix_memories_quarantined",
            "quarantined_at",
            sqlite_where=sa_text("quarantined_at IS NOT NULL"),
            postgresql_where=sa_text("quarantined_at IS NOT NULL"),
        ),
        # The browser's "Archived" filter lists the few archived rows; partial likewise.
        Index(
            "ix_memories_archived",
            "archived_at",
            sqlite_where=sa_text("archived_at IS NOT NULL"),
            postgresql_where=sa_text("archived_at IS NOT NULL"),
        ),
    )


class MemoryVector(Base):
    """One memory's vector (migration 0012), kept out of the wide ``memories`` row.

    SQLite rewrites a whole row on any UPDATE, so a 1.5 KB vector inside ``memories``
    made every decay or access-count update rewrite it too.  ``seq`` is the memory's
    ``seq`` (also this table's rowid alias on SQLite); a hard-deleted memory takes
    its vector with it.  Access goes through ``memdesk.core.store.vectors``.
    """

    __tablename__ = "memory_vectors"

    seq: Mapped[int] = mapped_column(
        SeqType, ForeignKey("memories.seq", ondelete="CASCADE"), primary_key=True,
        autoincrement=False,
    )
    vector: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)


class MemoryEvent(Base):
    """One audited change.  ``before``/``after`` hold only the fields that changed (JSON).

    ``stream`` is the audit stream of the row's action (``memdesk.core.store.actions``):
    ``memory`` rows name their memory; ``job`` rows name their job in ``target``;
    ``store`` rows (an embedding pass, a decay run) are about no one row.  ``memory_id``
    is NULL for the last two (migration 0014)."""

    __tablename__ = "memory_events"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    memory_id: Mapped[str | None] = mapped_column(String(64))
    actor: Mapped[str] = mapped_column(String(32), nullable=False)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    before: Mapped[str | None] = mapped_column(Text)
    after: Mapped[str | None] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    group_id: Mapped[str | None] = mapped_column(String(64))
    undoes: Mapped[int | None] = mapped_column(SeqType)
    undone_by: Mapped[int | None] = mapped_column(SeqType)
    note: Mapped[str | None] = mapped_column(Text)
    stream: Mapped[str] = mapped_column(String(16), nullable=False, server_default="memory")
    target: Mapped[str | None] = mapped_column(String(64))

    __table_args__ = (
        Index("ix_memory_events_memory", "memory_id", "id"),
        Index("ix_memory_events_group", "group_id"),
        # The few operator events (migration 0013): "is this memory curated?" for a whole
        # store is one read of this index (core/guard/curated.py).
        Index(
            "ix_memory_events_operator",
            "memory_id",
            sqlite_where=sa_text("actor = 'operator'"),
            postgresql_where=sa_text("actor = 'operator'"),
        ),
    )


class RecallCheck(Base):
    """A recall check (migration 0022): a user, a query and the memory ids the agents'
    default retrieval must return (``expect``) and must not (``expect_not``), both JSON
    lists.  Added and removed through audited, undoable actions (the ``check`` stream;
    core/store/recall_checks.py): a removal sets ``removed_at`` and keeps the row, so
    undo brings it back.  ``last_*`` hold the latest run's verdict (not audited: derived,
    like the retrieval log), which the desk compares the next run with."""

    __tablename__ = "recall_checks"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(200), nullable=False)
    query: Mapped[str] = mapped_column(Text, nullable=False)
    expect: Mapped[str] = mapped_column(Text, nullable=False)
    expect_not: Mapped[str] = mapped_column(Text, nullable=False)
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    created_by: Mapped[str] = mapped_column(String(32), nullable=False)
    removed_at: Mapped[datetime | None] = mapped_column(DateTime)
    last_run_at: Mapped[datetime | None] = mapped_column(DateTime)
    last_passed: Mapped[bool | None] = mapped_column(Boolean)
    last_result: Mapped[str | None] = mapped_column(Text)


# Columns an operator may set through MemoryStore.update().
EDITABLE_FIELDS = (
    "text",
    "type",
    "layer",
    "topic",
    "importance",
    "confidence",
    "user_id",
    "source_session",
    "agent_id",
    "run_id",
    "entity",
    "attribute",
    "value",
    "valid_until",
    "superseded_by",
    "decay_score",
    "last_accessed",
    "access_count",
    "deleted_at",
    "framing",  # the operator may confirm a supposition as a belief, or mark one
)


class MemoryProvenance(Base):
    """How an extracted memory came to be: extractor, model and job.

    Written by the write path's worker in the insert's transaction; read by the detail
    pane and by the guard (which agent's job a held memory came from), which sits below
    the write path, so the table is declared here.  A side table rather than columns on
    ``memories``: most rows (operator adds, imports) have no extraction behind them."""

    __tablename__ = "memory_provenance"

    memory_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("memories.id", ondelete="CASCADE"), primary_key=True
    )
    extractor: Mapped[str] = mapped_column(String(64), nullable=False)
    model: Mapped[str | None] = mapped_column(String(200))
    job_id: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    # The episode (the turn as said) this unit was extracted from (migration 0021);
    # the episode's units are the rows naming it here: provenance both ways.
    episode_id: Mapped[str | None] = mapped_column(String(64))

    __table_args__ = (Index("ix_memory_provenance_job", "job_id"),
                      Index("ix_memory_provenance_episode", "episode_id"))


class Episode(Base):
    """A conversation turn kept as said: a ``memories`` row of type ``episode`` (so the
    channels, the browser, soft delete and undo treat it like any memory) and this side
    row with what only a turn has (migration 0021).

    ``said_at`` is the session's time the agent gave (None: not given, and the desk says
    so); ``event_*`` is when what it tells of happened, resolved from phrases such as
    "last Saturday" against ``said_at``.  ``dedup_key`` (user, session, speaker, text)
    stores an identical turn once: an agent that sends a turn twice gets one episode.
    """

    __tablename__ = "episodes"

    memory_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("memories.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(String(200), nullable=False)
    session_id: Mapped[str | None] = mapped_column(String(200))
    speaker: Mapped[str | None] = mapped_column(String(200))
    said_at: Mapped[datetime | None] = mapped_column(DateTime)
    event_start: Mapped[datetime | None] = mapped_column(DateTime)
    event_end: Mapped[datetime | None] = mapped_column(DateTime)
    event_granularity: Mapped[str | None] = mapped_column(String(16))
    event_phrase: Mapped[str | None] = mapped_column(Text)
    date_note: Mapped[str | None] = mapped_column(Text)
    dedup_key: Mapped[str | None] = mapped_column(String(64), unique=True)
    job_id: Mapped[str | None] = mapped_column(String(32))

    __table_args__ = (Index("ix_episodes_user_said", "user_id", "said_at"),)


class Erasure(Base):
    """One permanent purge (migration 0024, core/erasure/): who asked, when, the
    verdict of its proof and the receipt (JSON without the text: ids, kinds, hashes,
    places, proof searches, what still holds it).  Never changed once written."""

    __tablename__ = "erasures"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    memory_id: Mapped[str] = mapped_column(String(64), nullable=False)  # the one asked for
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    actor: Mapped[str] = mapped_column(String(32), nullable=False)
    who: Mapped[str | None] = mapped_column(Text)
    erased: Mapped[int] = mapped_column(Integer, nullable=False)
    verdict: Mapped[str] = mapped_column(String(16), nullable=False)  # erased | incomplete
    receipt: Mapped[str] = mapped_column(Text, nullable=False)

    __table_args__ = (Index("ix_erasures_at", "at"),)


class ErasedMemory(Base):
    """A memory a purge erased: its id outlives it so that a second purge, an edit or
    an undo naming it is told it was erased (and when), not merely "not found"."""

    __tablename__ = "erased_memories"

    memory_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    erasure_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("erasures.id", ondelete="CASCADE"), nullable=False)
    kind: Mapped[str] = mapped_column(String(32), nullable=False)
    text_sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)

    __table_args__ = (Index("ix_erased_memories_erasure", "erasure_id"),)
