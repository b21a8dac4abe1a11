"""Accounts through the HTTP API, on SQLite and PostgreSQL: sign up, sign in, sign out, the
session cookie's flags, rate limits, no user enumeration, seats linked to accounts, and the
ratings after a finished game (issue 11, item 2)."""

from __future__ import annotations

import hashlib
import random
import statistics
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from argon2 import PasswordHasher
from argon2.exceptions import VerifyMismatchError
from fastapi import FastAPI
from sqlalchemy import select
from starlette.testclient import TestClient
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from gonuts.server.accounts.api import SignInLimits
from gonuts.server.accounts.ratings import display
from gonuts.server.accounts.service import COOKIE, Accounts, dummy_hash
from gonuts.server.kernel.db import AccountSessionRow, utcnow
from gonuts.server.kernel.limits import BucketMap, Limits
from web.helpers import AppFactory, auth, error_code, state, wait_until

PASSWORD = "correct horse battery"
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)
"""Cheaper than the server's argon2id parameters: most tests only need a working hash."""


def quick(app: FastAPI) -> FastAPI:
    app.state.accounts = Accounts(app.state.service.store, hasher=FAST_HASHER)
    return app


@pytest.fixture
def app(make_app: AppFactory) -> FastAPI:
    # the games are played by polling, far over the per-address HTTP rate
    return quick(make_app(limits=Limits.unlimited()))


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def signup(client: TestClient, name: str, password: str = PASSWORD) -> str:
    """Sign up ``name``; its session token (the client's cookie jar is emptied again)."""
    r = client.post("/api/account/signup", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    token = str(r.cookies[COOKIE])
    client.cookies.clear()
    return token


ORIGIN = {"Origin": "http://testserver"}
"""What a browser sends with a same-origin POST (cookie-authenticated writes check it)."""


def session(token: str) -> dict[str, str]:
    return {"Cookie": f"{COOKIE}={token}", **ORIGIN}


def me(client: TestClient, token: str | None = None) -> dict[str, Any] | None:
    r = client.get("/api/account", headers=session(token) if token else {})
    assert r.status_code == 200, r.text
    account: dict[str, Any] | None = r.json()["account"]
    return account


def set_cookie_header(response: Any, cookie: str = COOKIE) -> str:
    """The response's one ``Set-Cookie`` of ``cookie`` (the session's unless told)."""
    headers = [
        v
        for k, v in response.headers.multi_items()
        if k.lower() == "set-cookie" and v.startswith(f"{cookie}=")
    ]
    assert len(headers) == 1, headers
    return str(headers[0])


def test_sign_up_sets_a_safe_session_cookie_and_signs_in(client: TestClient) -> None:
    r = client.post("/api/account/signup", json={"name": "  Ana   Maria ", "password": PASSWORD})
    assert r.status_code == 201, r.text
    assert r.json() == {"account": {"name": "Ana Maria", "rating": 1000, "games": 0, "wins": 0}}
    cookie = set_cookie_header(r)
    parts = {p.strip().split("=")[0].lower() for p in cookie.split(";")}
    assert cookie.startswith(f"{COOKIE}=")
    assert {"httponly", "path", "max-age", "samesite"} <= parts
    assert "samesite=lax" in cookie.lower()
    assert "secure" not in parts  # plain HTTP: a Secure cookie would never come back
    assert me(client) == {"name": "Ana Maria", "rating": 1000, "games": 0, "wins": 0}
    client.cookies.clear()
    assert me(client) is None


def test_the_cookie_is_secure_over_https(app: FastAPI) -> None:
    with TestClient(app, base_url="https://testserver") as c:
        r = c.post("/api/account/signup", json={"name": "Ana", "password": PASSWORD})
        assert r.status_code == 201, r.text
        parts = {p.strip().lower() for p in set_cookie_header(r).split(";")}
        assert "secure" in parts and "httponly" in parts


@pytest.mark.parametrize(("trusted", "secure"), [("testclient", True), ("10.9.8.7", False)])
def test_the_cookie_follows_a_trusted_proxys_scheme(
    make_app: AppFactory, trusted: str, secure: bool
) -> None:
    """Behind ``--forwarded-allow-ips`` (uvicorn's proxy-headers middleware) the scheme the
    proxy reports counts; a peer that is not a trusted proxy cannot claim HTTPS."""
    app: Any = quick(make_app())  # (uvicorn's ASGI types are narrower than Starlette's)
    proxied: Any = ProxyHeadersMiddleware(app, trusted_hosts=[trusted])
    with TestClient(proxied) as c:
        r = c.post(
            "/api/account/signup",
            json={"name": "Ana", "password": PASSWORD},
            headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"},
        )
        assert r.status_code == 201, r.text
        parts = {p.strip().lower() for p in set_cookie_header(r).split(";")}
        assert ("secure" in parts) is secure


def test_sessions_are_stored_hashed_and_expire(app: FastAPI, client: TestClient) -> None:
    token = signup(client, "Ana")
    store = app.state.service.store
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(AccountSessionRow.token_hash, AccountSessionRow.expires_at)
        ).all()
    assert [r.token_hash for r in rows] == [hashlib.sha256(token.encode()).hexdigest()]
    assert token not in repr(rows)
    life = rows[0].expires_at - utcnow()
    assert timedelta(days=29) < life <= timedelta(days=30)
    # a session past its expiry is refused even if the browser still sends its cookie
    app.state.accounts = Accounts(store, hasher=FAST_HASHER, session_days=-1 / 86400)
    r = client.post("/api/account/signin", json={"name": "Ana", "password": PASSWORD})
    assert r.status_code == 200
    # (the header, not the jar: an HTTP client drops a cookie whose Max-Age has passed)
    stale = set_cookie_header(r).split(";")[0].removeprefix(f"{COOKIE}=")
    client.cookies.clear()
    with store.engine.connect() as conn:
        hashes = set(conn.scalars(select(AccountSessionRow.token_hash)))
    assert hashlib.sha256(stale.encode()).hexdigest() in hashes  # stored, but expired
    assert me(client, stale) is None
    assert me(client, token) is not None  # the first session is still good


