"""Server secrets (the device cookies' HMAC key), and account names re-folded.

``gn_secrets`` holds named random secrets that every server process on the database shares:
``device_cookie``, the key of the sign-in device cookies (docs/protocol.md, "Sign-in limits"),
made by the first process that needs it. Account names are now folded with blank-looking
letters read as spaces and variation selectors dropped (``gonuts.server.lobby.rules.fold_name``):
the few keys that change are rewritten (a key that would collide is left as it was).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None

_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_SELECTORS = frozenset(
    [chr(c) for c in range(0xFE00, 0xFE10)] + [chr(c) for c in range(0xE0100, 0xE01F0)]
)


def _fold(name: str) -> str:
    """The fold of revision 0007 (a copy: a migration does not change with the code)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    folded = "".join(" " if ch in _BLANKS else ch for ch in folded if ch not in _SELECTORS)
    return " ".join(folded.split())


def upgrade() -> None:
    op.create_table(
        "gn_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    conn = op.get_bind()
    accounts = sa.table(
        "gn_accounts", sa.column("id", sa.Integer), sa.column("name"), sa.column("name_key")
    )
    rows = conn.execute(sa.select(accounts.c.id, accounts.c.name, accounts.c.name_key)).all()
    keys = {r.name_key for r in rows}
    for r in rows:
        key = _fold(r.name)
        if key != r.name_key and key not in keys and 0 < len(key) <= 64:
            conn.execute(accounts.update().where(accounts.c.id == r.id).values(name_key=key))
            keys.add(key)


def downgrade() -> None:
    op.drop_table("gn_secrets")
