"""PostgreSQL: every change to a table's rows NOTIFYs the other server processes.

Triggers on ``gn_tables``, ``gn_seats`` and ``gn_actions`` send ``NOTIFY gonuts`` with
``{"o": <application_name of the writer>, "t": <table id>}``, delivered when (and only if) the
change commits, whatever wrote it (docs/server.md, "More than one process"). SQLite: nothing.

Revision ID: 0003
Revises: 0002
Create Date: 2025-01-03
"""

from __future__ import annotations

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

TABLES = {"gn_tables": "id", "gn_seats": "table_id", "gn_actions": "table_id"}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        """
        CREATE OR REPLACE FUNCTION gn_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('gonuts', json_build_object(
                'o', current_setting('application_name'),
                't', to_jsonb(NEW) ->> TG_ARGV[0]
            )::text);
            RETURN NULL;
        END
        $$
        """
    )
    for table, id_column in TABLES.items():
        op.execute(
            f"CREATE TRIGGER {table}_notify AFTER INSERT OR UPDATE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION gn_notify('{id_column}')"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER IF EXISTS {table}_notify ON {table}")
    op.execute("DROP FUNCTION IF EXISTS gn_notify()")
