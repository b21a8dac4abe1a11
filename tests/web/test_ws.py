"""WebSocket play: a full game against bots, reconnecting, spectators, every refusal."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gonuts.server.play.messages import SERVER_MESSAGE
from web.helpers import create, hello, receive_until

BOTS2 = [{"kind": "human"}, {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "medium"}]


def stored_deck(db_url: str, table_id: str) -> list[str]:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        row = conn.execute(text("SELECT deck FROM gn_tables WHERE id = :i"), {"i": table_id}).one()
    engine.dispose()
    deck: list[str] = json.loads(row[0])
    return deck


def keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in keys(v)}
    return set()


def assert_secret_safe(msg: dict[str, Any], seat: int | None, deck: list[str]) -> None:
    raw = json.dumps(msg)
    assert "deck" not in keys(msg) and "token" not in keys(msg)
    assert json.dumps(deck) not in raw and json.dumps(deck[::-1]) not in raw
    if msg["type"] != "state":
        return
    view = msg["view"]
    assert view["seat"] == seat
    for event in msg["events"]:
        assert event.get("visible_to", seat) == seat, event
        if seat is None:
            assert event["type"] != "card_put_back"
    if view["phase"] == "select":
        assert all(p is None for i, p in enumerate(view["selections"]) if i != seat)
    if seat is None:
        assert view["drawn"] == [] and view["known_deck_top"] is None and view["my_pass"] is None
        assert view["legal"] == []
    elif view["actor"] != seat:
        assert view["drawn"] == []


def play_to_end(
    ws: Any, first: dict[str, Any], rng: random.Random, log: list[dict[str, Any]]
) -> None:
    """Answer every decision with a random legal action until the game is over.

    Like a real client: one action in flight at a time, and never an action chosen from a
    state older than the last acknowledgement (states sent before it may be stale).
    """
    acted_at: int | None = None
    pending: str | None = None
    acked_version = -1
    sent: dict[str, str] = {}
    msg = first
    for _ in range(20_000):
        if msg is not first:
            log.append(msg)
        if msg["type"] == "ack":
            assert sent[msg["id"]] == msg["action"]
            pending = None
            acked_version = msg["version"]
        elif msg["type"] == "error":
            assert msg.get("id") == pending, msg
            pending = None
        if msg["type"] != "state":
            msg = ws.receive_json()
            continue
        view = msg["view"]
        if view["over"]:
            assert msg["breakdown"] and view["winners"]
            return
        version = msg["version"]
        if view["legal"] and pending is None and version != acted_at and version >= acked_version:
            acted_at = version
            pending = f"a{version}"
            sent[pending] = rng.choice(view["legal"])["action"]
            ws.send_json({"type": "act", "action": sent[pending], "id": pending})
        msg = ws.receive_json()
    raise AssertionError("the game did not end")


def test_full_game_against_two_bots_with_spectator(client: TestClient, db_url: str) -> None:
    made = create(client, BOTS2)
    tid, token = made["table"]["id"], made["token"]
    deck = stored_deck(db_url, tid)
    log: list[dict[str, Any]] = []
    watched: list[dict[str, Any]] = []
    with (
        client.websocket_connect(f"/ws/tables/{tid}") as ws,
        client.websocket_connect(f"/ws/tables/{tid}") as spy,
    ):
        welcome = hello(spy, None)
        assert welcome["type"] == "welcome" and welcome["spectator"] and welcome["seat"] is None
        welcome = hello(ws, token, "es")
        assert welcome["seat"] == 0 and welcome["name"] == "Ana" and not welcome["hints"]
        first = receive_until(ws, "state", log)
        assert first["full"] and first["events_from"] == 0 and first["events"]
        assert first["events"][0]["type"] == "round_started"
        assert first["events"][0]["text"].startswith("Empieza la ronda 1")
        ws.send_json({"type": "hints", "on": True})
        hint = receive_until(ws, "hint", log)
        assert hint["hint"]["recommended"] in [a["action"] for a in first["view"]["legal"]]
        ws.send_json({"type": "hints", "on": False})
        play_to_end(ws, first, random.Random(1), log)
        spy.send_json({"type": "ping"})
        for _ in range(20_000):
            msg = spy.receive_json()
            watched.append(msg)
            if msg["type"] == "pong":
                break
    # acknowledgements precede the state they produced; events are contiguous
    versions = [m["version"] for m in log if m["type"] == "state"]
    assert versions == sorted(versions)
    for i, m in enumerate(log):
        if m["type"] == "ack":
            later = [x for x in log[i:] if x["type"] == "state"]
            assert later and later[0]["version"] >= m["version"]
    for stream in (log, watched):
        states = [m for m in stream if m["type"] == "state"]
        count = 0
        for m in states:
            if m["full"]:  # a full state replaces what the client had (e.g. after joining)
                count = 0
            assert m["events_from"] == count
            count += len(m["events"])
        assert any(e["type"] == "game_over" for m in states for e in m["events"])
    for m in log:
        assert_secret_safe(m, 0, deck)
    # every message is one of the protocol's models (gonuts.server.play.messages)
    kinds = {type(SERVER_MESSAGE.validate_python(m)).__name__ for m in [*log, *watched, welcome]}
    assert kinds >= {"Welcome", "State", "Ack", "HintMessage", "TableMessage", "Pong"}, kinds
    assert any(m["type"] == "state" and not m["view"]["over"] for m in watched)
    for m in watched:
        assert_secret_safe(m, None, deck)
    assert client.get("/api/games").json()["games"][0]["id"] == tid


def test_reconnect_with_token_mid_game(client: TestClient) -> None:
    made = create(client, BOTS2)
    tid, token = made["table"]["id"], made["token"]
    with client.websocket_connect(f"/ws/tables/{tid}") as ws:
        hello(ws, token)
        view = receive_until(ws, "state")["view"]
        while view["waiting_for"] != [0]:
            view = receive_until(ws, "state")["view"]
        for _ in range(3):
            ws.send_json({"type": "act", "action": view["legal"][0]["action"]})
            receive_until(ws, "ack")
            while True:
                msg = receive_until(ws, "state")
                view = msg["view"]
                if view["waiting_for"] == [0]:  # only I can move: the position is stable
                    break
        last = msg
    with client.websocket_connect(f"/ws/tables/{tid}") as ws:
        welcome = hello(ws, token)
        assert welcome["seat"] == 0
        again = receive_until(ws, "state")
        assert again["full"] and again["version"] == last["version"]
        assert again["view"] == last["view"]
        ws.send_json({"type": "act", "action": again["view"]["legal"][0]["action"]})
        assert receive_until(ws, "ack")["version"] == last["version"] + 1


def test_socket_refusals(client: TestClient) -> None:
    made = create(client, [{"kind": "human"}, {"kind": "human"}])
    tid, token = made["table"]["id"], made["token"]
    other = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()["token"]
    # unknown table
    with client.websocket_connect("/ws/tables/nope") as ws:
        assert ws.receive_json()["code"] == "unknown_table"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4404
    # forged token
    with client.websocket_connect(f"/ws/tables/{tid}") as ws:
        msg = hello(ws, "forged-token-000000000000000000")
        assert msg["type"] == "error" and msg["code"] == "bad_token"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4403
    with (
        client.websocket_connect(f"/ws/tables/{tid}") as ws,
        client.websocket_connect(f"/ws/tables/{tid}") as ben,
    ):
        # before hello
        ws.send_json({"type": "act", "action": "pick 1"})
        assert ws.receive_json()["code"] == "malformed"
        hello(ws, token)
        start = receive_until(ws, "state")
        hello(ben, other)
        receive_until(ben, "state")

        def refused(payload: str | bytes, code: str) -> None:
            if isinstance(payload, bytes):
                ws.send_bytes(payload)
            else:
                ws.send_text(payload)
            msg = ws.receive_json()
            while msg["type"] == "table":
                msg = ws.receive_json()
            assert msg["type"] == "error" and msg["code"] == code, msg
            assert msg["message"]

        refused("{not json", "malformed")
        refused("[]", "malformed")
        refused(json.dumps({"type": "teleport"}), "malformed")
        refused(json.dumps({"type": "act", "action": "pick 1", "seat": 1}), "malformed")
        refused(json.dumps({"type": "act", "action": 1}), "malformed")
        refused(json.dumps({"type": "hints", "on": "yes"}), "malformed")
        refused(json.dumps({"type": "hello", "token": token}), "malformed")
        refused(b'{"type": "ping"}', "malformed")
        refused(json.dumps({"type": "act", "action": "x" * 5000}), "too_large")
        refused(b"x" * 5000, "too_large")
        refused(json.dumps({"type": "act", "action": "pick one"}), "bad_action")
        refused(json.dumps({"type": "act", "action": "pick 7", "id": "x1"}), "illegal")
        refused(json.dumps({"type": "act", "action": "stop"}), "illegal")
        refused(json.dumps({"type": "lang", "lang": "fr"}), "unknown_language")
        # nothing changed
        assert client.get(f"/api/tables/{tid}").json()["version"] == 0
        ws.send_json({"type": "act", "action": "pick 2", "id": "ok"})
        assert ws.receive_json() == {"type": "ack", "id": "ok", "action": "pick 2", "version": 1}
        mine = receive_until(ws, "state")
        assert mine["view"]["selections"] == [2, None] and mine["view"]["waiting_for"] == [1]
        theirs = receive_until(ben, "state")
        assert theirs["view"]["selections"] == [None, None]
        refused(json.dumps({"type": "act", "action": "pick 3", "id": "x2"}), "not_your_turn")
        assert client.get(f"/api/tables/{tid}").json()["version"] == 1
        # switching language resends the whole state in that language
        ws.send_json({"type": "lang", "lang": "it"})
        full = receive_until(ws, "state")
        assert full["full"] and full["events"][0]["text"].startswith("Inizia il round 1")
        assert start["version"] == 0
    # spectators cannot act
    with client.websocket_connect(f"/ws/tables/{tid}") as spy:
        hello(spy, None)
        receive_until(spy, "state")
        spy.send_json({"type": "act", "action": "pick 1"})
        assert spy.receive_json()["code"] == "spectator"
        spy.send_json({"type": "hints", "on": True})
        assert spy.receive_json()["code"] == "spectator"
