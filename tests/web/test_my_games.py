"""My games (issue 27, item 2) through the HTTP API, on SQLite and PostgreSQL: a signed-in
account's unfinished tables (turn-based with a stored deadline, real-time, not waiting,
filling), finished ones left out, the order, a guest's saved seats by token, a forged token,
the caps and the rate limit; the same answer from the database alone as from live tables."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from sqlalchemy import update
from starlette.testclient import TestClient

from gonuts.server.accounts.service import COOKIE, Accounts
from gonuts.server.kernel.db import DeadlineRow, SeatRow, TableRow, utcnow
from gonuts.server.kernel.limits import Limits
from gonuts.server.mygames.api import BURST
from gonuts.server.mygames.service import MAX_SAVED, MyGames
from web.helpers import AppFactory, auth, error_code, state, wait_until

PASSWORD = "correct horse battery"
HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "easy"}


@pytest.fixture
def app(make_app: AppFactory) -> FastAPI:
    app = make_app(limits=Limits.unlimited())
    fast = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)
    app.state.accounts = Accounts(app.state.service.store, hasher=fast)
    return app


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def sign_up(client: TestClient, name: str) -> None:
    r = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    assert client.cookies.get(COOKIE)


def new_table(client: TestClient, seats: list[dict[str, Any]]) -> tuple[str, str]:
    r = client.post("/api/tables", json={"seats": seats, "name": "Guest"})
    assert r.status_code == 201, r.text
    return r.json()["table"]["id"], r.json()["token"]


def join(client: TestClient, table_id: str, name: str) -> str:
    cookies = dict(client.cookies)
    client.cookies.clear()  # a guest, not the signed-in account
    r = client.post(f"/api/tables/{table_id}/join", json={"name": name})
    for k, v in cookies.items():
        client.cookies.set(k, v)
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


def to_move(client: TestClient, table_id: str, token: str) -> bool:
    return bool(state(client, table_id, token)["view"]["legal"])


def pick(client: TestClient, table_id: str, token: str) -> None:
    legal = state(client, table_id, token)["view"]["legal"]
    r = client.post(
        f"/api/tables/{table_id}/actions", json={"action": legal[0]["action"]}, headers=auth(token)
    )
    assert r.status_code == 200, r.text


def mine(client: TestClient, seats: list[dict[str, str]] | None = None) -> dict[str, Any]:
    r = (
        client.get("/api/my-games")
        if seats is None
        else client.post("/api/my-games", json={"seats": seats})
    )
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


@pytest.fixture
def tables(client: TestClient, app: FastAPI) -> dict[str, Any]:
    """Ana (signed in) at five tables: ``turn`` (turn-based, her deadline stored), ``live``
    (real-time against a bot, her pick due), ``others`` (she picked, Bo has not), ``filling``
    (open), ``done`` (finished). Bo is a guest at ``others``."""
    sign_up(client, "Ana")
    store = app.state.service.store
    live, live_token = new_table(client, [HUMAN, BOT])
    turn, turn_token = new_table(client, [HUMAN, BOT])
    others, others_token = new_table(client, [HUMAN, HUMAN, BOT])
    bo = join(client, others, "Bo")
    filling, _ = new_table(client, [HUMAN, HUMAN])
    done, done_token = new_table(client, [HUMAN, BOT])
    for table_id, token in ((live, live_token), (turn, turn_token), (others, others_token)):
        wait_until(partial(to_move, client, table_id, token), message="Ana to pick")
    pick(client, others, others_token)
    due = (utcnow() + timedelta(hours=5)).replace(microsecond=0)
    with store.sessions() as s, s.begin():
        s.execute(update(TableRow).where(TableRow.id == turn).values(clock=86400))
        s.execute(update(TableRow).where(TableRow.id == done).values(status="finished"))
        s.add(DeadlineRow(table_id=turn, seat=0, decision=0, due_at=due))
    return {
        "live": live,
        "turn": turn,
        "others": others,
        "filling": filling,
        "done": done,
        "bo": bo,
        "tokens": [live_token, turn_token, others_token, done_token],
        "due": due,
    }


def test_an_accounts_games_waiting_first_by_deadline(
    client: TestClient, tables: dict[str, Any]
) -> None:
    data = mine(client)
    ids = [g["table"] for g in data["games"]]
    assert ids == [tables["turn"], tables["live"], tables["others"], tables["filling"]]
    assert tables["done"] not in ids
    by_id = {g["table"]: g for g in data["games"]}
    turn, live, others, filling = (by_id[tables[k]] for k in ("turn", "live", "others", "filling"))
    assert turn["waiting"] and turn["turn_based"] and turn["clock"] == 86400
    assert turn["deadline"] == tables["due"].isoformat() + "Z"
    assert live["waiting"] and not live["turn_based"] and live["deadline"] is None
    assert not others["waiting"] and others["deadline"] is None
    assert others["opponents"][0] == "Bo" and len(others["opponents"]) == 2
    assert filling["status"] == "open" and filling["round"] == 0 and filling["free_seats"] == 1
    assert all(g["name"] == "Ana" and g["seat"] == 0 for g in data["games"])
    assert live["round"] == 1 and live["url"] == f"/t/{tables['live']}"
    assert data["waiting"] == 2
    assert not any(token in str(data) for token in tables["tokens"])  # no token travels back


def test_the_database_alone_gives_the_same_answer(
    client: TestClient, app: FastAPI, tables: dict[str, Any]
) -> None:
    """Another process (no live tables) rebuilds each game from its actions, once."""
    elsewhere = MyGames(app.state.service.store, {})
    account = app.state.service.store.account_by_key("ana")
    assert account is not None
    here = mine(client)
    there = elsewhere.games(account.id)
    assert there == here
    rebuilt = elsewhere.rebuilt
    assert rebuilt == 3  # the three games being played; the filling table has none
    assert elsewhere.games(account.id) == there
    assert elsewhere.rebuilt == rebuilt  # the second time from the cache


def test_a_seat_a_bot_plays_does_not_wait(
    client: TestClient, app: FastAPI, tables: dict[str, Any]
) -> None:
    """Replaced (a bot plays it after three timeouts): the bot decides, nobody waits for you."""
    store = app.state.service.store
    with store.sessions() as s, s.begin():
        s.execute(
            update(SeatRow)
            .where(SeatRow.table_id == tables["live"], SeatRow.seat == 0)
            .values(replaced=True)
        )
    account = store.account_by_key("ana")
    assert account is not None
    games = {g["table"]: g for g in MyGames(store, {}).games(account.id)["games"]}
    assert not games[tables["live"]]["waiting"]
    assert games[tables["turn"]]["waiting"]  # (its stored deadline says so)


def test_a_real_time_deadline_of_this_process(client: TestClient) -> None:
    """A real-time table with a clock, live here: this process's deadline for the seat."""
    table_id, token = new_table(client, [HUMAN, HUMAN])
    bo = join(client, table_id, "Bo")
    wait_until(lambda: to_move(client, table_id, token), message="Guest to pick")
    data = mine(client, [{"table": table_id, "token": token}])
    (game,) = data["games"]
    assert game["waiting"] and game["clock"] == 60 and not game["turn_based"]
    assert game["deadline"] is not None and game["opponents"] == ["Bo"]
    left = game["deadline"].removesuffix("Z")
    assert 0 < (type(utcnow()).fromisoformat(left) - utcnow()).total_seconds() <= 61
    assert bo not in str(data)


