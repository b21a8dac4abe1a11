"""Hint flood (issue 17 item 4): toggling hints never re-arms a search (one computation per seat
and version, shared by every socket of the seat); toggles are rate-limited per seat, and a
refused toggle writes nothing; a hint the full queue cannot take is answered "unavailable"."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from gonuts.bots import hint as real
from gonuts.server.kernel import thinking
from gonuts.server.service import Service
from web.helpers import AppFactory, create, hello, receive_until


class Searches:
    """Counts hint searches (the seed is the table's version)."""

    def __init__(self) -> None:
        self.seeds: list[int] = []
        self.lock = threading.Lock()

    def __call__(self, view: Any, **kwargs: Any) -> Any:
        with self.lock:
            self.seeds.append(int(kwargs["seed"]))
        return real(view, **kwargs)


class Writes:
    """Counts the hint writes to the database."""

    def __init__(self, svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
        self.hints: list[bool] = []
        store = svc.store
        original = store.update_seat

        def counting(table_id: str, seat: int, **kwargs: Any) -> Any:
            if "hints" in kwargs:
                self.hints.append(bool(kwargs["hints"]))
            return original(table_id, seat, **kwargs)

        monkeypatch.setattr(store, "update_seat", counting)


def service(app: FastAPI) -> Service:
    svc: Service = app.state.service
    return svc


def game_with_a_bot_that_waits(c: TestClient) -> tuple[str, str]:
    """A table of me and a bot that waits a minute: the version does not move meanwhile."""
    made = create(c, [{"kind": "human"}, {"kind": "bot", "level": "easy"}])
    return made["table"]["id"], made["token"]


def drain(ws: Any) -> list[dict[str, Any]]:
    """Everything the server sent until the answer to a ping."""
    ws.send_json({"type": "ping"})
    log: list[dict[str, Any]] = []
    receive_until(ws, "pong", log)
    return log


def test_toggles_share_one_hint_per_seat_and_version(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches = Searches()
    monkeypatch.setattr(thinking, "hint", searches)
    app = make_app(bot_delay=60)
    service(app).hint_toggles = None  # this test is about sharing, not the rate
    with TestClient(app) as c:
        tid, token = game_with_a_bot_that_waits(c)
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
            drain(one)
    assert searches.seeds == [first["version"]]  # one search, whatever the toggles


def test_toggles_are_rate_limited_per_seat_and_refusals_write_nothing(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(bot_delay=60)
    writes = Writes(service(app), monkeypatch)
    with TestClient(app) as c:
        tid, token = game_with_a_bot_that_waits(c)
        with (
            c.websocket_connect(f"/ws/tables/{tid}") as one,
            c.websocket_connect(f"/ws/tables/{tid}") as two,
        ):
            hello(one, token)
            hello(two, token)
            receive_until(one, "state")
            receive_until(two, "state")
            # eight toggles from two sockets of one seat: the seat's bucket holds five
            for i in range(4):
                one.send_json({"type": "hints", "on": i % 2 == 0})
                two.send_json({"type": "hints", "on": i % 2 == 1})
            log = drain(one) + drain(two)
    refused = [m for m in log if m["type"] == "error" and m["code"] == "rate_limited"]
    assert len(refused) == 3
    assert "hint toggles" in refused[0]["message"]
    # toggles 1-5 were on, on, off, off, on: a repeated value writes nothing either
    assert writes.hints == [True, False, True]


def test_a_hint_flood_from_six_sockets_stays_bounded(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches = Searches()
    monkeypatch.setattr(thinking, "hint", searches)
    app = make_app(bot_delay=60)
    writes = Writes(service(app), monkeypatch)
    with TestClient(app) as c:
        tid, token = game_with_a_bot_that_waits(c)
        sockets = [c.websocket_connect(f"/ws/tables/{tid}") for _ in range(6)]
        opened = [s.__enter__() for s in sockets]
        try:
            version = 0
            for ws in opened:
                hello(ws, token)
                version = receive_until(ws, "state")["version"]
            slowest = 0.0
            for round_ in range(30):  # 180 toggles, as fast as the sockets take them
                for i, ws in enumerate(opened):
                    ws.send_json({"type": "hints", "on": (round_ + i) % 2 == 0})
                if round_ % 10 == 0:  # meanwhile, someone else's request
                    started = time.perf_counter()
                    assert c.get("/api/tables").status_code == 200
                    slowest = max(slowest, time.perf_counter() - started)
            logs = [drain(ws) for ws in opened]
        finally:
            for s in sockets:
                s.__exit__(None, None, None)
    refused = sum(1 for log in logs for m in log if m.get("code") == "rate_limited")
    assert refused >= 180 - 5
    assert len(writes.hints) <= 5  # at most the bucket's burst reached the database
    assert searches.seeds == [version]  # one search for this seat and version
    assert slowest < 2.0, f"a lobby request took {slowest:.2f} s during the flood"


def test_a_hint_the_full_queue_cannot_take_is_unavailable(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches = Searches()
    monkeypatch.setattr(thinking, "hint", searches)
    app = make_app(bot_delay=60)
    thinker = service(app).thinker
    capacity = thinker.capacity
    with TestClient(app) as c:
        tid, token = game_with_a_bot_that_waits(c)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            hello(ws, token)
            version = receive_until(ws, "state")["version"]
            thinker.capacity = 0  # as if the queue were full
            ws.send_json({"type": "hints", "on": True})
            refused = receive_until(ws, "error")
            assert refused["code"] == "rate_limited"
            assert "hint unavailable" in refused["message"]
            assert searches.seeds == []
            thinker.capacity = capacity  # room again: asking again computes it
            ws.send_json({"type": "hints", "on": True})
            assert receive_until(ws, "hint")["version"] == version
    assert searches.seeds == [version]
    assert b"gonuts_think_dropped_total 1.0" in service(app).metrics.render()
