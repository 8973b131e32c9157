"""Episodes: every turn that enters the write path is kept as said.

- ``episodes``: one row per episode memory (a ``memories`` row of type ``episode``):
  its user, session, speaker, the session's time, the resolved event date and the key
  that stores an identical turn once.
- ``memory_provenance.episode_id``: the episode a unit was extracted from (indexed, so
  an episode's units are one lookup).
- ``jobs.speaker`` / ``jobs.said_at``: what the agent said of the turn, kept with the
  queued job until the worker writes the episode.

Plain Alembic operations: portable to PostgreSQL.

Revision ID: 0021
Revises: 0020
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "episodes",
        sa.Column("memory_id", sa.String(64),
                  sa.ForeignKey("memories.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("user_id", sa.String(200), nullable=False),
        sa.Column("session_id", sa.String(200), nullable=True),
        sa.Column("speaker", sa.String(200), nullable=True),
        sa.Column("said_at", sa.DateTime(), nullable=True),
        sa.Column("event_start", sa.DateTime(), nullable=True),
        sa.Column("event_end", sa.DateTime(), nullable=True),
        sa.Column("event_granularity", sa.String(16), nullable=True),
        sa.Column("event_phrase", sa.Text(), nullable=True),
        sa.Column("date_note", sa.Text(), nullable=True),
        sa.Column("dedup_key", sa.String(64), nullable=True, unique=True),
        sa.Column("job_id", sa.String(32), nullable=True),
    )
    op.create_index("ix_episodes_user_said", "episodes", ["user_id", "said_at"])
    # Plain ADD COLUMN (nullable, no default): SQLite adds it without copying the table.
    op.add_column("memory_provenance", sa.Column("episode_id", sa.String(64), nullable=True))
    op.create_index("ix_memory_provenance_episode", "memory_provenance", ["episode_id"])
    op.add_column("jobs", sa.Column("speaker", sa.String(200), nullable=True))
    op.add_column("jobs", sa.Column("said_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
