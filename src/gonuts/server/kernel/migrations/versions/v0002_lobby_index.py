"""An index for the lobby's listing: open / playing tables, newest first.

Revision ID: 0002
Revises: 0001
Create Date: 2025-01-02
"""

from __future__ import annotations

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index("ix_gn_tables_status_created", "gn_tables", ["status", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_gn_tables_status_created", "gn_tables")
