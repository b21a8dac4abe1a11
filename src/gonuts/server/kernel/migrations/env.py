"""Alembic environment: runs on the connection :func:`gonuts.server.kernel.db.migrate` passes
in, or on
``-x url=URL`` (or ``sqlalchemy.url``) when run from the ``alembic`` command line."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from gonuts.server.kernel.db import Base, make_engine


def run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    config = context.config
    connection = config.attributes.get("connection")
    if isinstance(connection, Connection):
        run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///gonuts.sqlite3 …")
    engine = make_engine(url, migrate_schema=False)
    try:
        with engine.connect() as conn:
            run(conn)
            conn.commit()
    finally:
        engine.dispose()


main()
