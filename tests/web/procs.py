"""Real ``gonuts serve`` processes and WebSocket players with reconnection, for the crash and
multi-process tests."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from gonuts.game import Game
from gonuts.record import Record, apply_recorded


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Loopback:
    """Something listening on ``127.0.0.1:port``: its HTTP and WebSocket base URLs."""

    port: int

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


class Server(Loopback):
    """``gonuts serve`` on a loopback port, as a child process (its output in ``log``)."""

    def __init__(self, db_url: str, port: int, log: Path, *extra: str) -> None:
        self.db_url = db_url
        self.port = port
        self.log = log
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> None:
        args = ["--port", str(self.port), "--db", self.db_url, *self.extra]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gonuts", "serve", *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "GONUTS_DEBUG": "1"},
            )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise AssertionError(f"gonuts serve exited: {self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.http}/api/config", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"gonuts serve did not answer: {self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing, like a power cut of the process."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None


class RoundRobinProxy(Loopback):
    """One address in front of several server processes, like a TCP load balancer (HAProxy
    ``mode tcp``, ``balance roundrobin``): each new connection goes to the next backend, bytes
    are copied both ways. :meth:`drop_all` cuts every open connection, as a restarting balancer
    would; clients then reconnect and may land on another process."""

    def __init__(self, backends: list[int]) -> None:
        self.backends = backends
        self.port = 0
        self.served: list[tuple[int, bool]] = []
        """(backend port, is a WebSocket) of every connection, in order."""
        self._next = 0
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self.drop_all()

    def drop_all(self) -> None:
        for writer in list(self._open):
            writer.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        port = self.backends[self._next % len(self.backends)]
        self._next += 1
        try:
            first = await reader.read(65536)
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()
            return
        self.served.append((port, first.startswith(b"GET /ws/")))
        up_writer.write(first)
        self._open.update((writer, up_writer))
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self._open.difference_update((writer, up_writer))
            for w in (writer, up_writer):
                w.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()


def create_table(base: str, seats: list[dict[str, Any]], name: str) -> tuple[str, int, str]:
    r = httpx.post(f"{base}/api/tables", json={"seats": seats, "name": name}, timeout=10)
    assert r.status_code == 201, r.text
    data = r.json()
    return str(data["table"]["id"]), int(data["seat"]), str(data["token"])


def join_table(base: str, table_id: str, name: str) -> tuple[int, str]:
    r = httpx.post(f"{base}/api/tables/{table_id}/join", json={"name": name}, timeout=10)
    assert r.status_code == 200, r.text
    data = r.json()
    return int(data["seat"]), str(data["token"])


@dataclass
class Player:
    """A human seat played over a WebSocket with random legal moves.

    It reconnects by itself with exponential backoff when the connection drops or the server is
    down, and resumes from the full state the server sends after ``hello``.
    """

    urls: list[str]
    """WebSocket base URLs to try, in turn (one per server process)."""
    table_id: str
    seat: int
    token: str
    rng: random.Random
    think: float = 0.0
    acked: list[tuple[int, str]] = field(default_factory=list)
    connections: int = 0
    final: dict[str, Any] | None = None

    async def run(self, deadline: float) -> None:
        delay = 0.05
        attempt = 0
        while self.final is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"seat {self.seat} at {self.table_id} did not finish")
            url = f"{self.urls[attempt % len(self.urls)]}/ws/tables/{self.table_id}"
            attempt += 1
            try:
                async with connect(url, proxy=None, open_timeout=5, close_timeout=1) as ws:
                    self.connections += 1
                    delay = 0.05
                    await self.play(ws)
            except (OSError, TimeoutError, WebSocketException):
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)

    async def play(self, ws: ClientConnection) -> None:
        await ws.send(json.dumps({"type": "hello", "token": self.token, "lang": "en"}))
        acted_at: int | None = None  # forgotten on reconnecting: the action may not have landed
        last: dict[str, Any] | None = None
        errors = 0
        retry = False
        while True:
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5) if retry else await ws.recv()
            except TimeoutError:  # refused, and nothing new came: try again on the last state
                retry, acted_at = False, None
                raw = None
            msg: dict[str, Any] = json.loads(raw) if raw is not None else {"type": "-"}
            kind = msg["type"]
            if kind == "welcome":
                assert msg["seat"] == self.seat, msg
            elif kind == "ack":
                self.acked.append((int(msg["version"]), str(msg["action"])))
            elif kind == "error":
                errors += 1
                assert errors < 50, msg
                retry = True  # a newer state is probably on its way
                continue
            elif kind == "state":
                last, retry = msg, False
            if last is None:
                continue
            view = last["view"]
            if view["over"]:
                self.final = last
                return
            if view["legal"] and last["version"] != acted_at:
                acted_at = last["version"]
                if self.think:
                    await asyncio.sleep(self.think * self.rng.random())
                action = self.rng.choice(view["legal"])["action"]
                await ws.send(json.dumps({"type": "act", "action": action, "id": f"a{acted_at}"}))


def query(db_url: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """The rows of one SQL statement on ``db_url`` (an engine of its own, disposed after)."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(text(sql), params)]
    finally:
        engine.dispose()


def stored_games(db_url: str) -> tuple[dict[str, list[tuple[int, int, str]]], dict[str, str]]:
    """Every table's stored actions (seq, seat, notation) and every finished game's record."""
    rows: dict[str, list[tuple[int, int, str]]] = {}
    sql = "SELECT table_id, seq, seat, notation FROM gn_actions ORDER BY table_id, seq"
    for t, seq, seat, notation in query(db_url, sql):
        rows.setdefault(str(t), []).append((int(seq), int(seat), str(notation)))
    records = query(db_url, "SELECT table_id, record FROM gn_finished")
    return rows, {str(t): str(r) for t, r in records}


def check_stored_games(
    db_rows: dict[str, list[tuple[int, int, str]]],
    records: dict[str, str],
    players: list[Player],
) -> None:
    """Nothing lost or duplicated: contiguous action sequences that replay to finished games and
    hold every action a client was acknowledged."""
    for table_id, rows in db_rows.items():
        seqs = [seq for seq, _, _ in rows]
        assert seqs == list(range(len(seqs))), (table_id, seqs)
        record = Record.from_json(records[table_id])
        assert [(a.player, a.action) for a in record.actions] == [(s, n) for _, s, n in rows]
        game = Game.new(record.players, deck=record.initial_deck())
        for i, a in enumerate(record.actions):
            apply_recorded(game, i, a.player, a.action)
        assert game.is_over, table_id
    for p in players:
        rows = db_rows[p.table_id]
        versions = [v for v, _ in p.acked]
        assert len(versions) == len(set(versions)), versions
        for version, action in p.acked:
            assert rows[version - 1][1:] == (p.seat, action), (p.table_id, version, action)
        assert p.final is not None and p.final["version"] == len(rows)