def test_sign_in_sign_out_and_the_old_cookie_is_dead(client: TestClient) -> None:
    signup(client, "Ana")
    r = client.post("/api/account/signin", json={"name": "ANA", "password": PASSWORD})
    assert r.status_code == 200, r.text
    token = r.cookies[COOKIE]
    client.cookies.clear()
    assert me(client, token) == {"name": "Ana", "rating": 1000, "games": 0, "wins": 0}
    r = client.post("/api/account/signout", headers=session(token))
    assert r.status_code == 200 and r.json() == {"account": None}
    cleared = set_cookie_header(r)
    assert cleared.startswith(f'{COOKIE}=""') or "max-age=0" in cleared.lower()
    assert me(client, token) is None  # the session is gone from the database, not just the jar


def test_sign_up_refusals(client: TestClient) -> None:
    signup(client, "Ana")
    for name, password, code, status in (
        ("ana", PASSWORD, "name_taken", 409),  # names are unique once case-folded
        ("Ａｎａ", PASSWORD, "name_taken", 409),  # … and NFKC-normalized (full-width letters)
        ("Ben", "short", "malformed", 422),
        ("Ben", "x" * 257, "malformed", 422),
        ("", PASSWORD, "malformed", 422),
        ("B" * 25, PASSWORD, "malformed", 422),
        ("Be\x07n", PASSWORD, "malformed", 422),
    ):
        r = client.post("/api/account/signup", json={"name": name, "password": password})
        assert (r.status_code, error_code(r)) == (status, code), (name, r.text)
    assert client.post(
        "/api/account/signup", json={"name": "Ben", "password": "x" * 256}
    ).is_success


def test_wrong_password_and_unknown_name_answer_alike(client: TestClient) -> None:
    signup(client, "Ana")
    wrong = client.post("/api/account/signin", json={"name": "Ana", "password": "not it at all"})
    unknown = client.post("/api/account/signin", json={"name": "Zoe", "password": PASSWORD})
    junk = client.post("/api/account/signin", json={"name": "", "password": PASSWORD})
    for r in (wrong, unknown, junk):
        assert r.status_code == 401
        assert (
            r.json()
            == wrong.json()
            == {"error": {"code": "bad_credentials", "message": "Wrong name or password."}}
        )
        assert COOKIE not in r.cookies
    es = client.post(
        "/api/account/signin?lang=es", json={"name": "Zoe", "password": PASSWORD}
    ).json()
    assert es["error"]["message"] == "Nombre o contraseña incorrectos."


def test_unknown_name_takes_as_long_as_a_wrong_password(make_app: AppFactory) -> None:
    """The server's own argon2id parameters: an unknown name still pays for one verification."""
    app = make_app()
    app.state.sign_in_limits = SignInLimits(BucketMap(1000, 1000), BucketMap(1000, 1000))
    with TestClient(app) as client:
        signup(client, "Ana")

        def timed(name: str) -> float:
            started = time.perf_counter()
            r = client.post("/api/account/signin", json={"name": name, "password": "nope nope"})
            assert r.status_code == 401
            return time.perf_counter() - started

        # interleaved, a pair at a time: a busy machine (CI's other test worker) slows both
        # alike, where two series one after the other could each meet a different load
        pairs = [(timed("Ana"), timed(f"Nobody{i}")) for i in range(7)]
    ratio = statistics.median(unknown / wrong for wrong, unknown in pairs)
    # one argon2id verification (~tens of ms or more) dominates both; without the dummy
    # verification an unknown name would answer in about a millisecond
    assert 0.5 < ratio < 2.0, pairs
    assert statistics.median(unknown for _, unknown in pairs) > 0.01