def test_a_guests_saved_seats(client: TestClient, tables: dict[str, Any]) -> None:
    client.cookies.clear()  # Bo is a guest: only the seat he holds
    assert mine(client) == {"games": [], "waiting": 0, "stale": []}
    forged = {"table": tables["live"], "token": "x" * 32}
    finished = {"table": tables["done"], "token": tables["tokens"][3]}
    data = mine(client, [{"table": tables["others"], "token": tables["bo"]}, forged, finished])
    (game,) = data["games"]
    assert game["table"] == tables["others"] and game["seat"] == 1 and game["name"] == "Bo"
    assert game["waiting"] and data["waiting"] == 1
    assert "Ana" in game["opponents"]
    assert data["stale"] == sorted([tables["live"], tables["done"]])
    # Ana's token for a table where Bo sits does not give Bo's seat
    wrong = {"table": tables["others"], "token": tables["tokens"][0]}
    assert mine(client, [wrong])["games"] == []


def test_an_account_and_its_saved_seats_together(
    client: TestClient, tables: dict[str, Any]
) -> None:
    """Signed in, the saved seats add the tables the account does not sit at (once each)."""
    seats = [
        {"table": tables["others"], "token": tables["bo"]},  # Ana's account sits here already
        {"table": tables["live"], "token": tables["tokens"][0]},
    ]
    data = mine(client, seats)
    assert [g["table"] for g in data["games"]] == [g["table"] for g in mine(client)["games"]]
    assert {g["seat"] for g in data["games"]} == {0}


def test_the_caps(client: TestClient) -> None:
    too_many = [{"table": f"t{i}", "token": "x" * 32} for i in range(MAX_SAVED + 1)]
    r = client.post("/api/my-games", json={"seats": too_many})
    assert r.status_code == 422 and error_code(r) == "malformed"
    r = client.post("/api/my-games", json={"seats": [{"table": "t" * 33, "token": "x"}]})
    assert r.status_code == 422
    r = client.post("/api/my-games", json={"seats": [], "more": 1})
    assert r.status_code == 422
    for odd in ("a\x00b", "a b", "ä", "a/b", "a'--"):  # (a NUL would be PostgreSQL's 500)
        r = client.post("/api/my-games", json={"seats": [{"table": odd, "token": "x"}]})
        assert r.status_code == 422, odd
        r = client.post("/api/my-games", json={"seats": [{"table": "t", "token": odd}]})
        assert r.status_code == 422, odd
    assert mine(client, too_many[:MAX_SAVED])["stale"] == sorted(
        s["table"] for s in too_many[:MAX_SAVED]
    )


def test_at_most_so_many_tables(client: TestClient, app: FastAPI, tables: dict[str, Any]) -> None:
    """The account's newest first, then the saved seats, up to the cap."""
    store = app.state.service.store
    account = store.account_by_key("ana")
    assert account is not None
    capped = MyGames(store, {})
    capped.max_tables = 2
    newest = {tables["filling"], tables["others"]}  # (made last, "done" being finished)
    assert {g["table"] for g in capped.games(account.id)["games"]} == newest
    bo = [(tables["others"], tables["bo"])]
    assert {g["table"] for g in capped.games(None, bo)["games"]} == {tables["others"]}
    capped.max_tables = 1
    assert len(capped.games(account.id, bo)["games"]) == 1


def test_the_page_is_the_app(client: TestClient) -> None:
    r = client.get("/my-games")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/js/main.js">' in r.text


def test_the_rate_limit(client: TestClient) -> None:
    codes = [client.get("/api/my-games").status_code for _ in range(BURST + 10)]
    assert codes[:BURST] == [200] * BURST
    assert 429 in codes[BURST:]  # (the bucket refills a little while they are sent)
