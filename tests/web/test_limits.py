"""Limits: message and body sizes, rates per connection and per address (messages, requests,
WebSocket handshakes), open tables per client ("play again" included), the hello deadline, and
replayed acts applied once (also after a restart, and when another process stored the id
first)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gonuts.server import create_app
from gonuts.server.kernel.limits import BucketMap, Limits, TableQuota, TokenBucket
from web.helpers import (
    AppFactory,
    auth,
    create,
    error_code,
    hello,
    receive_until,
    state,
    wait_until,
)
from web.test_seats import finished_table

TWO = [{"kind": "human"}, {"kind": "human"}]
BOTS = [{"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}]


def app_with(db_url: str, **limits: Any) -> TestClient:
    """An app with these limits, on SQLite and on PostgreSQL (the ``db_url`` fixture)."""
    return TestClient(create_app(db_url, bot_delay=0, limits=Limits(**limits)))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_and_maps() -> None:
    clock = Clock()
    bucket = TokenBucket(2.0, 3, clock)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    assert bucket.wait_time() == pytest.approx(0.5)
    clock.now = 0.5
    assert bucket.take() and not bucket.take()
    clock.now = 100.0
    assert sum(bucket.take() for _ in range(10)) == 3  # never more than the burst
    buckets = BucketMap(1.0, 1, clock, size=2)
    assert buckets.take("a") is None and buckets.take("a") is not None
    assert buckets.take("b") is None and buckets.take("c") is None
    assert len(buckets.buckets) == 2  # the idle one was forgotten
    quota = TableQuota(2)
    live = {"t1", "t2"}
    assert quota.reserve("ip", live.__contains__)
    quota.settle("ip", "t1")
    assert quota.reserve("ip", live.__contains__)
    assert not quota.reserve("ip", live.__contains__)  # one made, one being made
    assert quota.reserve("other", live.__contains__)
    quota.settle("ip", "t2")
    live.discard("t1")  # finished
    assert quota.reserve("ip", live.__contains__)
    quota.settle("ip", None)  # a failed creation gives the slot back
    assert TableQuota(None).reserve("x", live.__contains__)
    with pytest.raises(ValueError):
        Limits(max_message=10)


def test_socket_rate_limit_refuses_then_closes(db_url: str) -> None:
    with app_with(db_url, ws_rate=0.01, ws_burst=3, ws_strikes=4) as client:
        tid = create(client, TWO)["table"]["id"]
        with client.websocket_connect(f"/ws/tables/{tid}", headers={"Accept-Language": "es"}) as ws:
            hello(ws, None, "es")  # 1 token
            ws.send_json({"type": "ping"})
            ws.send_json({"type": "ping"})
            for _ in range(10):
                ws.send_json({"type": "ping"})
            got: list[dict[str, Any]] = []
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    got.append(ws.receive_json())
            assert closed.value.code == 1008
        assert [m["type"] for m in got].count("pong") == 2
        errors = [m for m in got if m["type"] == "error"]
        assert len(errors) == 4 and {m["code"] for m in errors} == {"rate_limited"}
        assert errors[0]["message"].startswith("Demasiados mensajes")
        # the server goes on serving
        assert client.get(f"/api/tables/{tid}").status_code == 200


def test_http_rate_limit_per_address(db_url: str) -> None:
    with app_with(db_url, http_rate=0.01, http_burst=3) as client:
        for _ in range(3):
            assert client.get("/api/config").status_code == 200
        r = client.get("/api/config?lang=it")
        assert r.status_code == 429 and error_code(r) == "rate_limited"
        assert int(r.headers["Retry-After"]) >= 1 and "Troppi" in r.json()["error"]["message"]
        assert client.get("/").status_code == 200  # pages and static files are not counted
        assert client.get("/rules").status_code == 200


def test_body_limits(db_url: str) -> None:
    with app_with(db_url, max_json_body=1000, max_record=2000) as client:
        big = json.dumps({"seats": TWO, "name": "x" * 1500})
        r = client.post("/api/tables", content=big, headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and error_code(r) == "too_large"
        # over every limit: refused before any handler reads it, on any path
        r = client.post("/api/replay", content=b"x" * 2500)
        assert r.status_code == 413 and error_code(r) == "too_large"
        r = client.post("/api/tables/abc/join", content=b"x" * 5000)
        assert r.status_code == 413
        # a streamed (chunked) body without Content-Length is cut off too

        def chunks() -> Any:
            for _ in range(10):
                yield b"y" * 300

        r = client.post("/api/tables", content=chunks())
        assert r.status_code == 413 and error_code(r) == "too_large"
        assert client.get("/api/tables").json()["tables"] == []
        assert client.get("/api/config").json()["max_message_bytes"] == 4096


def test_open_tables_per_client(db_url: str) -> None:
    with app_with(db_url, max_open_tables=2) as client:
        create(client, TWO)
        create(client, BOTS, name=None)  # plays by itself to the end
        wait_until(
            lambda: client.get("/api/tables?status=finished").json()["tables"] != [],
            message="the bots' game to end",
        )
        create(client, TWO)  # the finished table does not count
        r = client.post("/api/tables", json={"seats": TWO}, headers={"Accept-Language": "es"})
        assert r.status_code == 429 and error_code(r) == "too_many_tables"
        assert r.json()["error"]["message"].startswith("Ya tienes demasiadas mesas")
        assert len(client.get("/api/tables?status=open").json()["tables"]) == 2


def test_hello_deadline(db_url: str) -> None:
    with app_with(db_url, hello_timeout=0.2) as client:
        tid = create(client, TWO)["table"]["id"]
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:
            msg = ws.receive_json()  # sent nothing
            assert msg["type"] == "error" and msg["code"] == "malformed"
            assert "hello" in msg["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1008


def test_replayed_act_is_applied_once(db_url: str) -> None:
    with app_with(db_url, http_rate=None) as client:
        made = create(client, TWO)
        tid, token = made["table"]["id"], made["token"]
        other = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()["token"]
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:
            hello(ws, token)
            receive_until(ws, "state")
            act = {"type": "act", "action": "pick 2", "id": "c1"}
            ws.send_json(act)
            first = receive_until(ws, "ack")
            assert first == {"type": "ack", "id": "c1", "action": "pick 2", "version": 1}
            receive_until(ws, "state")
            ws.send_json(act)  # the ack was lost, say: the same answer, nothing applied
            assert receive_until(ws, "ack") == first
            ws.send_json({"type": "act", "action": "pick 3", "id": "c1"})  # forged reuse
            msg = receive_until(ws, "error")
            assert msg["code"] == "malformed" and msg["id"] == "c1"
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:  # after a reconnect too
            hello(ws, token)
            receive_until(ws, "state")
            ws.send_json(act)
            assert receive_until(ws, "ack") == first
        assert client.get(f"/api/tables/{tid}").json()["version"] == 1
        # over HTTP, with the same id memory
        body = {"action": "pick 1", "id": "h1"}
        r1 = client.post(f"/api/tables/{tid}/actions", json=body, headers=auth(other))
        r2 = client.post(f"/api/tables/{tid}/actions", json=body, headers=auth(other))
        assert r1.json() == r2.json() == {"ok": True, "version": 2}
        assert client.get(f"/api/tables/{tid}").json()["version"] == 2
        # after the game ends a replay is still only acknowledged
        for _ in range(500):
            summary = client.get(f"/api/tables/{tid}").json()
            if summary["status"] == "finished":
                break
            for seat_token in (token, other):
                legal = state(client, tid, seat_token)["view"]["legal"]
                if legal:
                    r = client.post(
                        f"/api/tables/{tid}/actions",
                        json={"action": legal[0]["action"]},
                        headers=auth(seat_token),
                    )
                    assert r.status_code == 200, r.text
        assert summary["status"] == "finished"
        again = client.post(f"/api/tables/{tid}/actions", json=body, headers=auth(other))
        assert again.json() == {"ok": True, "version": 2}
        end = summary["version"]
    # a new server on the same database: the ids are stored with the actions
    with app_with(db_url, http_rate=None) as client:
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:
            hello(ws, token)
            receive_until(ws, "state")
            ws.send_json(act)
            assert receive_until(ws, "ack") == first
        r3 = client.post(f"/api/tables/{tid}/actions", json=body, headers=auth(other))
        assert r3.json() == {"ok": True, "version": 2}
        forged = client.post(
            f"/api/tables/{tid}/actions", json={**body, "action": "pick 2"}, headers=auth(other)
        )
        assert forged.status_code == 422 and error_code(forged) == "malformed"
        assert client.get(f"/api/tables/{tid}").json()["version"] == end
    with Session(create_engine(db_url)) as s:
        stored = s.execute(
            text("SELECT client_id FROM gn_actions WHERE table_id = :t AND client_id IS NOT NULL"),
            {"t": tid},
        ).all()
    assert sorted(r[0] for r in stored) == ["c1", "h1"]


def test_replay_of_an_id_another_process_stored(db_url: str) -> None:
    """An id stored behind this process's back (another process, say) is acknowledged, once."""
    with app_with(db_url) as client:
        made = create(client, TWO)
        tid, token = made["table"]["id"], made["token"]
        client.post(f"/api/tables/{tid}/join", json={"name": "Ben"})
        assert client.get(f"/api/tables/{tid}").json()["version"] == 0  # loaded here
        engine = create_engine(db_url)
        try:
            with engine.begin() as conn:
                conn.execute(
                    text(
                        "INSERT INTO gn_actions (table_id, seq, seat, notation, client_id, "
                        "created_at) VALUES (:t, 0, 0, 'pick 2', 'x9', CURRENT_TIMESTAMP)"
                    ),
                    {"t": tid},
                )
        finally:
            engine.dispose()
        body = {"action": "pick 2", "id": "x9"}
        r = client.post(f"/api/tables/{tid}/actions", json=body, headers=auth(token))
        assert r.status_code == 200 and r.json() == {"ok": True, "version": 1}, r.text
        r = client.post(f"/api/tables/{tid}/actions", json=body, headers=auth(token))
        assert r.json() == {"ok": True, "version": 1}
        assert client.get(f"/api/tables/{tid}").json()["version"] == 1
        view = state(client, tid, token)["view"]
        assert view["selections"][0] is not None or view["waiting_for"] == [1]


