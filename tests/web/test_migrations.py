"""Alembic migrations: a database at an older revision (or from before migrations) upgrades in
place, on SQLite and PostgreSQL, and its games go on."""

from __future__ import annotations

import json
import threading
from datetime import datetime

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect, text
from starlette.testclient import TestClient

from gonuts.cards import KIND_IDS, canonical_deck
from gonuts.rng import seeded_shuffle
from gonuts.server.kernel.db import (
    FIRST_REVISION,
    Base,
    alembic_config,
    current_revision,
    hash_token,
    make_engine,
    migrate,
)
from web.helpers import AppFactory, auth

HEAD = "0012"


def old_table(engine: Engine) -> tuple[str, str, str]:
    """A two-player table at the first revision's schema, one pick made; its id and tokens."""
    deck = [KIND_IDS[k] for k in seeded_shuffle(canonical_deck(2), 7)]
    now = datetime(2025, 1, 1, 12, 0, 0)
    tokens = ("token-ana-000000000000000000000000", "token-ben-000000000000000000000000")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO gn_tables (id, created_at, status, players, deck) "
                "VALUES ('old1', :now, 'playing', 2, :deck)"
            ),
            {"now": now, "deck": json.dumps(deck)},
        )
        for seat, (name, token) in enumerate(zip(("Ana", "Ben"), tokens, strict=True)):
            conn.execute(
                text(
                    "INSERT INTO gn_seats (table_id, seat, kind, name, token_hash, hints, "
                    "replaced, last_seen) VALUES ('old1', :seat, 'human', :name, :hash, "
                    "false, false, :now)"
                ),
                {"seat": seat, "name": name, "hash": hash_token(token), "now": now},
            )
        conn.execute(
            text(
                "INSERT INTO gn_actions (table_id, seq, seat, notation, created_at) "
                "VALUES ('old1', 0, 0, 'pick 2', :now)"
            ),
            {"now": now},
        )
    return "old1", tokens[0], tokens[1]


def indexes(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return {str(ix["name"]) for ix in inspect(conn).get_indexes("gn_tables")}


def check_game_goes_on(make_app: AppFactory, table_id: str, ana: str, ben: str) -> None:
    with TestClient(make_app()) as client:
        mine = client.get(f"/api/tables/{table_id}/state", headers=auth(ana)).json()
        assert mine["version"] == 1 and mine["view"]["selections"] == [2, None]
        r = client.post(
            f"/api/tables/{table_id}/actions", json={"action": "pick 3"}, headers=auth(ben)
        )
        assert r.status_code == 200, r.text
        assert r.json()["version"] == 2


def test_upgrade_in_place_keeps_data(db_url: str, make_app: AppFactory) -> None:
    engine = make_engine(db_url, migrate_schema=False)
    try:
        migrate(engine, FIRST_REVISION)
        assert current_revision(engine) == FIRST_REVISION
        assert "ix_gn_tables_status_created" not in indexes(engine)
        table_id, ana, ben = old_table(engine)
        migrate(engine)
        assert current_revision(engine) == HEAD
        assert "ix_gn_tables_status_created" in indexes(engine)
        migrate(engine)  # again: nothing to do
        assert current_revision(engine) == HEAD
    finally:
        engine.dispose()
    check_game_goes_on(make_app, table_id, ana, ben)


def test_database_from_before_migrations_is_adopted(db_url: str, make_app: AppFactory) -> None:
    engine = make_engine(db_url, migrate_schema=False)
    try:
        migrate(engine, FIRST_REVISION)
        table_id, ana, ben = old_table(engine)
        with engine.begin() as conn:  # the first release made its tables with create_all
            conn.execute(text("DROP TABLE alembic_version"))
        assert current_revision(engine) is None
    finally:
        engine.dispose()
    check_game_goes_on(make_app, table_id, ana, ben)  # the app migrates at start
    engine = make_engine(db_url, migrate_schema=False)
    assert current_revision(engine) == HEAD
    engine.dispose()


def test_models_match_migrations_and_downgrade(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == []
        config = alembic_config()
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "base")
        assert current_revision(engine) is None
        with engine.connect() as conn:
            assert not inspect(conn).has_table("gn_tables")
        migrate(engine)
        assert current_revision(engine) == HEAD
    finally:
        engine.dispose()


def test_processes_starting_together_migrate_once(pg_url: str) -> None:
    """Two servers starting on a fresh PostgreSQL database: the advisory lock serializes them."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(3)

    def start() -> None:
        try:
            barrier.wait()
            make_engine(pg_url).dispose()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    engine = make_engine(pg_url, migrate_schema=False)
    assert current_revision(engine) == HEAD
    engine.dispose()


def test_accounts_revision_downgrades_and_upgrades_with_games_kept(db_url: str) -> None:
    """0006 (accounts, sessions, ratings, the seat's account) goes down to 0005 and up again
    on a database with a game: the game stays, the account tables come and go."""
    engine = make_engine(db_url, migrate_schema=False)
    try:
        migrate(engine, FIRST_REVISION)
        table_id, _, _ = old_table(engine)
        migrate(engine)
        with engine.connect() as conn:
            have = inspect(conn)
            assert {"gn_accounts", "gn_account_sessions", "gn_ratings"} <= set(
                have.get_table_names()
            )
            assert "account_id" in {c["name"] for c in have.get_columns("gn_seats")}
        config = alembic_config()
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0005")
        assert current_revision(engine) == "0005"
        with engine.connect() as conn:
            have = inspect(conn)
            assert not have.has_table("gn_accounts") and not have.has_table("gn_ratings")
            assert "account_id" not in {c["name"] for c in have.get_columns("gn_seats")}
            seats = conn.execute(
                text("SELECT count(*) FROM gn_seats WHERE table_id = :t"), {"t": table_id}
            )
            assert seats.scalar() == 2
        migrate(engine)
        assert current_revision(engine) == HEAD
        with engine.connect() as conn:
            assert "account_id" in {c["name"] for c in inspect(conn).get_columns("gn_seats")}
    finally:
        engine.dispose()