def test_sign_in_is_rate_limited_per_name_and_per_address(app: FastAPI) -> None:
    with TestClient(app) as client:
        signup(client, "Ana")
        app.state.sign_in_limits = SignInLimits(BucketMap(0.001, 5), BucketMap(0.001, 2))
        attempt = {"password": "wrong password"}
        codes = [
            client.post("/api/account/signin", json={"name": n, **attempt}).status_code
            for n in ("Ana", "ana", "ANA", "Ben", "Cid", "Dan")
        ]
        # Ana's name twice, then refused (per name, however it is spelled); Ben and Cid (no
        # accounts) use up the address's five; Dan is refused for the address
        assert codes == [401, 401, 429, 401, 401, 429]
        r = client.post("/api/account/signup", json={"name": "Eve", "password": PASSWORD})
        assert (r.status_code, error_code(r)) == (429, "rate_limited")
        # a name without an account has no bucket (made-up names cannot crowd real ones out)
        app.state.sign_in_limits = SignInLimits(BucketMap(0.001, 50), BucketMap(0.001, 2))
        codes = [
            client.post("/api/account/signin", json={"name": "Zed", **attempt}).status_code
            for _ in range(4)
        ]
        assert codes == [401] * 4
        assert app.state.sign_in_limits.per_name.buckets == {}


def test_cross_site_account_writes_are_refused(client: TestClient) -> None:
    evil = {"Origin": "https://evil.example"}
    for path in ("/api/account/signup", "/api/account/signin", "/api/account/signout"):
        r = client.post(path, json={"name": "Ana", "password": PASSWORD}, headers=evil)
        assert r.status_code == 403, path
    assert me(client) is None
    assert (
        client.post("/api/account/signin", json={"name": "Ana", "password": PASSWORD}).status_code
        == 401
    )


def test_profile_and_leaderboard_of_new_accounts(client: TestClient) -> None:
    signup(client, "Ana")
    assert client.get("/api/leaderboard").json() == {
        "players": [],
        "total": 0,
        "limit": 50,
        "offset": 0,
    }
    profile = client.get("/api/players/ana").json()
    assert profile["name"] == "Ana" and profile["rating"] == 1000
    assert profile["history"] == [] and profile["recent_games"] == []
    r = client.get("/api/players/Nobody")
    assert (r.status_code, error_code(r)) == (404, "unknown_player")


# -- games with accounts --------------------------------------------------------------------------


