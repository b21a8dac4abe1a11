"""The host's waiting room, table chat and the "Play now" queue (issue 26, items 1-3).

``gn_rooms``: a table's host (the creator's seat) and whether its chat is on; ``gn_chat``:
every line said at a table (shown live and in its replay); ``gn_play_now``: the clients waiting
for "Play now", shared by every server process on the database (docs/server.md).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "gn_rooms",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("gn_tables.id"), primary_key=True),
        sa.Column("host_seat", sa.Integer(), nullable=True),
        sa.Column("chat", sa.Boolean(), nullable=False),
    )
    op.create_table(
        "gn_chat",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("gn_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("text", sa.String(1200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_gn_chat_table", "gn_chat", ["table_id", "id"])
    op.create_table(
        "gn_play_now",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("client_key", sa.String(80), nullable=False, unique=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("counts", sa.String(20), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("gn_accounts.id"), nullable=True),
        sa.Column("rating", sa.Float(), nullable=True),
        sa.Column("queued_at", sa.DateTime(), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("token", sa.String(64), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("gn_play_now")
    op.drop_index("ix_gn_chat_table", "gn_chat")
    op.drop_table("gn_chat")
    op.drop_table("gn_rooms")
