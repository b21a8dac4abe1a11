"""HTTP hygiene (issue 17 item 7): security headers, no cross-site writes, a client that drops
mid-body, an open-tables list that every table can be reached in."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.types import Message
from starlette.websockets import WebSocketDisconnect

from gonuts.server.kernel.limits import Limits
from web.helpers import AppFactory, create, error_code

BOT = {"kind": "bot", "level": "easy"}
HUMAN = {"kind": "human"}


@pytest.mark.parametrize(
    "path", ["/", "/rules", "/api/config", "/api/tables", "/static/js/main.js", "/nowhere"]
)
def test_every_response_has_security_headers(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp
    assert "default-src 'none'" in csp


def test_refusals_have_security_headers_too(make_app: AppFactory) -> None:
    with TestClient(make_app()) as c:
        r = c.post("/api/tables", content=b"x" * 10_000, headers={"content-type": "text/plain"})
        assert r.status_code == 413
        assert r.headers["x-content-type-options"] == "nosniff"


def test_rules_page_policy_allows_its_inline_style_and_no_script(client: TestClient) -> None:
    csp = client.get("/rules").headers["content-security-policy"]
    assert "style-src 'unsafe-inline'" in csp
    assert "script-src" not in csp  # default-src 'none' forbids every script


def test_cross_site_write_is_refused(client: TestClient) -> None:
    body = {"seats": [HUMAN, BOT], "name": "Ana"}
    evil = {"Origin": "https://evil.example"}
    r = client.post("/api/tables", json=body, headers=evil)
    assert r.status_code == 403, r.text
    assert error_code(r) == "http_error"
    assert r.headers["content-security-policy"]
    assert client.get("/api/tables").json()["tables"] == []  # nothing was made
    # same origin (a browser on this site), or none (a script, curl): accepted
    same = {"Origin": "http://testserver"}
    assert client.post("/api/tables", json=body, headers=same).status_code == 201
    assert client.post("/api/tables", json=body).status_code == 201
    # reads stay open to everyone
    assert client.get("/api/tables", headers=evil).status_code == 200
    assert client.post("/api/replay", content=b"{}", headers={"Origin": "null"}).status_code == 403


def test_cross_site_websocket_is_refused(client: TestClient) -> None:
    table = create(client, [HUMAN, BOT])["table"]["id"]
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(f"/ws/tables/{table}", headers={"Origin": "https://evil.example"}),
    ):
        pass
    assert refused.value.code == 1008
    with client.websocket_connect(
        f"/ws/tables/{table}", headers={"Origin": "http://testserver"}
    ) as ws:
        ws.send_json({"type": "hello", "token": None, "lang": "en"})
        assert ws.receive_json()["type"] == "welcome"


def test_client_that_leaves_mid_body_is_one_log_line(
    make_app: AppFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app()
    sent: list[Message] = []
    parts: list[Message] = [
        {"type": "http.request", "body": b'{"seats": [', "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> Message:
        return parts.pop(0) if parts else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/tables",
        "raw_path": b"/api/tables",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"content-length", b"500")],
        "client": ("127.0.0.9", 5000),
        "server": ("testserver", 80),
    }
    with caplog.at_level(logging.INFO):
        asyncio.run(app(scope, receive, send))
    gone = [r for r in caplog.records if "before its request body was complete" in r.message]
    assert len(gone) == 1
    assert gone[0].levelno == logging.WARNING
    assert not any(r.exc_info for r in caplog.records)
    assert sent == []  # nobody to answer, and the handler never saw half a body


def test_every_open_table_can_be_reached(make_app: AppFactory) -> None:
    with TestClient(make_app(limits=Limits.unlimited())) as c:
        made = [create(c, [HUMAN, HUMAN])["table"]["id"] for _ in range(7)]
        seen: list[str] = []
        for offset in range(0, 10, 3):
            page = c.get(f"/api/tables?status=open&limit=3&offset={offset}").json()["tables"]
            assert len(page) <= 3
            seen.extend(t["id"] for t in page)
        assert seen == made[::-1]  # newest first, each once
        assert c.get("/api/tables?limit=0").status_code == 422
        assert c.get("/api/tables?limit=201").status_code == 422


def test_websockets_per_address_are_capped(make_app: AppFactory) -> None:
    with TestClient(make_app(limits=Limits(max_sockets_per_address=3))) as c:
        table = create(c, [HUMAN, BOT])["table"]["id"]
        url = f"/ws/tables/{table}"
        with c.websocket_connect(url) as a, c.websocket_connect(url), c.websocket_connect(url):
            with pytest.raises(WebSocketDisconnect) as refused, c.websocket_connect(url):
                pass
            assert refused.value.code == 1008
            a.send_json({"type": "hello", "token": None, "lang": "en"})
            assert a.receive_json()["type"] == "welcome"
        # the slots are given back when the sockets close
        with c.websocket_connect(url) as again:
            again.send_json({"type": "hello", "token": None, "lang": "en"})
            assert again.receive_json()["type"] == "welcome"


def test_spectators_per_table_are_capped(make_app: AppFactory) -> None:
    limits = Limits(max_spectators=2, max_sockets_per_address=None)
    with TestClient(make_app(limits=limits)) as c:
        made = create(c, [HUMAN, BOT])
        url = f"/ws/tables/{made['table']['id']}"
        with c.websocket_connect(url) as a, c.websocket_connect(url) as b:
            for ws in (a, b):
                ws.send_json({"type": "hello", "token": None, "lang": "en"})
                assert ws.receive_json()["type"] == "welcome"
            with c.websocket_connect(url) as third:
                third.send_json({"type": "hello", "token": None, "lang": "en"})
                refusal = third.receive_json()
                assert refusal["type"] == "error" and refusal["code"] == "table_full"
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == 1008
            with c.websocket_connect(url) as player:  # players are not spectators
                player.send_json({"type": "hello", "token": made["token"], "lang": "en"})
                assert player.receive_json()["type"] == "welcome"
