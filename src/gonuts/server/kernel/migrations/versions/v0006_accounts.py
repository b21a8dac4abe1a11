"""Player accounts, their sign-in sessions, ratings and rating history; seats linked to them.

``gn_accounts`` holds a public name (unique once folded: ``name_key``), an argon2id password
hash and the current openskill rating (``mu``, ``sigma``) with the rated games and wins;
``gn_account_sessions`` the SHA-256 of each sign-in cookie's token and when it expires;
``gn_ratings`` one row per account per rated game (before and after); ``gn_seats.account_id``
the account that sat at a seat (NULL for guests and bots). docs/server.md, "Accounts and
ratings".

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "gn_accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
    )
    op.create_table(
        "gn_account_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("gn_accounts.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_gn_account_sessions_account_id", "gn_account_sessions", ["account_id"])
    op.create_index("ix_gn_account_sessions_expires_at", "gn_account_sessions", ["expires_at"])
    op.create_table(
        "gn_ratings",
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("gn_accounts.id"), primary_key=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("gn_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_gn_ratings_account_rated", "gn_ratings", ["account_id", "rated_at"])
    with op.batch_alter_table("gn_seats") as batch:
        batch.add_column(sa.Column("account_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_gn_seats_account_id", "gn_accounts", ["account_id"], ["id"])
        batch.create_index("ix_gn_seats_account_id", ["account_id"])


def downgrade() -> None:
    with op.batch_alter_table("gn_seats") as batch:
        batch.drop_index("ix_gn_seats_account_id")
        batch.drop_constraint("fk_gn_seats_account_id", type_="foreignkey")
        batch.drop_column("account_id")
    op.drop_index("ix_gn_ratings_account_rated", "gn_ratings")
    op.drop_table("gn_ratings")
    op.drop_index("ix_gn_account_sessions_expires_at", "gn_account_sessions")
    op.drop_index("ix_gn_account_sessions_account_id", "gn_account_sessions")
    op.drop_table("gn_account_sessions")
    op.drop_table("gn_accounts")
