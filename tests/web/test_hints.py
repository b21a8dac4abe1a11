"""Hint flood (issue 17 item 4): toggling hints never re-arms a search; one computation per seat
and version, shared by every socket of the seat."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from starlette.testclient import TestClient

import gonuts.server.service as service_module
from gonuts.bots import hint as real
from web.helpers import AppFactory, create, hello, receive_until


def test_toggles_share_one_hint_per_seat_and_version(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches: list[int] = []
    lock = threading.Lock()

    def counting(view: Any, **kwargs: Any) -> Any:
        with lock:
            searches.append(int(kwargs["seed"]))
        return real(view, **kwargs)

    monkeypatch.setattr(service_module, "hint", counting)
    # the bot waits long enough that the version does not move during the test
    with TestClient(make_app(bot_delay=60)) as c:
        made = create(c, [{"kind": "human"}, {"kind": "bot", "level": "easy"}])
        tid, token = made["table"]["id"], made["token"]
        with (
            c.websocket_connect(f"/ws/tables/{tid}") as one,
            c.websocket_connect(f"/ws/tables/{tid}") as two,
        ):
            hello(one, token)
            hello(two, token)
            first = receive_until(one, "state")
            receive_until(two, "state")
            for _ in range(12):
                one.send_json({"type": "hints", "on": True})
                two.send_json({"type": "hints", "on": False})
                two.send_json({"type": "hints", "on": True})
            got = receive_until(one, "hint")
            assert got["version"] == first["version"]
            assert receive_until(two, "hint")["version"] == first["version"]
            one.send_json({"type": "ping"})
            receive_until(one, "pong")
    assert searches == [first["version"]]  # one search, whatever the toggles
