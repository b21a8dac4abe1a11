"""The schema of the first web release: tables, seats, actions, finished games.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "gn_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("deck", sa.Text(), nullable=False),
        sa.Column("next_table", sa.String(32), nullable=True),
    )
    op.create_index("ix_gn_tables_status", "gn_tables", ["status"])
    op.create_table(
        "gn_seats",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("gn_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("hints", sa.Boolean(), nullable=False),
        sa.Column("replaced", sa.Boolean(), nullable=False),
        sa.Column("last_seen", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_gn_seats_token_hash", "gn_seats", ["token_hash"])
    op.create_table(
        "gn_actions",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("gn_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("notation", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "gn_finished",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("gn_tables.id"), primary_key=True),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("scores", sa.Text(), nullable=False),
        sa.Column("winners", sa.Text(), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
    )
    op.create_index("ix_gn_finished_finished_at", "gn_finished", ["finished_at"])


def downgrade() -> None:
    op.drop_table("gn_finished")
    op.drop_table("gn_actions")
    op.drop_index("ix_gn_seats_token_hash", "gn_seats")
    op.drop_table("gn_seats")
    op.drop_index("ix_gn_tables_status", "gn_tables")
    op.drop_table("gn_tables")
