"""Accounts their owners control (issue 26, item 4), on SQLite and PostgreSQL: a new password
(every other session ends), signing out everywhere, deleting the account (nothing in any table
names it afterwards; finished games keep their moves under "Deleted player", in records and
replays) and exporting its data."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import String, Text, insert, inspect, select, text
from starlette.testclient import TestClient

from gonuts.server.accounts.service import COOKIE
from gonuts.server.kernel.db import AccountRow, OutboxRow
from gonuts.server.kernel.i18n import DELETED_PLAYER
from gonuts.server.kernel.limits import Limits
from web.helpers import AppFactory, error_code, state
from web.test_accounts import (
    ORIGIN,
    PASSWORD,
    join_with,
    me,
    play_out,
    quick,
    seat_with,
    session,
    signup,
)

NEW_PASSWORD = "a much better passphrase"


@pytest.fixture
def app(make_app: AppFactory) -> FastAPI:
    return quick(make_app(limits=Limits.unlimited()))


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def sign_in(client: TestClient, name: str, password: str = PASSWORD) -> Any:
    client.cookies.clear()
    r = client.post(
        "/api/account/signin", json={"name": name, "password": password}, headers=ORIGIN
    )
    client.cookies.clear()
    return r


def post(client: TestClient, path: str, token: str | None, body: Any = None) -> Any:
    headers = session(token) if token else dict(ORIGIN)
    return client.post(path, json=body, headers=headers)


def test_a_new_password_ends_every_other_session(client: TestClient) -> None:
    here = signup(client, "Ana")
    there = sign_in(client, "Ana").cookies[COOKIE]
    r = post(
        client,
        "/api/account/password",
        here,
        {"password": "wrong one!", "new_password": NEW_PASSWORD},
    )
    assert (r.status_code, error_code(r)) == (401, "bad_credentials")
    r = post(client, "/api/account/password", here, {"password": PASSWORD, "new_password": "short"})
    assert (r.status_code, error_code(r)) == (422, "malformed")
    assert me(client, there) is not None  # refusals changed nothing
    r = post(
        client, "/api/account/password", here, {"password": PASSWORD, "new_password": NEW_PASSWORD}
    )
    assert r.status_code == 200 and r.json() == {"ended": 1}, r.text
    assert me(client, here) is not None and me(client, there) is None
    assert sign_in(client, "Ana").status_code == 401
    assert sign_in(client, "Ana", NEW_PASSWORD).status_code == 200
    r = post(
        client, "/api/account/password", None, {"password": PASSWORD, "new_password": NEW_PASSWORD}
    )
    assert (r.status_code, error_code(r)) == (401, "not_signed_in")


def test_sign_out_everywhere(client: TestClient) -> None:
    tokens = [signup(client, "Ana"), *(sign_in(client, "Ana").cookies[COOKIE] for _ in range(2))]
    ben = signup(client, "Ben")
    r = post(client, "/api/account/signout-everywhere", tokens[0])
    assert r.status_code == 200 and r.json() == {"ended": 3}, r.text
    assert all(me(client, t) is None for t in tokens)
    assert me(client, ben) is not None  # another account's session is not touched
    r = post(client, "/api/account/signout-everywhere", None)
    assert (r.status_code, error_code(r)) == (401, "not_signed_in")
    assert sign_in(client, "Ana").status_code == 200  # the password still works


def text_columns(client: TestClient) -> list[tuple[str, str]]:
    store = client.app.state.service.store  # type: ignore[attr-defined]
    found = []
    inspector = inspect(store.engine)
    for table in inspector.get_table_names():
        for column in inspector.get_columns(table):
            if isinstance(column["type"], String | Text):
                found.append((table, column["name"]))
    return found


def rows_naming(client: TestClient, needle: str) -> list[tuple[str, str, str]]:
    """Every (table, column, value) of every text column of every table that contains
    ``needle`` (case-folded)."""
    store = client.app.state.service.store  # type: ignore[attr-defined]
    hits = []
    with store.engine.connect() as conn:
        for table, column in text_columns(client):
            for (value,) in conn.execute(text(f'SELECT "{column}" FROM "{table}"')):
                if isinstance(value, str) and needle.casefold() in value.casefold():
                    hits.append((table, column, value[:80]))
    return hits


NAME = "Quixby Ana"


def test_deleting_an_account_leaves_no_row_naming_it(client: TestClient) -> None:
    ana, ben = signup(client, NAME), signup(client, "Ben")
    other = sign_in(client, NAME).cookies[COOKIE]
    store = client.app.state.service.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        ana_id = conn.scalar(select(AccountRow.id).where(AccountRow.name == NAME))
    # a rated game to the end, and a table still waiting for players
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
    made = seat_with(client, ana, seats)
    game_id = made["table"]["id"]
    joined = join_with(client, game_id, ben, "Ben")
    play_out(client, game_id, [made["token"], joined["token"]], seed=7)
    record_text = client.get(f"/api/games/{game_id}/record").text
    before = json.loads(record_text)
    assert before["players"][0] == NAME
    # a stored review of that game names its players too
    reviews = client.app.state.service.reviews.store  # type: ignore[attr-defined]
    reviews.save_review(
        game_id, "neural:1/0", record_text, json.dumps({"players": before["players"]})
    )
    assert reviews.review_count() == 1
    # and so do its chat lines (said under the name it had)
    client.app.state.service.store.add_chat(game_id, 0, NAME, "text", "good game")  # type: ignore[attr-defined]
    waiting = seat_with(client, ana, [{"kind": "human"}, {"kind": "human"}])["table"]["id"]
    # and a notification fact for it (the outbox of turn-based games, issue 27)
    with store.engine.begin() as conn:
        conn.execute(
            insert(OutboxRow).values(
                account_id=ana_id, table_id=game_id, seat=0, decision=-1, kind="ended"
            )
        )
    assert len(rows_naming(client, "quixby")) > 0  # (the scan sees the name while it is there)

    r = post(client, "/api/account/delete", ana, {"password": "not my password"})
    assert (r.status_code, error_code(r)) == (401, "bad_credentials")
    assert me(client, ana) is not None
    r = post(client, "/api/account/delete", ana, {"password": PASSWORD})
    assert r.status_code == 200 and r.json() == {"account": None}, r.text
    assert me(client, ana) is None and me(client, other) is None

    assert rows_naming(client, "quixby") == []
    assert reviews.review_count() == 0
    with store.engine.connect() as conn:
        for table, column in (
            ("gn_seats", "account_id"),
            ("gn_ratings", "account_id"),
            ("gn_account_sessions", "account_id"),
            ("gn_accounts", "id"),
            ("gn_outbox", "account_id"),
        ):
            n = conn.scalar(
                text(f"SELECT COUNT(*) FROM {table} WHERE {column} = :i"), {"i": ana_id}
            )
            assert n == 0, table
    # the profile is gone; Ben's rating stays, from the game as it was
    r = client.get("/api/players/Quixby%20Ana")
    assert (r.status_code, error_code(r)) == (404, "unknown_player")
    board = client.get("/api/leaderboard").json()
    assert [p["name"] for p in board["players"]] == ["Ben"]
    # the finished game: the same moves, the neutral name in the record and the listing
    after = json.loads(client.get(f"/api/games/{game_id}/record").text)
    assert after["players"] == [DELETED_PLAYER, *before["players"][1:]]
    assert after["actions"] == before["actions"] and after["deck"] == before["deck"]
    listed = next(g for g in client.get("/api/games").json()["games"] if g["id"] == game_id)
    assert listed["players"][0] == DELETED_PLAYER
    # the replay names the seat in the reader's language
    replay = client.get(f"/api/games/{game_id}/replay?lang=es").json()
    assert replay["players"][0] == DELETED_PLAYER
    labels = [s["label"] for s in replay["steps"] if s["actor"] == 0]
    assert labels and all(label.startswith("Jugador eliminado: ") for label in labels)
    # the waiting table shows the seat under the neutral name too
    seat0 = client.get(f"/api/tables/{waiting}").json()["seats"][0]
    assert seat0["name"] == DELETED_PLAYER
    # the name is free again: someone new may take it
    assert (
        client.post(
            "/api/account/signup", json={"name": NAME, "password": PASSWORD}, headers=ORIGIN
        ).status_code
        == 201
    )


def test_a_game_that_ends_after_the_deletion_shows_the_neutral_name(client: TestClient) -> None:
    ana, ben = signup(client, NAME), signup(client, "Ben")
    made = seat_with(client, ana, [{"kind": "human"}, {"kind": "human"}])
    game_id = made["table"]["id"]
    joined = join_with(client, game_id, ben, "Ben")
    legal = state(client, game_id, made["token"])["view"]["legal"]
    r = client.post(
        f"/api/tables/{game_id}/actions",
        json={"action": legal[0]["action"]},
        headers={"Authorization": f"Bearer {made['token']}"},
    )
    assert r.status_code == 200, r.text
    first = state(client, game_id, joined["token"])["view"]
    assert first["players"] == [NAME, "Ben"]
    assert post(client, "/api/account/delete", ana, {"password": PASSWORD}).status_code == 200
    # the running game is rebuilt under the new names: the same position, the neutral name
    now = state(client, game_id, joined["token"])["view"]
    assert now["players"] == [DELETED_PLAYER, "Ben"]
    assert {k: v for k, v in now.items() if k != "players"} == {
        k: v for k, v in first.items() if k != "players"
    }
    # the seat's token still plays it (as a guest now) to the end
    play_out(client, game_id, [made["token"], joined["token"]], seed=9)
    record = json.loads(client.get(f"/api/games/{game_id}/record").text)
    assert record["players"] == [DELETED_PLAYER, "Ben"]
    assert rows_naming(client, "quixby") == []
    assert client.get("/api/leaderboard").json()["players"] == []  # one account: unrated


def test_export_my_data(client: TestClient) -> None:
    ana, ben = signup(client, "Ana"), signup(client, "Ben")
    seats = [{"kind": "human"}, {"kind": "human"}]
    ids = []
    for seed in (3, 4):
        made = seat_with(client, ana, seats)
        joined = join_with(client, made["table"]["id"], ben, "Ben")
        play_out(client, made["table"]["id"], [made["token"], joined["token"]], seed=seed)
        ids.append(made["table"]["id"])
    seat_with(client, ana, seats)  # unfinished: not in the export
    r = client.get("/api/account/export", headers=session(ana))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.headers["content-disposition"].startswith("attachment;")
    data = r.json()
    assert data["format"] == "gonuts-account-export/1"
    profile = client.get("/api/players/Ana").json()
    assert data["profile"]["name"] == "Ana" and data["profile"]["rating"] == profile["rating"]
    assert data["profile"]["games"] == 2
    assert [h["game_id"] for h in data["ratings"]] == [h["game_id"] for h in profile["history"]]
    assert sorted(g["id"] for g in data["games"]) == sorted(ids)
    for game in data["games"]:
        assert game["seat"] == 0
        assert game["record"] == json.loads(client.get(f"/api/games/{game['id']}/record").text)
    assert "password" not in r.text and "argon2" not in r.text and ana not in r.text
    r = client.get("/api/account/export")
    assert (r.status_code, error_code(r)) == (401, "not_signed_in")


def test_exports_are_rate_limited(client: TestClient) -> None:
    ana = signup(client, "Ana")
    codes = [client.get("/api/account/export", headers=session(ana)).status_code for _ in range(5)]
    assert codes[:3] == [200] * 3 and codes[3:] == [429, 429]


def test_a_game_another_process_finishes_after_the_deletion(make_app: AppFactory) -> None:
    """The account is deleted through a second server process on the database; the first one,
    which holds the running game under the old name, finishes it: the record is scrubbed."""
    one, two = (quick(make_app(limits=Limits.unlimited())) for _ in range(2))
    with TestClient(one) as c1, TestClient(two) as c2:
        ana, ben = signup(c1, NAME), signup(c1, "Ben")
        made = seat_with(c1, ana, [{"kind": "human"}, {"kind": "human"}])
        game_id = made["table"]["id"]
        joined = join_with(c1, game_id, ben, "Ben")
        assert post(c2, "/api/account/delete", ana, {"password": PASSWORD}).status_code == 200
        play_out(c1, game_id, [made["token"], joined["token"]], seed=13)
        record = json.loads(c1.get(f"/api/games/{game_id}/record").text)
        assert record["players"] == [DELETED_PLAYER, "Ben"]
        assert rows_naming(c1, "quixby") == []
