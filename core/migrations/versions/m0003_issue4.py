"""curation tables (revaluation sweeps, contradiction dismissals) — issue 4.

Reserved in the revision chain so features can land in any order; the owner of
issue 4 fills it in (until then it changes nothing).

Revision ID: 0003
Revises: 0002
"""

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
