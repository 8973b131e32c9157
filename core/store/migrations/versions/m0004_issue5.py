"""delta memory tables (sources, memory sets, diffs, drift reviews).

Creates the tables of memdesk.core.delta.models and seeds the seed-004 default source
configuration (context 0.30, search 0.25, database 0.25, model prior 0.20), so every
store can compose memory sets at once.

Revision ID: 0004
Revises: 0003
"""

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

Seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

DEFAULT_SOURCES = (
    ("context", "context_memory", 0.30),
    ("search", "search_memory", 0.25),
    ("database", "database_memory", 0.25),
    ("model_prior", "model_memory", 0.20),
)


def upgrade() -> None:
    sources = op.create_table(
        "delta_sources",
        sa.Column("id", Seq, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("source_type", sa.String(64), nullable=False),
        sa.Column("weight", sa.Float, nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("top_k", sa.Integer, nullable=False),
        sa.Column("confidence_threshold", sa.Float, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
    )
    settings = op.create_table(
        "delta_settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "memory_sets",
        sa.Column("seq", Seq, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(64), nullable=False, unique=True),
        sa.Column("goal", sa.String(500), nullable=False),
        sa.Column("query", sa.Text),
        sa.Column("label", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("aggregate_score", sa.Float, nullable=False),
        sa.Column("dominant_source", sa.String(100)),
        sa.Column("dominance_ratio", sa.Float),
        sa.Column("item_count", sa.Integer, nullable=False),
        sa.Column("weights", sa.Text, nullable=False),
        sa.Column("source_totals", sa.Text, nullable=False),
        sa.Column("source_reports", sa.Text, nullable=False),
    )
    op.create_index("ix_memory_sets_goal_created", "memory_sets", ["goal", "created_at"])
    op.create_table(
        "memory_set_items",
        sa.Column("id", Seq, primary_key=True, autoincrement=True),
        sa.Column("set_id", sa.String(64),
                  sa.ForeignKey("memory_sets.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("source", sa.String(100), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("relevance", sa.Float, nullable=False),
        sa.Column("raw_score", sa.Float),
        sa.Column("original_score", sa.Float, nullable=False),
        sa.Column("source_weight", sa.Float, nullable=False),
        sa.Column("weighted_score", sa.Float, nullable=False),
        sa.Column("provenance", sa.Text),
        sa.Column("entity", sa.String(200)),
        sa.Column("attribute", sa.String(200)),
        sa.Column("value", sa.Text),
    )
    op.create_index("ix_memory_set_items_set", "memory_set_items", ["set_id", "position"])
    op.create_table(
        "memory_diffs",
        sa.Column("id", Seq, primary_key=True, autoincrement=True),
        sa.Column("goal", sa.String(500), nullable=False),
        sa.Column("before_id", sa.String(64),
                  sa.ForeignKey("memory_sets.id", ondelete="CASCADE"), nullable=False),
        sa.Column("after_id", sa.String(64),
                  sa.ForeignKey("memory_sets.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("aggregate_delta", sa.Float, nullable=False),
        sa.Column("before_dominant", sa.String(100)),
        sa.Column("after_dominant", sa.String(100)),
        sa.Column("changed_dominant", sa.Boolean, nullable=False),
        sa.Column("primary_cause", sa.String(100)),
        sa.Column("dominance", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("drift", sa.Float, nullable=False),
        sa.Column("contradiction", sa.Float, nullable=False),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("risk", sa.Float, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("decision", sa.Text, nullable=False),
        sa.Column("warnings", sa.Text, nullable=False),
        sa.Column("influence", sa.Text, nullable=False),
        sa.Column("bias", sa.Text, nullable=False),
        sa.Column("review", sa.String(16), nullable=False),
        sa.Column("review_note", sa.Text),
        sa.Column("reviewed_at", sa.DateTime),
        sa.UniqueConstraint("before_id", "after_id", name="uq_memory_diffs_pair"),
    )
    op.create_index("ix_memory_diffs_review", "memory_diffs", ["review", "created_at"])
    op.create_index("ix_memory_diffs_goal", "memory_diffs", ["goal", "created_at"])
    op.create_index("ix_memory_diffs_after", "memory_diffs", ["after_id"])
    op.create_table(
        "delta_events",
        sa.Column("id", Seq, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("target", sa.String(100), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("before", sa.Text, nullable=False),
        sa.Column("after", sa.Text, nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.Column("actor", sa.String(32), nullable=False),
        sa.Column("group_id", sa.String(64), nullable=False),
        sa.Column("undoes", sa.String(64)),
        sa.Column("undone_by", sa.String(64)),
        sa.Column("note", sa.Text),
    )
    op.create_index("ix_delta_events_group", "delta_events", ["group_id"])
    op.create_index("ix_delta_events_target", "delta_events", ["kind", "target", "id"])

    now = datetime.now(UTC).replace(tzinfo=None)
    op.bulk_insert(sources, [
        {"name": n, "source_type": t, "weight": w, "enabled": True, "top_k": 10,
         "confidence_threshold": 0.0, "position": i, "updated_at": now}
        for i, (n, t, w) in enumerate(DEFAULT_SOURCES)
    ])
    op.bulk_insert(settings, [
        {"key": "normalize_weights", "value": "true"},
        {"key": "dominance_threshold", "value": "0.6"},
    ])


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
