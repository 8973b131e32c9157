"""Store safety: a row version on memories for optimistic concurrency.

``memories.version`` starts at 1 and is bumped by every audited change
(MemoryStore.apply_in); an edit can carry the version it was based on and is
refused when the row moved on.  ``ADD COLUMN`` with a constant default is a
metadata-only change on SQLite and PostgreSQL alike, so it is instant at 1M rows.
``PRAGMA application_id``/``user_version`` are set by the opener, not here.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "memories",
        sa.Column("version", sa.Integer(), nullable=False, server_default="1"),
    )


def downgrade() -> None:
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("version")
