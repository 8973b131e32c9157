"""Placeholder revision reserved for agents (issue 12): quarantine and agent provenance.

Reserved so that work on several features can add schema changes in a fixed order;
it changes nothing until that feature fills it in.

Revision ID: 0011
Revises: 0010
"""

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
