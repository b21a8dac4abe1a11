"""Fixtures for the web server tests: an app on a fresh SQLite file, clients, helpers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from gonuts.server import create_app
from web.helpers import AppFactory


@pytest.fixture
def db_url(tmp_path: Path) -> str:
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
