"""ORM tables of delta memory (the delta-memory design), on the shared ``Base`` of
memdesk.core.store.models.

* ``delta_sources`` / ``delta_settings``: the persisted, editable source configuration.
* ``memory_sets`` / ``memory_set_items``: snapshots (a MemorySet and its contributions).
  ``source_totals`` holds {source: weighted total} as JSON so a plot of thousands of
  snapshots needs one narrow query, not a join over every item.
* ``memory_diffs``: the diff between consecutive snapshots of one goal, with its health,
  decision and review state (the drift review queue is the flagged, pending rows).
* ``delta_events``: the audit log of source-config edits and review actions; undo
  replays ``before`` like memory_events does for memories.

Migration: core/store/migrations/versions/m0004_issue5.py creates exactly these.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from memdesk.core.store.models import Base, SeqType


class DeltaSource(Base):
    __tablename__ = "delta_sources"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(100), unique=True, nullable=False)
    source_type: Mapped[str] = mapped_column(String(64), nullable=False)
    weight: Mapped[float] = mapped_column(Float, nullable=False)
    enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    top_k: Mapped[int] = mapped_column(Integer, nullable=False, default=10)
    confidence_threshold: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)


class DeltaSetting(Base):
    __tablename__ = "delta_settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)


class MemorySetRow(Base):
    __tablename__ = "memory_sets"

    seq: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    goal: Mapped[str] = mapped_column(String(500), nullable=False)
    query: Mapped[str | None] = mapped_column(Text)
    label: Mapped[str] = mapped_column(String(200), nullable=False, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    aggregate_score: Mapped[float] = mapped_column(Float, nullable=False)
    dominant_source: Mapped[str | None] = mapped_column(String(100))
    dominance_ratio: Mapped[float | None] = mapped_column(Float)
    item_count: Mapped[int] = mapped_column(Integer, nullable=False)
    weights: Mapped[str] = mapped_column(Text, nullable=False)
    source_totals: Mapped[str] = mapped_column(Text, nullable=False)
    source_reports: Mapped[str] = mapped_column(Text, nullable=False)

    __table_args__ = (Index("ix_memory_sets_goal_created", "goal", "created_at"),)


class MemorySetItem(Base):
    __tablename__ = "memory_set_items"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    set_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("memory_sets.id", ondelete="CASCADE"), nullable=False
    )
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    key: Mapped[str] = mapped_column(String(200), nullable=False)
    source: Mapped[str] = mapped_column(String(100), nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    confidence: Mapped[float] = mapped_column(Float, nullable=False)
    relevance: Mapped[float] = mapped_column(Float, nullable=False)
    raw_score: Mapped[float | None] = mapped_column(Float)
    original_score: Mapped[float] = mapped_column(Float, nullable=False)
    source_weight: Mapped[float] = mapped_column(Float, nullable=False)
    weighted_score: Mapped[float] = mapped_column(Float, nullable=False)
    provenance: Mapped[str | None] = mapped_column(Text)
    entity: Mapped[str | None] = mapped_column(String(200))
    attribute: Mapped[str | None] = mapped_column(String(200))
    value: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_memory_set_items_set", "set_id", "position"),)


class MemoryDiffRow(Base):
    __tablename__ = "memory_diffs"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    goal: Mapped[str] = mapped_column(String(500), nullable=False)
    before_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("memory_sets.id", ondelete="CASCADE"), nullable=False
    )
    after_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("memory_sets.id", ondelete="CASCADE"), nullable=False
    )
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    aggregate_delta: Mapped[float] = mapped_column(Float, nullable=False)
    before_dominant: Mapped[str | None] = mapped_column(String(100))
    after_dominant: Mapped[str | None] = mapped_column(String(100))
    changed_dominant: Mapped[bool] = mapped_column(Boolean, nullable=False)
    primary_cause: Mapped[str | None] = mapped_column(String(100))
    dominance: Mapped[float] = mapped_column(Float, nullable=False)
    volatility: Mapped[float] = mapped_column(Float, nullable=False)
    drift: Mapped[float] = mapped_column(Float, nullable=False)
    contradiction: Mapped[float] = mapped_column(Float, nullable=False)
    confidence: Mapped[float] = mapped_column(Float, nullable=False)
    risk: Mapped[float] = mapped_column(Float, nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False)
    action: Mapped[str] = mapped_column(String(16), nullable=False)
    decision: Mapped[str] = mapped_column(Text, nullable=False)
    warnings: Mapped[str] = mapped_column(Text, nullable=False)
    influence: Mapped[str] = mapped_column(Text, nullable=False)
    bias: Mapped[str] = mapped_column(Text, nullable=False)
    review: Mapped[str] = mapped_column(String(16), nullable=False)
    review_note: Mapped[str | None] = mapped_column(Text)
    reviewed_at: Mapped[datetime | None] = mapped_column(DateTime)

    __table_args__ = (
        UniqueConstraint("before_id", "after_id", name="uq_memory_diffs_pair"),
        Index("ix_memory_diffs_review", "review", "created_at"),
        Index("ix_memory_diffs_goal", "goal", "created_at"),
        Index("ix_memory_diffs_after", "after_id"),
    )


class DeltaEvent(Base):
    """One audited change to a source's config or a diff's review state."""

    __tablename__ = "delta_events"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)  # "source" | "review"
    target: Mapped[str] = mapped_column(String(100), nullable=False)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    before: Mapped[str] = mapped_column(Text, nullable=False)
    after: Mapped[str] = mapped_column(Text, nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    actor: Mapped[str] = mapped_column(String(32), nullable=False)
    group_id: Mapped[str] = mapped_column(String(64), nullable=False)
    undoes: Mapped[str | None] = mapped_column(String(64))  # the group this one undid
    undone_by: Mapped[str | None] = mapped_column(String(64))
    note: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        Index("ix_delta_events_group", "group_id"),
        Index("ix_delta_events_target", "kind", "target", "id"),
    )
