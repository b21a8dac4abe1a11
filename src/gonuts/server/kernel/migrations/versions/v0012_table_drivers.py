"""Turn-based tables' drivers (issue 27): which server process runs each table's clock and bots.

``gn_table_drivers``: one row per turn-based table some process drives (times its deadlines
out, moves its bots), with that process's origin and until when its lease runs (renewed while
it lives, deleted when it lets the table go). A process claims a table with one ``INSERT … ON
CONFLICT DO UPDATE … WHERE`` the lease is its own or has run out, so two processes sharing a
database never both time out or drive the same table (``play/deadlines.py``). No foreign key: a
lease is not data, and a row left behind by a crash only runs out.

``gn_processes``: the server processes alive on the database (each renews its row while it
runs, deletes it at shutdown), so that they share the turn-based tables out evenly.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "gn_table_drivers",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("origin", sa.String(64), nullable=False),
        sa.Column("until", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_gn_table_drivers_origin", "gn_table_drivers", ["origin"])
    op.create_table(
        "gn_processes",
        sa.Column("origin", sa.String(64), primary_key=True),
        sa.Column("until", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("gn_processes")
    op.drop_index("ix_gn_table_drivers_origin", "gn_table_drivers")
    op.drop_table("gn_table_drivers")
