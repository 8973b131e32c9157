"""ORM tables for what the desk learns from sweep decisions (migration 0015).

* ``sweep_picks``: how each item of a sweep was chosen — a uniform draw (with its
  inclusion probability, which the band estimate weights by) or a guided pick (the
  model's score and the features that drove it).  A side table, so sweeps started
  before guided sampling (no row here) read as uniform draws.
* ``curation_models``: the trained guided-sweep model and calibration map, stored as
  plain JSON parameters (never a pickle: opening a store must not run code from it),
  with the training date and the number of decisions behind them.
* ``calibration_sources``: per memory source, whether suggested importances are applied
  automatically to its new memories (an operator setting).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from memdesk.core.store.models import Base


class SweepPick(Base):
    """How one sweep item was chosen (absent: a uniform draw of an older sweep)."""

    __tablename__ = "sweep_picks"

    sweep_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("sweeps.id", ondelete="CASCADE"), primary_key=True
    )
    pos: Mapped[int] = mapped_column(Integer, primary_key=True)
    guided: Mapped[bool] = mapped_column(Boolean, nullable=False)
    # P(this memory is in this sweep's uniform part): n_uniform / band population.
    # A guided pick is chosen with certainty by the model (1.0) and never enters the
    # share estimate (its selection is not random).
    inclusion_p: Mapped[float] = mapped_column(Float, nullable=False)
    score: Mapped[float | None] = mapped_column(Float)
    reason: Mapped[str | None] = mapped_column(Text)
    model_id: Mapped[str | None] = mapped_column(String(32))


class CurationModel(Base):
    """A trained model: ``kind`` is "guided" (P(raise)) or "calibration"."""

    __tablename__ = "curation_models"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    trained_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    decisions: Mapped[int] = mapped_column(Integer, nullable=False)
    params: Mapped[str] = mapped_column(Text, nullable=False)  # JSON
    metrics: Mapped[str | None] = mapped_column(Text)  # JSON

    __table_args__ = (Index("ix_curation_models_kind", "kind", "trained_at"),)


class CalibrationSource(Base):
    """Auto-apply of suggested importances for one memory source."""

    __tablename__ = "calibration_sources"

    source: Mapped[str] = mapped_column(String(64), primary_key=True)
    auto_apply: Mapped[bool] = mapped_column(Boolean, nullable=False)
    since: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    actor: Mapped[str] = mapped_column(String(32), nullable=False)
