"""The write path's duplicate flags (migration 0016), on the shared ``Base``.

A row says: this new memory, written by the job worker, restates an active memory of
the same user (same normalised text, or vectors at least the write path's threshold
apart).  Flags are a queue for the duplicates view, not an action: the memory itself
is stored as written (its ``add`` is the audited, undoable action), and a flag whose
memories are no longer both active is simply not shown.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Float, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from memdesk.core.store.models import Base


class DuplicateFlag(Base):
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
