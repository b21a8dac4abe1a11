"""One token, one seat per table (issue 17, item 1): asking again with the token of a seat
already held answers that seat instead of taking another, for "play again" and for joining."""

from __future__ import annotations

from starlette.testclient import TestClient

from web.helpers import AppFactory, auth, create, error_code, wait_until

TWO_HUMANS_AND_A_BOT = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]


def finished_table(client: TestClient) -> tuple[str, str, str]:
    """A finished game of Ana and Ben (both replaced by bots at once); its id and their tokens."""
    made = create(client, TWO_HUMANS_AND_A_BOT)
    tid, ana = made["table"]["id"], made["token"]
    ben = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()["token"]
    for token in (ana, ben):  # each connects and leaves: a bot plays the seat to the end
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["type"] == "welcome"
    wait_until(
        lambda: client.get(f"/api/tables/{tid}").json()["status"] == "finished",
        timeout=40,
        message="the game to finish",
    )
    return tid, ana, ben


def taken(summary: dict[str, object]) -> list[object]:
    seats = summary["seats"]
    assert isinstance(seats, list)
    return [s["name"] for s in seats if s["kind"] == "human" and s["taken"]]


def test_play_again_twice_with_one_token_is_one_seat(make_app: AppFactory) -> None:
    with TestClient(make_app(replace_after=0.0)) as client:
        tid, ana, ben = finished_table(client)
        first = client.post(f"/api/tables/{tid}/again", headers=auth(ana)).json()
        for _ in range(3):  # a double click, a second tab
            again = client.post(f"/api/tables/{tid}/again", headers=auth(ana)).json()
            assert (again["seat"], again["token"]) == (first["seat"], first["token"])
            assert again["table"]["id"] == first["table"]["id"]
        new = client.get(f"/api/tables/{first['table']['id']}").json()
        assert taken(new) == ["Ana"] and new["status"] == "open"
        # the token works at the new table, and the other player still finds a seat
        state = client.get(f"/api/tables/{new['id']}/state", headers=auth(first["token"]))
        assert error_code(state) == "not_started"
        other = client.post(f"/api/tables/{tid}/again", headers=auth(ben)).json()
        assert other["seat"] == 1 and other["token"] != first["token"]
        assert other["table"]["status"] == "playing"
        assert sorted(map(str, taken(other["table"]))) == ["Ana", "Ben"]


def test_join_with_a_held_seats_token_is_that_seat(client: TestClient) -> None:
    made = create(client, [{"kind": "human"}] * 3)
    tid, ana = made["table"]["id"], made["token"]
    r = client.post(f"/api/tables/{tid}/join", json={"name": "Ana"}, headers=auth(ana))
    assert r.status_code == 200 and (r.json()["seat"], r.json()["token"]) == (0, ana)
    ben = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()
    again = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}, headers=auth(ben["token"]))
    assert (again.json()["seat"], again.json()["token"]) == (ben["seat"], ben["token"])
    assert taken(client.get(f"/api/tables/{tid}").json()) == ["Ana", "Ben"]
    # a token of another table is no seat here: a new seat
    other = create(client, [{"kind": "human"}] * 2)
    r = client.post(f"/api/tables/{tid}/join", json={"name": "Cy"}, headers=auth(other["token"]))
    assert r.json()["seat"] == 2 and r.json()["token"] != other["token"]
