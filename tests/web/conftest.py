"""Fixtures for the web server tests: an app on a fresh database, clients, helpers.

Every test that takes ``db_url`` (directly or through ``make_app`` / ``client``) runs twice: on a
fresh SQLite file and on a fresh schema of the PostgreSQL database ``$GONUTS_TEST_PG_URL``
(``make test`` starts one with scripts/start-postgres.sh). Without that variable the PostgreSQL
runs are skipped, saying so. ``module_db_url`` does the same for a database shared by a module.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from starlette.testclient import TestClient

from gonuts.server import create_app
from gonuts.server.kernel.db import normalize_url
from web.helpers import AppFactory, browser_like

PG_ENV = "GONUTS_TEST_PG_URL"


@pytest.fixture(scope="session", autouse=True)
def _browser_like_clients() -> Iterator[None]:
    """Every TestClient of these tests sends a same-origin ``Origin``, as a browser does
    (:func:`web.helpers.browser_like`): the server refuses a cookie-carrying write with no
    proof of where it comes from. (Session-wide: module fixtures make clients too.)"""
    plain = TestClient.__init__

    def init(self: TestClient, *args: Any, **kwargs: Any) -> None:
        plain(self, *args, **kwargs)
        browser_like(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TestClient, "__init__", init)
        yield


BACKENDS = ("sqlite", "postgresql")


def pg_base_url() -> str:
    url = os.environ.get(PG_ENV, "").strip()
    if not url:
        pytest.skip(f"{PG_ENV} is not set (make test starts PostgreSQL: scripts/start-postgres.sh)")
    return normalize_url(url)


@contextmanager
def fresh_pg_schema() -> Iterator[str]:
    """The test PostgreSQL database seen through a fresh, empty schema (dropped on exit).

    Skips the test when ``$GONUTS_TEST_PG_URL`` is not set.
    """
    base = pg_base_url()
    schema = f"t_{secrets.token_hex(6)}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """The test PostgreSQL database seen through a fresh, empty schema (dropped afterwards)."""
    with fresh_pg_schema() as url:
        yield url


@pytest.fixture(scope="module", params=BACKENDS)
def module_db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """Like ``db_url``, but one fresh database shared by a whole module's tests."""
    if request.param == "postgresql":
        with fresh_pg_schema() as url:
            yield url
    else:
        yield f"sqlite:///{tmp_path_factory.mktemp('module-db') / 'gonuts-test.sqlite3'}"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def db_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "postgresql":
        url: str = request.getfixturevalue("pg_url")
        return url
    return f"sqlite:///{tmp_path / 'gonuts-test.sqlite3'}"


@pytest.fixture
def make_app(db_url: str) -> AppFactory:
    def factory(**kwargs: Any) -> FastAPI:
        kwargs.setdefault("bot_delay", 0)
        kwargs.setdefault("hint_iterations", 20)
        return create_app(db_url, **kwargs)

    return factory


@pytest.fixture
def client(make_app: AppFactory) -> Iterator[TestClient]:
    with TestClient(make_app()) as c:
        yield c
