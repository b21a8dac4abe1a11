"""The ``state`` message carries the signed-in player's rating (issue 25, item 4): the current
one while the game runs, and with this game's change once it is over and rated — so the header
and the end screen need not ask the profile. Guests, bots and spectators get null."""

from __future__ import annotations

from starlette.testclient import TestClient

from gonuts.server.kernel.limits import Limits
from gonuts.server.play.messages import SERVER_MESSAGE
from web.helpers import AppFactory, auth, state, wait_until
from web.test_pick_change import play_to_end

HUMANS2 = [{"kind": "human"}, {"kind": "human"}]


def test_a_rated_game_state_carries_the_rating_and_its_change(make_app: AppFactory) -> None:
    with TestClient(make_app(limits=Limits.unlimited())) as ana:
        signup(ana, "Ana")
        made = ana.post("/api/tables", json={"seats": HUMANS2, "name": "x"}).json()
        tid = made["table"]["id"]
        ana.cookies.clear()  # from here on the same client is Ben's browser
        signup(ana, "Ben")
        joined = ana.post(f"/api/tables/{tid}/join", json={"name": "y"}).json()
        ana.cookies.clear()
        tokens = [made["token"], joined["token"]]
        assert made["table"]["seats"][0]["name"] == "Ana" and joined["seat"] == 1
        first = state(ana, tid, tokens[0])
        assert first["rating"] == {"rating": 1000, "change": None}
        assert SERVER_MESSAGE.validate_python(first)
        assert state(ana, tid)["rating"] is None  # a spectator
        # a socket's state carries it too
        with ana.websocket_connect(f"/ws/tables/{tid}") as ws:
            ws.send_json({"type": "hello", "token": tokens[1]})
            assert ws.receive_json()["type"] == "welcome"
            msg = ws.receive_json()
            while msg["type"] != "state":
                msg = ws.receive_json()
            assert msg["rating"] == {"rating": 1000, "change": None}
        play_to_end(ana, tid, tokens)
        ratings = []
        for token, name in ((tokens[0], "Ana"), (tokens[1], "Ben")):

            def rated(t: str = token) -> bool:
                return state(ana, tid, t)["rating"]["change"] is not None

            wait_until(rated, message="the rating change")
            end = state(ana, tid, token)["rating"]
            profile = ana.get(f"/api/players/{name}").json()
            assert end == {"rating": profile["rating"], "change": profile["history"][-1]["change"]}
            ratings.append(end)
        winners = ana.get(f"/api/tables/{tid}").json()["winners"]
        changes = [r["change"] for r in ratings]
        if len(winners) == 1:  # the winner gains, the other loses
            assert changes[winners[0]] > 0 > changes[1 - winners[0]], (winners, changes)


def signup(client: TestClient, name: str) -> None:
    r = client.post("/api/account/signup", json={"name": name, "password": "donuts-123"})
    assert r.status_code == 201, r.text


def test_guests_and_bots_get_no_rating(client: TestClient) -> None:
    made = client.post(
        "/api/tables",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}], "name": "Gus"},
    ).json()
    tid = made["table"]["id"]
    assert state(client, tid, made["token"])["rating"] is None
    r = client.get(f"/api/tables/{tid}/state", headers=auth(made["token"]))
    assert r.json()["rating"] is None
