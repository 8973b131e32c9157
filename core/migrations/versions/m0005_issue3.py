"""browser indexes for SQL sorting — issue 3.

Reserved in the revision chain so features can land in any order; the owner of
issue 3 fills it in (until then it changes nothing).

Revision ID: 0005
Revises: 0004
"""

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
