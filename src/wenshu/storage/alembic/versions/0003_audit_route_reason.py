"""The audit log says why an assistant turn took its route.

Revision ID: 0003_audit_route_reason
Revises: 0002_audit_route_tools

One nullable column of audit_log: `route_reason`, the rule of assistant/route.py that chose the turn's route
("documents", "skill", "workspace", "definition", "followup", "tool", "data", "chitchat", "other"). Existing
rows and the data pipeline's own entries keep NULL. Never edit a revision that has shipped: add a new one
and change storage/schema.py to match (tests/test_storage_migrations.py compares the two).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_audit_route_reason"
down_revision = "0002_audit_route_tools"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("audit_log") as table:
        table.add_column(sa.Column("route_reason", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("audit_log") as table:
        table.drop_column("route_reason")
