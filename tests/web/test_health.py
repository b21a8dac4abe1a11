"""Liveness and readiness probes: ``/healthz`` always, ``/readyz`` only with a database at the
newest migration (docs/deploy.md)."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine
from starlette.testclient import TestClient

from gonuts.server.kernel.db import alembic_config, head_revision, make_engine, migrate
from web.helpers import AppFactory


def test_alive_and_ready(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}
    r = client.get("/readyz")
    assert r.status_code == 200 and r.json() == {"status": "ready"}


def test_not_ready_when_the_schema_is_behind(make_app: AppFactory, db_url: str) -> None:
    app = make_app()
    with TestClient(app) as client:
        engine = make_engine(db_url, migrate_schema=False)
        try:
            migrate_down = head_revision()
            assert client.get("/readyz").status_code == 200
            config = alembic_config()
            with engine.begin() as conn:
                config.attributes["connection"] = conn
                command.downgrade(config, "-1")
            r = client.get("/readyz")
            assert r.status_code == 503, r.text
            assert r.json()["status"] == "unavailable"
            assert r.json()["reason"].endswith(f"this server needs {migrate_down}")
            assert client.get("/healthz").status_code == 200  # alive all the same
            migrate(engine)
            assert client.get("/readyz").status_code == 200
        finally:
            engine.dispose()


def test_not_ready_when_the_database_is_unreachable(client: TestClient) -> None:
    store = client.app.state.service.store  # type: ignore[attr-defined]
    live = store.engine
    # nothing listens on port 1: every connection is refused
    store.engine = create_engine("postgresql+psycopg://gonuts@127.0.0.1:1/none")
    try:
        r = client.get("/readyz")
        assert r.status_code == 503, r.text
        assert r.json()["reason"].startswith("database unreachable")
        assert client.get("/healthz").status_code == 200
    finally:
        store.engine.dispose()
        store.engine = live
    assert client.get("/readyz").status_code == 200
