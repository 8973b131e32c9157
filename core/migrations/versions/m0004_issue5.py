"""delta memory tables (sources, memory sets, diffs, drift reviews) — issue 5.

Reserved in the revision chain so features can land in any order; the owner of
issue 5 fills it in (until then it changes nothing).

Revision ID: 0004
Revises: 0003
"""

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
