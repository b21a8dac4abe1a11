"""Game reviews: one row per finished game and analyser (``gn_reviews``), the review's JSON
as ``gonuts review --json`` writes it, and the SHA-256 of the record it judged.
docs/review.md, "In the browser".

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "gn_reviews",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("gn_tables.id"), primary_key=True),
        sa.Column("analyser", sa.String(40), primary_key=True),
        sa.Column("record_sha", sa.String(64), nullable=False),
        sa.Column("review", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("gn_reviews")
