"""Real ``gonuts serve`` processes and WebSocket players with reconnection, for the crash and
multi-process tests: the load tester's launcher and player (:mod:`gonuts.loadtest`) with the
tests' defaults, a round-robin balancer, and readers of the stored games."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from gonuts.game import Game
from gonuts.loadtest import client
from gonuts.loadtest.launcher import Loopback, ServerProcess, free_port
from gonuts.record import Record, apply_recorded

__all__ = ["Loopback", "Player", "RoundRobinProxy", "Server", "free_port"]


class Server(ServerProcess):
    """``gonuts serve`` on a loopback port, as a child process (its output in ``log``)."""

    def __init__(self, db_url: str, port: int, log: Path, *extra: str) -> None:
        serve = ServerProcess.gonuts_serve(db_url, port, log, *extra)
        super().__init__(serve.command, port, log, serve.env)
        self.db_url = db_url


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


class Player(client.Player):
    """A human seat played over a WebSocket with random legal moves, reconnecting by itself
    (exponential backoff) when the connection drops or the server is down."""

    def __init__(  # noqa: PLR0917 - the tests call it positionally
        self,
        urls: list[str],
        table_id: str,
        seat: int,
        token: str,
        rng: random.Random,
        think: float = 0.0,
    ) -> None:
        super().__init__(
            urls,
            table_id,
            token,
            rng,
            think=think,
            seat=seat,
            lang="en",
            reconnect=True,
            open_timeout=5.0,
        )

    async def run(self, deadline: float) -> None:
        """Play to the end of the game (``deadline``: ``time.monotonic()``)."""
        assert await self.play(deadline=deadline)
        assert sum(self.stats.errors.values()) < 50, self.stats.error_samples


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
