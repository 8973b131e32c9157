"""ORM tables for curation: revaluation sweeps and contradiction dismissals.

Kept in their own module (same ``Base`` as core/store/models.py) so the curation feature
owns its schema; migration 0003 creates them.  Sweep items are written one decision at
a time, so an interrupted sweep resumes exactly where it stopped.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

# The learning tables (migration 0015) register on the same Base with these.
from memdesk.core.curation import learning_models  # noqa: F401
from memdesk.core.store.models import Base, SeqType


class Sweep(Base):
    """One revaluation sweep: its parameters (band, filters, seed) and outcome."""

    __tablename__ = "sweeps"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    actor: Mapped[str] = mapped_column(String(32), nullable=False)
    band_lo: Mapped[float] = mapped_column(Float, nullable=False)
    band_hi: Mapped[float] = mapped_column(Float, nullable=False)
    n: Mapped[int] = mapped_column(Integer, nullable=False)
    user_id: Mapped[str | None] = mapped_column(String(200))
    type: Mapped[str | None] = mapped_column(String(32))
    seed: Mapped[int] = mapped_column(BigInteger, nullable=False)
    method: Mapped[str] = mapped_column(String(16), nullable=False)
    population: Mapped[int | None] = mapped_column(BigInteger)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    note: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_sweeps_created", "created_at"),)


class SweepItem(Base):
    """A sampled memory and the decision taken on it (NULL decision: not yet reviewed)."""

    __tablename__ = "sweep_items"

    sweep_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("sweeps.id", ondelete="CASCADE"), primary_key=True
    )
    pos: Mapped[int] = mapped_column(Integer, primary_key=True)
    memory_id: Mapped[str] = mapped_column(String(64), nullable=False)
    importance_before: Mapped[float] = mapped_column(Float, nullable=False)
    decision: Mapped[str | None] = mapped_column(String(16))
    importance_after: Mapped[float | None] = mapped_column(Float)
    note: Mapped[str | None] = mapped_column(Text)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime)
    decided_by: Mapped[str | None] = mapped_column(String(32))
    event_id: Mapped[int | None] = mapped_column(SeqType)

    __table_args__ = (Index("ix_sweep_items_memory", "memory_id"),)


class ContradictionDismissal(Base):
    """A "keep both" decision: these members of this triple group may coexist.

    In force while its audit events (``group_id``) are not undone, and only while the
    group's active members are a subset of ``member_seqs``: a new member re-raises it.
    """

    __tablename__ = "contradiction_dismissals"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(200), nullable=False)
    entity: Mapped[str] = mapped_column(String(200), nullable=False)
    attribute: Mapped[str] = mapped_column(String(200), nullable=False)
    member_seqs: Mapped[str] = mapped_column(Text, nullable=False)  # JSON list
    member_ids: Mapped[str] = mapped_column(Text, nullable=False)  # JSON list
    norm_values: Mapped[str] = mapped_column(Text, nullable=False)  # JSON list
    group_id: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    actor: Mapped[str] = mapped_column(String(32), nullable=False)
    note: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        Index("ix_contradiction_dismissals_key", "user_id", "entity", "attribute"),
    )


class DuplicateDismissal(Base):
    """An operator's "not duplicates" (migration 0016): no pair among these members is
    offered again while its audit rows (``group_id``) are not undone."""

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
