"""``gonuts serve`` for operators: settings from flags and the environment, JSON logs, an
access log, Prometheus metrics, and a graceful shutdown on SIGTERM (docs/deploy.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gonuts.cli.serve import JsonLines, SettingError, resolve
from gonuts.server.service import Service
from gonuts.server.store import TableStore
from gonuts.server.transport.conn import Conn
from gonuts.server.transport.socket import CLOSE_RESTART
from web.helpers import AppFactory, Inbox, auth, create, hello, receive_until

TWO_HUMANS = [{"kind": "human"}, {"kind": "human"}]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def query(db_url: str, sql: str) -> list[tuple[Any, ...]]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(text(sql))]
    finally:
        engine.dispose()


def namespace(**flags: Any) -> argparse.Namespace:
    return argparse.Namespace(**flags)


def test_flags_win_over_the_environment_which_wins_over_defaults() -> None:
    env = {"GONUTS_PORT": "9001", "GONUTS_HOST": "0.0.0.0", "GONUTS_ACCESS_LOG": "yes"}
    got = resolve(namespace(port="9002", log_json=None, access_log=None), env)
    assert got["port"] == 9002 and got["host"] == "0.0.0.0" and got["access_log"] is True
    assert got["log_json"] is False and got["log_level"] == "info" and got["bot_delay"] == 0.5
    got = resolve(namespace(access_log=False), env)
    assert got["access_log"] is False and got["port"] == 9001
    env = {"GONUTS_DB_URL": "postgresql://x@h/db", "GONUTS_LOG_LEVEL": "WARNING"}
    got = resolve(namespace(), env)
    assert got["db"] == "postgresql://x@h/db" and got["log_level"] == "warning"


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"GONUTS_PORT": "eighty"}, "GONUTS_PORT='eighty' is not a port number"),
        ({"GONUTS_PORT": "70000"}, "GONUTS_PORT='70000' is not a port number"),
        ({"GONUTS_LOG_LEVEL": "loud"}, "GONUTS_LOG_LEVEL='loud' is not one of"),
        ({"GONUTS_ACCESS_LOG": "maybe"}, "GONUTS_ACCESS_LOG='maybe' is not a yes/no value"),
        ({"GONUTS_BOT_DELAY": "-1"}, "GONUTS_BOT_DELAY='-1' is not a number of seconds"),
    ],
)
def test_unusable_settings_are_named(env: dict[str, str], words: str) -> None:
    with pytest.raises(SettingError, match=words.replace("(", r"\(")):
        resolve(namespace(), env)


def test_a_bad_setting_is_one_line_and_status_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gonuts", "serve", "--port", "x"],
        capture_output=True,
        text=True,
        env={**os.environ, "GONUTS_PORT": "8000"},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "gonuts serve: --port='x' is not a port number (0-65535)"


def test_json_lines_carry_the_access_fields() -> None:
    record = logging.LogRecord("gonuts.access", logging.INFO, __file__, 1, "GET %s", ("/",), None)
    record.method, record.path, record.status, record.ms = "GET", "/", 200, 1.5
    line = json.loads(JsonLines().format(record))
    assert line["message"] == "GET /" and line["level"] == "info"
    assert (line["method"], line["path"], line["status"], line["ms"]) == ("GET", "/", 200, 1.5)
    assert line["logger"] == "gonuts.access" and line["time"].endswith("+00:00")


def metric(text: str, name: str) -> float:
    """The value of the sample ``name`` (with its labels, as written) in ``text``."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no {name} in the metrics")


