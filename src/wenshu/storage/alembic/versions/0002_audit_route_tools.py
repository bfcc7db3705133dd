"""The audit log says which route an assistant turn took and which tools it called.

Revision ID: 0002_audit_route_tools
Revises: 0001_baseline

Two nullable columns of audit_log: `route` (the general assistant's route: agent, wide, direct; NULL for an
answer of the data pipeline) and `tools` (the tools the turn called, in order: name, shortened arguments,
outcome). Existing rows keep NULL in both. Never edit a revision that has shipped: add a new one and change
storage/schema.py to match (tests/test_storage_migrations.py compares the two).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_audit_route_tools"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("audit_log") as table:
        table.add_column(sa.Column("route", sa.String(16), nullable=True))
        table.add_column(sa.Column("tools", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("audit_log") as table:
        table.drop_column("tools")
        table.drop_column("route")
