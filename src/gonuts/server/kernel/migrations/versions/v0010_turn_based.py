"""Turn-based play (issue 27): absolute deadlines and the notifications outbox.

``gn_deadlines``: when the clock decides for each human seat of a table that must decide now
(UTC), so that a restart, a deploy or another process keeps every deadline; ``gn_outbox``:
each fact an account is to be told (a turn-based decision waits for its seat; a game ended),
stored once — unique by table, seat, decision and kind — so that two processes or a restart
never tell it twice; ``sent_at`` is set when the dispatcher has handed it to the channels.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "gn_deadlines",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("gn_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("decision", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_gn_deadlines_due", "gn_deadlines", ["due_at"])
    op.create_table(
        "gn_outbox",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("gn_accounts.id"), nullable=False),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("gn_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("decision", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
    )
    op.create_index(
        "ux_gn_outbox_fact", "gn_outbox", ["table_id", "seat", "decision", "kind"], unique=True
    )
    op.create_index("ix_gn_outbox_pending", "gn_outbox", ["sent_at", "account_id"])


def downgrade() -> None:
    op.drop_index("ix_gn_outbox_pending", "gn_outbox")
    op.drop_index("ux_gn_outbox_fact", "gn_outbox")
    op.drop_table("gn_outbox")
    op.drop_index("ix_gn_deadlines_due", "gn_deadlines")
    op.drop_table("gn_deadlines")