def test_metrics(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        made = create(client, TWO_HUMANS)
        tid = made["table"]["id"]
        ben = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()["token"]
        bots = create(client, [{"kind": "bot", "level": "easy"}] * 2, name=None)
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:
            hello(ws, made["token"])
            receive_until(ws, "state")
            text = client.get("/metrics").text
            assert metric(text, "gonuts_open_sockets") == 1
            assert metric(text, 'gonuts_live_tables{status="playing"}') >= 1
            ws.send_json({"type": "act", "action": "pick 1", "id": "m1"})
            receive_until(ws, "ack")
            ws.send_json({"type": "act", "action": "pick 1", "id": "m2"})  # not my turn now
            assert receive_until(ws, "error")["code"] == "not_your_turn"
        r = client.post(f"/api/tables/{tid}/actions", json={"action": "pick 2"}, headers=auth(ben))
        assert r.status_code == 200
        for _ in range(500):  # the bots' game ends by itself
            if client.get(f"/api/tables/{bots['table']['id']}").json()["status"] == "finished":
                break
            time.sleep(0.02)
        response = client.get("/metrics")
        text = response.text
    assert response.headers["content-type"].startswith("text/plain")
    assert metric(text, "gonuts_open_sockets") == 0
    assert metric(text, 'gonuts_moves_total{by="player"}') == 2
    assert metric(text, 'gonuts_moves_total{by="bot"}') > 10
    assert metric(text, "gonuts_move_ack_seconds_count") == 2
    assert metric(text, 'gonuts_errors_total{code="not_your_turn"}') == 1
    assert metric(text, 'gonuts_bot_think_seconds_count{level="easy"}') > 10
    assert metric(text, 'gonuts_live_tables{status="finished"}') == 1


# -- a real process ------------------------------------------------------------------------------


def test_serve_from_the_environment_and_stop_gracefully(db_url: str, tmp_path: Path) -> None:
    """Configured by environment only; JSON access log; on SIGTERM the open socket is closed
    with 1012 (the browser client reconnects after it), the moves stay stored, and the
    shutdown runs to its end."""
    port = free_port()
    log = tmp_path / "serve.log"
    env = {
        **os.environ,
        "GONUTS_PORT": str(port),
        "GONUTS_DB_URL": db_url,
        "GONUTS_ACCESS_LOG": "1",
        "GONUTS_LOG_JSON": "true",
        "GONUTS_BOT_DELAY": "0",
    }
    base = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gonuts", "serve"], stdout=out, stderr=out, env=env
        )
    try:
        for _ in range(600):
            assert proc.poll() is None, log.read_text()
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        assert httpx.get(f"{base}/readyz").json() == {"status": "ready"}
        assert "gonuts_open_sockets" in httpx.get(f"{base}/metrics").text
        r = httpx.post(f"{base}/api/tables", json={"seats": TWO_HUMANS, "name": "Ana"})
        assert r.status_code == 201
        tid, token = r.json()["table"]["id"], r.json()["token"]
        httpx.post(f"{base}/api/tables/{tid}/join", json={"name": "Ben"}).raise_for_status()
        with connect(f"ws://127.0.0.1:{port}/ws/tables/{tid}") as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            ws.send(json.dumps({"type": "act", "action": "pick 1", "id": "g1"}))
            while json.loads(ws.recv(timeout=10))["type"] != "ack":
                pass
            proc.send_signal(signal.SIGTERM)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        # uvicorn re-raises the signal once shut down: "killed by SIGTERM" (a clean stop for
        # systemd and container runtimes); the log says the shutdown ran to its end
        assert proc.wait(20) in (0, -signal.SIGTERM)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert query(db_url, "SELECT seq, seat, client_id FROM gn_actions") == [(0, 0, "g1")]
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    access = [x for x in lines if x["logger"] == "gonuts.access"]
    assert {"method": "POST", "path": "/api/tables", "status": 201} in [
        {k: x[k] for k in ("method", "path", "status")} for x in access
    ], access
    assert any(x["path"] == f"/ws/tables/{tid}" and x["status"] == 101 for x in access)
    messages = [x["message"] for x in lines]
    assert "Shutting down" in messages and "Application shutdown complete." in messages


@contextmanager
def serving(db_url: str, log: Path, *flags: str) -> Iterator[str]:
    """``gonuts serve FLAGS`` on a free loopback port until the block ends; its base URL."""
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gonuts", "serve", "--port", str(port), "--db", db_url, *flags],
            stdout=out,
            stderr=out,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            assert proc.poll() is None, log.read_text()
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        proc.wait(20)


def create_from(base: str, forwarded_for: str) -> int:
    r = httpx.post(
        f"{base}/api/tables",
        json={"seats": TWO_HUMANS, "name": "Ana"},
        headers={"X-Forwarded-For": forwarded_for},
    )
    return r.status_code


def test_forwarded_addresses_only_from_named_proxies(db_url: str, tmp_path: Path) -> None:
    """The open-tables quota (20 per address) counts the TCP peer: a client on loopback cannot
    escape it by sending a new ``X-Forwarded-For`` each time, unless loopback is a named proxy."""
    with serving(db_url, tmp_path / "plain.log") as base:
        assert [create_from(base, "198.51.100.1") for _ in range(20)] == [201] * 20
        assert create_from(base, "198.51.100.2") == 429  # another "address", the same client
    with serving(db_url, tmp_path / "proxied.log", "--forwarded-allow-ips", "127.0.0.1") as base:
        assert [create_from(base, "198.51.100.1") for _ in range(20)] == [201] * 20
        assert create_from(base, "198.51.100.1") == 429
        assert create_from(base, "198.51.100.2") == 201  # behind a named proxy: its own quota


def test_the_lifespan_closes_what_the_server_left_open(db_url: str) -> None:
    """For a server that runs the app's shutdown before closing its sockets itself (uvicorn
    closes them first): the service closes every socket it still holds with 1012."""

    async def main() -> None:
        svc = Service(TableStore(db_url), bot_delay=0)
        await svc.start()
        table, _, _ = await svc.create_table([("human", None), ("human", None)], "Ana", "en")
        await svc.join(table.id, "Ben")
        inboxes = [Inbox(), Inbox()]
        for seat, inbox in enumerate(inboxes):
            await svc.connect(table, Conn(inbox, seat, "en"))
        await svc.act(table, 0, "pick 1")
        await svc.drain(1.0)
        await svc.close_sockets(CLOSE_RESTART, "server restart")
        await svc.close()
        assert [i.closed for i in inboxes] == [1012, 1012]

    asyncio.run(asyncio.wait_for(main(), 30))
