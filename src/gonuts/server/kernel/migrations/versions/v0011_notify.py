"""Notifications' channels (issue 27): Web Push subscriptions and each account's settings.

``gn_push_subscriptions``: a browser's push subscription for an account (endpoint, keys;
unique by endpoint: one browser belongs to the account that subscribed it last);
``gn_notify_settings``: push and e-mail on or off, the address, whether it is verified, the
verification token's hash and expiry, the notifications' language. (The VAPID key pair is a
``gn_secrets`` row, made on first start.)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "gn_push_subscriptions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("gn_accounts.id"), nullable=False),
        sa.Column("endpoint", sa.String(1024), nullable=False, unique=True),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(40), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("failed_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_gn_push_subscriptions_account_id", "gn_push_subscriptions", ["account_id"])
    op.create_table(
        "gn_notify_settings",
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("gn_accounts.id"), primary_key=True),
        sa.Column("push", sa.Boolean(), nullable=False),
        sa.Column("email", sa.Boolean(), nullable=False),
        sa.Column("address", sa.String(254), nullable=True),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True, unique=True),
        sa.Column("token_expires", sa.DateTime(), nullable=True),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("gn_notify_settings")
    op.drop_index("ix_gn_push_subscriptions_account_id", "gn_push_subscriptions")
    op.drop_table("gn_push_subscriptions")