def test_websocket_handshakes_per_address(db_url: str) -> None:
    """Like requests: a burst of new sockets from one address, then a rate (issue 17 item 3)."""
    limits = {"ws_connect_rate": 2.0, "ws_connect_burst": 3, "max_sockets_per_address": None}
    with app_with(db_url, **limits) as client:
        tid = create(client, TWO)["table"]["id"]
        url = f"/ws/tables/{tid}"
        for _ in range(3):
            with client.websocket_connect(url) as ws:
                assert hello(ws, None)["type"] == "welcome"
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(url):
            pass
        assert refused.value.code == 1008
        time.sleep(0.6)  # a token back after 0.5 s
        with client.websocket_connect(url) as ws:
            assert hello(ws, None)["type"] == "welcome"
        assert client.get(f"/api/tables/{tid}").status_code == 200  # HTTP is another budget


def test_play_again_counts_as_an_open_table(make_app: AppFactory) -> None:
    """The first "play again" makes a table: it counts against the caller's unfinished tables
    like ``POST /api/tables``; following someone else to it makes none and is not refused."""
    app = make_app(replace_after=0.0, limits=Limits(max_open_tables=2, http_rate=None))
    with TestClient(app) as client:
        one, ana1, ben1 = finished_table(client)
        two, ana2, _ = finished_table(client)
        create(client, TWO)  # 1 unfinished
        first = client.post(f"/api/tables/{one}/again", headers=auth(ana1))
        assert first.status_code == 200, first.text  # 2 unfinished: the new table counts
        r = client.post(f"/api/tables/{two}/again", headers=auth(ana2))
        assert r.status_code == 429 and error_code(r) == "too_many_tables"
        r = client.post("/api/tables", json={"seats": TWO})
        assert r.status_code == 429 and error_code(r) == "too_many_tables"
        # Ben follows Ana to the table she made: a seat, no new table
        ben = client.post(f"/api/tables/{one}/again", headers=auth(ben1))
        assert ben.status_code == 200 and ben.json()["table"]["id"] == first.json()["table"]["id"]
