"""Alembic schema migrations of the server's database (see docs/server.md).

:func:`gonuts.server.kernel.db.migrate` runs them at start; ``alembic`` on the command line
works with
``-x url=…`` against this directory (docs/server.md, "Migrations").
"""
