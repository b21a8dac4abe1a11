"""Table chat (issue 26, item 3): seated players say a line or a quick reaction, everyone at
the table (spectators too) hears it with the sender's name, it is stored with the table and
read back (the replay), rate limited per socket and per seat, and off if the host said so."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from web.helpers import AppFactory, hello, receive_until, wait_until

TWO = [{"kind": "human"}, {"kind": "human"}]


def say(ws: Any, **body: Any) -> None:
    ws.send_text(json.dumps({"type": "chat", **body}))


def table_of_two(client: TestClient, **options: Any) -> tuple[str, str, str]:
    r = client.post("/api/tables", json={"seats": TWO, "name": "Ana", **options})
    assert r.status_code == 201, r.text
    tid, ana = r.json()["table"]["id"], r.json()["token"]
    ben = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()["token"]
    return tid, ana, ben


def test_a_line_reaches_the_table_and_is_kept(client: TestClient) -> None:
    tid, ana, ben = table_of_two(client)
    payload = '<img src=x onerror="alert(1)"> & <b>hi</b>'
    with (
        client.websocket_connect(f"/ws/tables/{tid}") as a,
        client.websocket_connect(f"/ws/tables/{tid}") as b,
        client.websocket_connect(f"/ws/tables/{tid}") as watcher,
    ):
        for ws, token in ((a, ana), (b, ben), (watcher, None)):
            assert hello(ws, token)["type"] == "welcome"
        say(a, text=f"  {payload}  ")
        heard = [receive_until(ws, "chat") for ws in (a, b, watcher)]
        for msg in heard:
            assert msg["seat"] == 0 and msg["name"] == "Ana"
            assert msg["text"] == payload  # as said (trimmed), never made markup of
            assert msg["reaction"] is None
        say(b, reaction="gg")
        msg = receive_until(a, "chat")
        assert (msg["seat"], msg["name"], msg["text"], msg["reaction"]) == (1, "Ben", None, "gg")
        say(watcher, text="I only watch")
        err = receive_until(watcher, "error")
        assert err["code"] == "spectator"
    log = client.get(f"/api/tables/{tid}/chat").json()
    assert log["enabled"] is True
    assert [(m["name"], m["text"], m["reaction"]) for m in log["messages"]] == [
        ("Ana", payload, None),
        ("Ben", None, "gg"),
    ]
    assert client.get("/api/tables/nope/chat").status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {"text": "two\nlines"},
        {"text": "x" * 301},
        {"text": "   "},
        {"text": "bell\x07"},
        {"text": "sep\u2028arator"},
        {"text": "evil \u202egnirts"},
        {"reaction": "poop"},
        {},
        {"text": "a", "reaction": "gg"},
        {"text": 5},
    ],
)
def test_bad_lines_are_refused(make_app: AppFactory, body: dict[str, Any]) -> None:
    with TestClient(make_app()) as client:
        tid, ana, _ = table_of_two(client)
        with client.websocket_connect(f"/ws/tables/{tid}") as a:
            assert hello(a, ana)["type"] == "welcome"
            say(a, **body)
            assert receive_until(a, "error")["code"] == "malformed"
            say(a, text="x" * 300)  # the longest line is fine
            assert receive_until(a, "chat")["text"] == "x" * 300
        assert len(client.get(f"/api/tables/{tid}/chat").json()["messages"]) == 1


def test_chat_off_at_creation(client: TestClient) -> None:
    tid, ana, _ = table_of_two(client, chat=False)
    assert client.get(f"/api/tables/{tid}/chat").json() == {"enabled": False, "messages": []}
    with client.websocket_connect(f"/ws/tables/{tid}") as a:
        assert hello(a, ana)["type"] == "welcome"
        say(a, reaction="hi")
        assert receive_until(a, "error")["code"] == "chat_off"


def test_rate_limits_per_socket_and_per_seat(client: TestClient) -> None:
    tid, ana, _ = table_of_two(client)
    with (
        client.websocket_connect(f"/ws/tables/{tid}") as one,
        client.websocket_connect(f"/ws/tables/{tid}") as two,
    ):
        assert hello(one, ana)["type"] == "welcome"
        assert hello(two, ana)["type"] == "welcome"
        results: list[str] = []
        for i in range(12):  # a burst from one socket: 5 pass, then refusals
            say(one, text=f"one {i}")
            results.append(receive_until(one, "error" if len(results) >= 5 else "chat")["type"])
        assert results.count("chat") == 5 and results[5:] == ["error"] * 7
        # the seat's bucket (8) is shared by its sockets: the second one gets only 3 more
        seen = []
        for i in range(5):
            say(two, text=f"two {i}")
            while True:
                msg = two.receive_json()
                if msg["type"] == "error" or (msg["type"] == "chat" and msg["text"] == f"two {i}"):
                    seen.append(msg["type"])
                    break
        assert seen == ["chat"] * 3 + ["error"] * 2
    assert len(client.get(f"/api/tables/{tid}/chat").json()["messages"]) == 8


def test_the_chat_stays_with_the_finished_game(make_app: AppFactory) -> None:
    with TestClient(make_app(replace_after=0.0)) as client:
        r = client.post(
            "/api/tables",
            json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}], "name": "Ana"},
        )
        tid, ana = r.json()["table"]["id"], r.json()["token"]
        with client.websocket_connect(f"/ws/tables/{tid}") as a:
            assert hello(a, ana)["type"] == "welcome"
            say(a, text="good game, bot")
            receive_until(a, "chat")
        # Ana left: a bot plays her seat to the end
        wait_until(
            lambda: client.get(f"/api/tables/{tid}").json()["status"] == "finished",
            timeout=40,
            message="the game to finish",
        )
        assert client.get(f"/api/games/{tid}/replay").status_code == 200
        log = client.get(f"/api/tables/{tid}/chat").json()
        assert [(m["name"], m["text"]) for m in log["messages"]] == [("Ana", "good game, bot")]


def test_play_again_keeps_chat_off(make_app: AppFactory) -> None:
    with TestClient(make_app(replace_after=0.0)) as client:
        seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
        r = client.post("/api/tables", json={"seats": seats, "name": "Ana", "chat": False})
        tid, ana = r.json()["table"]["id"], r.json()["token"]
        with client.websocket_connect(f"/ws/tables/{tid}") as a:
            assert hello(a, ana)["type"] == "welcome"
        wait_until(
            lambda: client.get(f"/api/tables/{tid}").json()["status"] == "finished",
            timeout=40,
            message="the game to finish",
        )
        again = client.post(f"/api/tables/{tid}/again", headers={"Authorization": f"Bearer {ana}"})
        new = again.json()["table"]["id"]
        assert client.get(f"/api/tables/{new}/room").json() == {"host_seat": None, "chat": False}