def play_out(client: TestClient, table_id: str, tokens: list[str], seed: int = 3) -> None:
    """Random legal moves for the human seats (bots move by themselves) until the end."""
    rng = random.Random(seed)
    deadline = time.monotonic() + 120
    while client.get(f"/api/tables/{table_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not end"
        moved = False
        for token in tokens:
            legal = state(client, table_id, token)["view"]["legal"]
            if legal:
                r = client.post(
                    f"/api/tables/{table_id}/actions",
                    json={"action": rng.choice(legal)["action"]},
                    headers=auth(token),
                )
                moved = moved or r.is_success
        if not moved:
            time.sleep(0.01)


def seat_with(client: TestClient, cookie: str, seats: list[dict[str, Any]]) -> dict[str, Any]:
    r = client.post(
        "/api/tables", json={"seats": seats, "name": "ignored"}, headers=session(cookie)
    )
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    return made


def join_with(client: TestClient, table_id: str, cookie: str | None, name: str) -> dict[str, Any]:
    r = client.post(
        f"/api/tables/{table_id}/join",
        json={"name": name},
        headers=session(cookie) if cookie else {},
    )
    assert r.status_code == 200, r.text
    joined: dict[str, Any] = r.json()
    return joined


def test_a_finished_game_with_two_accounts_is_rated(client: TestClient) -> None:
    ana, ben = signup(client, "Ana"), signup(client, "Ben")
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
    made = seat_with(client, ana, seats)
    table_id = made["table"]["id"]
    # the signed-in creator sits under the account's name, not the one typed
    assert made["table"]["seats"][0]["name"] == "Ana"
    # one account, one seat per table
    r = client.post(f"/api/tables/{table_id}/join", json={"name": "x"}, headers=session(ana))
    assert (r.status_code, error_code(r)) == (409, "table_full")
    joined = join_with(client, table_id, ben, "Someone else")
    assert joined["table"]["seats"][1]["name"] == "Ben"
    play_out(client, table_id, [made["token"], joined["token"]])

    summary = client.get(f"/api/tables/{table_id}").json()
    board = client.get("/api/leaderboard").json()
    assert board["total"] == 2
    by_name = {p["name"]: p for p in board["players"]}
    assert set(by_name) == {"Ana", "Ben"}
    for seat, name in enumerate(("Ana", "Ben")):
        assert by_name[name]["games"] == 1
        assert by_name[name]["wins"] == (1 if seat in summary["winners"] else 0)
    ratings = [p["rating"] for p in board["players"]]
    assert ratings == sorted(ratings, reverse=True)
    assert any(r != 1000 for r in ratings)

    profile = client.get("/api/players/Ana").json()
    assert len(profile["history"]) == 1
    point = profile["history"][0]
    assert point["game_id"] == table_id and point["rating"] == by_name["Ana"]["rating"]
    assert point["change"] == by_name["Ana"]["rating"] - 1000
    game = profile["recent_games"][0]
    assert game["id"] == table_id and game["seat"] == 0
    assert game["replay_url"] == f"/replay/{table_id}"
    assert game["rating_change"] == point["change"]
    assert game["players"][:2] == ["Ana", "Ben"] and game["scores"] == summary["scores"]
    assert client.get(f"/api/games/{table_id}/replay").is_success


def test_a_game_with_one_account_is_not_rated(client: TestClient) -> None:
    ana = signup(client, "Ana")
    made = seat_with(client, ana, [{"kind": "human"}, {"kind": "human"}])
    table_id = made["table"]["id"]
    guest = join_with(client, table_id, None, "Guest")
    play_out(client, table_id, [made["token"], guest["token"]], seed=5)
    assert client.get("/api/leaderboard").json()["players"] == []
    profile = client.get("/api/players/Ana").json()
    assert profile["games"] == 0 and profile["history"] == []
    assert [g["id"] for g in profile["recent_games"]] == [table_id]
    assert profile["recent_games"][0]["rating_change"] is None


def test_play_again_keeps_the_account_on_the_seat(client: TestClient) -> None:
    ana, ben = signup(client, "Ana"), signup(client, "Ben")
    made = seat_with(client, ana, [{"kind": "human"}, {"kind": "human"}])
    table_id = made["table"]["id"]
    joined = join_with(client, table_id, ben, "Ben")
    play_out(client, table_id, [made["token"], joined["token"]], seed=11)
    tokens = []
    for token in (made["token"], joined["token"]):
        r = client.post(f"/api/tables/{table_id}/again", headers=auth(token))
        assert r.status_code == 200, r.text
        tokens.append(r.json()["token"])
        next_id = r.json()["table"]["id"]
    wait_until(lambda: client.get(f"/api/tables/{next_id}").json()["status"] == "playing")
    play_out(client, next_id, tokens, seed=12)
    board = {p["name"]: p["games"] for p in client.get("/api/leaderboard").json()["players"]}
    assert board == {"Ana": 2, "Ben": 2}
    profile = client.get("/api/players/Ben").json()
    assert [g["id"] for g in profile["recent_games"]] == [next_id, table_id]
    assert [h["game_id"] for h in profile["history"]] == [table_id, next_id]
    assert profile["rating"] == display_of(profile)


def display_of(profile: dict[str, Any]) -> int:
    """The last point of the history is the current rating."""
    rating: int = profile["history"][-1]["rating"]
    assert rating == profile["rating"]
    return rating


def test_display_of_a_new_account_is_1000() -> None:
    assert display(25.0, 25.0 / 3) == 1000


def test_the_dummy_hash_costs_what_a_real_one_does() -> None:
    """An unknown name is checked against a made-up hash with the server's own parameters: a
    mismatch, never an error, and no cheaper (the parameters are the same)."""
    hasher = PasswordHasher()
    fake, real = dummy_hash(hasher), hasher.hash(PASSWORD)
    assert fake.split("$")[:4] == real.split("$")[:4]  # argon2id, version, m/t/p
    assert not hasher.check_needs_rehash(fake)
    with pytest.raises(VerifyMismatchError):
        hasher.verify(fake, PASSWORD)
    assert dummy_hash(hasher) != fake  # a fresh salt and digest each time


def test_the_password_lower_bound_is_eight(client: TestClient) -> None:
    """At the boundary: 7 characters refused, 8 accepted (not only a 5-character one)."""
    r = client.post("/api/account/signup", json={"name": "Cy", "password": "x" * 7})
    assert (r.status_code, error_code(r)) == (422, "malformed"), r.text
    assert client.post("/api/account/signup", json={"name": "Cy", "password": "x" * 8}).is_success
