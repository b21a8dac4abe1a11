"""Helpers for the web server tests."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI
from starlette.testclient import TestClient

AppFactory = Callable[..., FastAPI]


def origin_of(base_url: str) -> str:
    """The ``Origin`` a browser sends with a page of ``base_url``'s site (scheme and host)."""
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}"


def browser_like(client: TestClient) -> TestClient:
    """``client`` sending a same-origin ``Origin`` with every request, as a browser does with
    its writes (a cookie-authenticated write without one is refused: docs/protocol.md,
    "Limits"); a test that means to leave it out deletes ``client.headers["origin"]``."""
    client.headers.setdefault("origin", origin_of(str(client.base_url)))
    return client


def create(
    client: TestClient, seats: list[dict[str, Any]], name: str | None = "Ana"
) -> dict[str, Any]:
    body: dict[str, Any] = {"seats": seats}
    if name is not None:
        body["name"] = name
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def state(client: TestClient, table_id: str, token: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/tables/{table_id}/state", headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def wait_until(
    check: Callable[[], bool], timeout: float = 20.0, message: str = "condition"
) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {message}")


def error_code(response: Any) -> str:
    body = response.json()
    assert set(body) == {"error"}, body
    assert body["error"]["message"], body
    code: str = body["error"]["code"]
    return code


def hello(ws: Any, token: str | None, lang: str = "en") -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "hello", "token": token, "lang": lang}))
    msg: dict[str, Any] = ws.receive_json()
    return msg


def receive_until(ws: Any, kind: str, log: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Messages until one of type ``kind`` (appending all to ``log``)."""
    for _ in range(10_000):
        msg: dict[str, Any] = ws.receive_json()
        if log is not None:
            log.append(msg)
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} message")


class Inbox:
    """A WebSocket stand-in (a :class:`~gonuts.server.transport.conn.Conn`'s sender) that keeps what
    it is sent."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.closed: int | None = None

    async def send_text(self, data: str) -> None:
        self.messages.append(json.loads(data))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = code

    def versions(self) -> list[int]:
        return [int(m["version"]) for m in self.messages if m["type"] == "state"]
