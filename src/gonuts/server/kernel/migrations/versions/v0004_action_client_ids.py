"""Acknowledged client ids stored with the actions, so a replayed ``act`` is never applied twice.

``gn_actions.client_id`` is the ``id`` a client sent with the action (NULL without one); a unique
index on (table, seat, client id) makes the database refuse a second action with the same id,
even from another server process or after a restart (docs/protocol.md, "Replays").

Revision ID: 0004
Revises: 0003
Create Date: 2025-01-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("gn_actions") as batch:
        batch.add_column(sa.Column("client_id", sa.String(40), nullable=True))
    op.create_index(
        "ux_gn_actions_client", "gn_actions", ["table_id", "seat", "client_id"], unique=True
    )


def downgrade() -> None:
    op.drop_index("ux_gn_actions_client", "gn_actions")
    with op.batch_alter_table("gn_actions") as batch:
        batch.drop_column("client_id")
