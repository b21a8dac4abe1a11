"""Cross-site writes need proof (issue 30, item 3): a write that carries the session cookie
but no ``Origin`` is accepted only with ``Sec-Fetch-Site: same-origin``/``none`` or a
same-origin ``Referer``; bearer-token calls and cookie-less scripts are unchanged.

The app's decision does not touch the database: one SQLite app serves the whole module."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from starlette.testclient import TestClient

from gonuts.server import create_app
from gonuts.server.accounts.api import SignInLimits
from gonuts.server.accounts.service import COOKIE, Accounts
from gonuts.server.kernel.limits import BucketMap, Limits
from web.helpers import auth, create, error_code, state

PASSWORD = "correct horse battery"
HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "easy"}
SITE = "http://testserver"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("origin") / "gonuts.sqlite3"
    app = create_app(f"sqlite:///{db}", bot_delay=0, limits=Limits.unlimited())
    hasher = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)
    app.state.accounts = Accounts(app.state.service.store, hasher=hasher)
    app.state.sign_in_limits = SignInLimits(BucketMap(1000, 1000), BucketMap(1000, 1000))
    with TestClient(app) as c:
        assert c.headers["origin"] == SITE  # (the shared fixture's default, as a browser)
        yield c


NAMES = itertools.count()


def signed_in(client: TestClient, name: str) -> dict[str, str]:
    """A new account signed in (with the browser's Origin); its cookie as a header."""
    name = f"{name}{next(NAMES)}"
    client.cookies.clear()
    r = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    token = str(r.cookies[COOKIE])
    client.cookies.clear()
    return {"Cookie": f"{COOKIE}={token}"}


def who(client: TestClient, cookie: dict[str, str]) -> str | None:
    account: dict[str, Any] | None = client.get("/api/account", headers=cookie).json()["account"]
    return None if account is None else str(account["name"])


def sign_out(client: TestClient, headers: dict[str, str]) -> Any:
    """A sign-out with exactly these headers (no Origin unless given)."""
    saved = client.headers.pop("origin")
    try:
        return client.post("/api/account/signout", headers=headers)
    finally:
        client.headers["origin"] = saved


REFUSED = [
    pytest.param({}, id="no-proof"),
    pytest.param({"Referer": "https://evil.example/page"}, id="foreign-referer"),
    pytest.param(
        {"Referer": "https://evil.example/", "Sec-Fetch-Site": "cross-site"}, id="the-attack"
    ),
    pytest.param({"Sec-Fetch-Site": "same-site"}, id="sibling-site"),
    pytest.param(
        {"Sec-Fetch-Site": "cross-site", "Referer": f"{SITE}/lobby"}, id="browser-says-cross"
    ),
    pytest.param({"Referer": "http://testserver.evil.example/"}, id="lookalike-host"),
    pytest.param({"Referer": f"https://evil.example/?{SITE}/"}, id="host-in-query"),
    pytest.param({"Referer": "not a url ["}, id="junk-referer"),
]


@pytest.mark.parametrize("proof", REFUSED)
def test_a_cookie_write_without_origin_or_proof_is_refused(
    client: TestClient, proof: dict[str, str]
) -> None:
    cookie = signed_in(client, "Ana")
    r = sign_out(client, {**cookie, **proof})
    assert r.status_code == 403, r.text
    assert error_code(r) == "http_error"
    assert "Origin" in r.json()["error"]["message"]
    assert r.headers["content-security-policy"]  # (a refusal is a secured response too)
    assert who(client, cookie) is not None  # the sign-out did not happen


ACCEPTED = [
    pytest.param({"Sec-Fetch-Site": "same-origin"}, id="fetch-same-origin"),
    pytest.param({"Sec-Fetch-Site": "none"}, id="fetch-none"),
    pytest.param({"Referer": f"{SITE}/tables/abc"}, id="same-origin-referer"),
    pytest.param({"Origin": SITE}, id="same-origin"),
]


@pytest.mark.parametrize("proof", ACCEPTED)
def test_a_cookie_write_with_proof_is_accepted(client: TestClient, proof: dict[str, str]) -> None:
    cookie = signed_in(client, "Ben")
    r = sign_out(client, {**cookie, **proof})
    assert r.status_code == 200, r.text
    assert who(client, cookie) is None


def test_an_origin_of_another_site_is_refused_whatever_else_it_says(client: TestClient) -> None:
    cookie = signed_in(client, "Cid")
    r = sign_out(
        client,
        {**cookie, "Origin": "https://evil.example", "Sec-Fetch-Site": "same-origin"},
    )
    assert (r.status_code, error_code(r)) == (403, "http_error")
    assert who(client, cookie) is not None


def test_bearer_and_cookieless_writes_are_unchanged(client: TestClient) -> None:
    saved = client.headers.pop("origin")
    try:
        # a script: no cookie, no Origin
        made = create(client, [HUMAN, BOT])
        table, token = made["table"]["id"], made["token"]
        # a bearer call that also carries a cookie (a page of another site cannot send one)
        legal = state(client, table, token)["view"]["legal"][0]["action"]
        r = client.post(
            f"/api/tables/{table}/actions",
            json={"action": legal},
            headers={**auth(token), "Cookie": f"{COOKIE}=whatever"},
        )
        assert r.status_code == 200, r.text
        # the same write with the cookie and no bearer token: refused
        r = client.post(
            "/api/tables", json={"seats": [HUMAN, BOT]}, headers={"Cookie": f"{COOKIE}=x"}
        )
        assert (r.status_code, error_code(r)) == (403, "http_error")
        # reads need no proof
        assert client.get("/api/tables", headers={"Cookie": f"{COOKIE}=x"}).status_code == 200
    finally:
        client.headers["origin"] = saved


def test_the_shared_fixture_sends_the_browsers_origin(tmp_path: Path) -> None:
    with TestClient(
        create_app(f"sqlite:///{tmp_path / 'g.sqlite3'}"), base_url="https://h:8443"
    ) as c:
        assert c.headers["origin"] == "https://h:8443"
