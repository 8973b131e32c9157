"""Placeholder revision reserved for the read path (issue 9): retrievals, preference rotation cursors.

Reserved so that work on several features can add schema changes in a fixed order;
it changes nothing until that feature fills it in.

Revision ID: 0010
Revises: 0009
"""

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
