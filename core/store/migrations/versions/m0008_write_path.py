"""Placeholder revision reserved for the write path (issue 8): jobs, embedding model metadata.

Reserved so that work on several features can add schema changes in a fixed order;
it changes nothing until that feature fills it in.

Revision ID: 0008
Revises: 0007
"""

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
