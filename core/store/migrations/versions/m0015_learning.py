"""What the desk learns from sweep decisions: how each sweep item was picked (uniform
draw with its inclusion probability, or guided pick with score and reason), trained
models (guided sweeps, importance calibration) as JSON parameters with their training
date and decision count, and per-source auto-apply of calibrated importances.

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sweep_picks",
        sa.Column("sweep_id", sa.String(32), sa.ForeignKey("sweeps.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("pos", sa.Integer, primary_key=True),
        sa.Column("guided", sa.Boolean, nullable=False),
        sa.Column("inclusion_p", sa.Float, nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("reason", sa.Text),
        sa.Column("model_id", sa.String(32)),
    )
    op.create_table(
        "curation_models",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("trained_at", sa.DateTime, nullable=False),
        sa.Column("decisions", sa.Integer, nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("metrics", sa.Text),
    )
    op.create_index("ix_curation_models_kind", "curation_models", ["kind", "trained_at"])
    op.create_table(
        "calibration_sources",
        sa.Column("source", sa.String(64), primary_key=True),
        sa.Column("auto_apply", sa.Boolean, nullable=False),
        sa.Column("since", sa.DateTime, nullable=False),
        sa.Column("actor", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
