"""Tables of the read path (migration 0010): retrieval records and rotation cursors.

``retrievals`` holds one row per call (who, when, what was asked, which channels);
``retrieval_items`` one row per memory a call returned or injected, with its channel
ranks and final score, indexed by memory so "which runs saw this memory?" is one
index lookup.  ``preference_cursors`` keeps, per user, the last preference injected,
so rotation is fair across calls and processes.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from memdesk.core.store.models import Base, SeqType


class Retrieval(Base):
    __tablename__ = "retrievals"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    user_id: Mapped[str] = mapped_column(String(200), nullable=False)
    query: Mapped[str] = mapped_column(Text, nullable=False)
    channels: Mapped[str] = mapped_column(String(64), nullable=False)
    k: Mapped[int] = mapped_column(Integer, nullable=False)
    injected: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    duration_ms: Mapped[float | None] = mapped_column(Float)
    dropped: Mapped[str | None] = mapped_column(Text)  # JSON: what floor/diversity removed
    notes: Mapped[str | None] = mapped_column(Text)  # JSON list: skipped reranker, vectors off

    __table_args__ = (
        Index("ix_retrievals_at", "at"),
        Index("ix_retrievals_user_at", "user_id", "at"),
    )


class RetrievalItem(Base):
    __tablename__ = "retrieval_items"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    retrieval_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("retrievals.id", ondelete="CASCADE"), nullable=False
    )
    # No foreign key: a record must outlive edits of the memory it mentions.
    memory_id: Mapped[str] = mapped_column(String(64), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)  # result | preference
    rank: Mapped[int] = mapped_column(Integer, nullable=False)
    score: Mapped[float | None] = mapped_column(Float)
    fts_rank: Mapped[int | None] = mapped_column(Integer)
    vector_rank: Mapped[int | None] = mapped_column(Integer)
    graph_rank: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (
        Index("ix_retrieval_items_memory", "memory_id", "retrieval_id"),
        Index("ix_retrieval_items_retrieval", "retrieval_id"),
    )


class PreferenceCursor(Base):
    __tablename__ = "preference_cursors"

    user_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    # The last preference injected, as its place in newest-first order (keyset, so
    # preferences added or retired in between do not make rotation skip or repeat).
    last_created_at: Mapped[datetime | None] = mapped_column(DateTime)
    last_seq: Mapped[int | None] = mapped_column(SeqType)
    updated_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
