"""A table's turn clock and house rules.

``gn_tables.clock`` is the seconds each pending human decision may take (NULL: no clock);
``gn_tables.variants`` the table's house rules (RULES.md, "Variants"), comma-separated names in
their canonical order ("" for the default game).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("gn_tables") as batch:
        batch.add_column(sa.Column("clock", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("variants", sa.String(200), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("gn_tables") as batch:
        batch.drop_column("variants")
        batch.drop_column("clock")
