"""Placeholder revision reserved for store safety (issue 10): row versions for optimistic concurrency.

Reserved so that work on several features can add schema changes in a fixed order;
it changes nothing until that feature fills it in.

Revision ID: 0009
Revises: 0008
"""

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
