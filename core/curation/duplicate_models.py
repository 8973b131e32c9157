"""The duplicates queue's "not duplicates" decisions (migration 0016).

A dismissal names the members the operator said are not duplicates of each other;
every pair among them is not offered again.  Like a contradiction dismissal it is in
force while its audit rows (``group_id``) are not undone, so undoing the decision
offers the pairs again.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from memdesk.core.store.models import Base


class DuplicateDismissal(Base):
    __tablename__ = "duplicate_dismissals"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(200), nullable=False)
    member_seqs: Mapped[str] = mapped_column(Text, nullable=False)  # JSON list
    member_ids: Mapped[str] = mapped_column(Text, nullable=False)  # JSON list
    group_id: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    actor: Mapped[str] = mapped_column(String(32), nullable=False)
    note: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_duplicate_dismissals_user", "user_id"),)
