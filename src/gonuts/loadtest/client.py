"""Simulated players: the lobby over HTTP (httpx), the game over a WebSocket (websockets).

:class:`Player` is the one player loop, used by ``gonuts loadtest`` and by the process tests:
it says hello with its seat's token, answers each ``state`` in which it has legal actions with a
random one after a think time, measures each move's latency from ``act`` to its ``ack`` (or
``error``), and — with ``reconnect=True`` — connects again with exponential backoff when the
connection drops or the server is down, resuming from the full state sent after ``hello``.
:func:`drive` runs the load test: tables of simulated humans that play, return to the lobby for
a moment and play again, until the time is up.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from gonuts.loadtest.launcher import process_cpu
from gonuts.loadtest.report import Result, percentile

ACK_TIMEOUT: Final = 10.0
"""An act without an answer for this long counts as a ``timeout`` error."""
HTTP_TIMEOUT: Final = 30.0
RETRY_AFTER_ERROR: Final = 0.1
"""Least wait before acting again after a refused move (a newer state is probably coming)."""


class LobbyError(RuntimeError):
    """An HTTP lobby request that did not succeed; ``code`` is ``http_STATUS``."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status} {body[:160]}")
        self.code = f"http_{status}"


class UnfinishedError(RuntimeError):
    """The game was not over by the player's deadline."""


@dataclass
class Stats:
    """What the players saw, shared by all of them."""

    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    games: int = 0
    acts: int = 0
    connected: int = 0
    samples: list[int] = field(default_factory=list)
    """Players connected, sampled twice a second after the ramp."""
    reconnect_s: list[float] = field(default_factory=list)
    """Seconds from each dropped connection to the first ``state`` on the next one."""
    unreconnected: int = 0
    """Players whose connection had dropped and who were not back when they stopped."""
    reconnect_failures: Counter[str] = field(default_factory=Counter)
    """Why connections dropped or attempts to connect again failed, by exception."""
    acked_moves: list[tuple[str, int, int, str]] | None = None
    """With ``record_acks``: (table, seat, version, action) of every acknowledged move."""

    def error(self, code: str, detail: str = "") -> None:
        self.errors[code] += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(f"{code}: {detail}"[:200])


# -- the lobby ------------------------------------------------------------------------------------


async def create_table(
    http: httpx.AsyncClient, seats: Sequence[dict[str, Any]], name: str
) -> tuple[str, int, str]:
    """``POST /api/tables``: (table id, my seat, my token)."""
    r = await http.post("/api/tables", json={"seats": list(seats), "name": name})
    if r.status_code != 201:
        raise LobbyError(r.status_code, r.text)
    data = r.json()
    return str(data["table"]["id"]), int(data["seat"]), str(data["token"])


async def join_table(http: httpx.AsyncClient, table_id: str, name: str) -> tuple[int, str]:
    """``POST /api/tables/{id}/join``: (my seat, my token)."""
    r = await http.post(f"/api/tables/{table_id}/join", json={"name": name})
    if r.status_code != 200:
        raise LobbyError(r.status_code, r.text)
    data = r.json()
    return int(data["seat"]), str(data["token"])


# -- one player -----------------------------------------------------------------------------------


class Player:
    """One simulated human at one seat (see the module docstring).

    ``urls`` are WebSocket base URLs tried in turn on each connection (one per server process);
    ``think`` is the mean think time, each drawn uniformly in [think/2, 3·think/2]. ``acked``
    lists (version, action) of every acknowledged move; ``final`` is the last ``state``
    message once the game is over. ``local_address``: the loopback address to connect from
    (many addresses look like many players to the server's per-address limits).
    """

    def __init__(
        self,
        urls: Sequence[str],
        table_id: str,
        token: str,
        rng: random.Random,
        *,
        think: float = 0.0,
        seat: int | None = None,
        stats: Stats | None = None,
        lang: str | None = None,
        reconnect: bool = False,
        open_timeout: float = 30.0,
        local_address: str | None = None,
    ) -> None:
        self.urls = list(urls)
        self.table_id = table_id
        self.token = token
        self.rng = rng
        self.think = think
        self.seat = seat
        self.stats = stats if stats is not None else Stats()
        self.lang = lang
        self.reconnect = reconnect
        self.open_timeout = open_timeout
        self.local_address = local_address
        self.acked: list[tuple[int, str]] = []
        self.refused: list[tuple[str, str]] = []
        """(id, code) of every move answered with an ``error`` (never stored: its id says)."""
        self.connections = 0
        self.final: dict[str, Any] | None = None
        self._sent = 0
        self._dropped_at: float | None = None

    def think_time(self) -> float:
        return self.think * (0.5 + self.rng.random()) if self.think > 0 else 0.0

    async def play(self, stop: asyncio.Event | None = None, deadline: float | None = None) -> bool:
        """Play until the game is over (True) or ``stop`` is set (False).

        Without ``reconnect`` a dropped connection raises; with it, the player connects again
        (backoff 0.05 s doubling to 1 s). ``deadline`` (``time.monotonic()``): raise
        :class:`UnfinishedError` if the game is not over by then.
        """
        stop = stop if stop is not None else asyncio.Event()
        delay = 0.05
        attempt = 0
        extra: dict[str, Any] = {}
        if self.local_address is not None:
            extra["local_addr"] = (self.local_address, 0)
        while not stop.is_set():
            _check(deadline, self)
            url = f"{self.urls[attempt % len(self.urls)]}/ws/tables/{self.table_id}"
            attempt += 1
            try:
                async with connect(
                    url,
                    max_size=1 << 22,
                    ping_interval=None,
                    compression=None,
                    open_timeout=self.open_timeout,
                    close_timeout=1,
                    proxy=None,
                    **extra,
                ) as ws:
                    self.connections += 1
                    self.stats.connected += 1
                    delay = 0.05
                    try:
                        return await self._session(ws, stop, deadline)
                    finally:
                        self.stats.connected -= 1
            except (OSError, TimeoutError, WebSocketException) as exc:
                if not self.reconnect:
                    raise
                self.stats.reconnect_failures[_reason(exc)] += 1
                if self._dropped_at is None:
                    self._dropped_at = time.perf_counter()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
        if self._dropped_at is not None:
            self.stats.unreconnected += 1
        return False

    async def _session(
        self, ws: ClientConnection, stop: asyncio.Event, deadline: float | None
    ) -> bool:
        """One connection: hello, then answer states until the game is over or ``stop``.

        A move in flight when the connection drops is forgotten: it may or may not have landed,
        and the state sent after the next hello says which.
        """
        hello: dict[str, Any] = {"type": "hello", "token": self.token}
        if self.lang is not None:
            hello["lang"] = self.lang
        await ws.send(json.dumps(hello))
        stats = self.stats
        pending: tuple[str, float] | None = None  # (id, sent at)
        min_version = 0  # states older than the last acknowledged move are stale
        acted_version = -1  # the version the last acknowledged move was made on
        legal: list[str] = []
        legal_version = -1
        due: float | None = None  # when to act on ``legal``
        while not stop.is_set():
            _check(deadline, self)
            if pending is not None:
                timeout = pending[1] + ACK_TIMEOUT - time.perf_counter()
            elif due is not None:
                timeout = due - time.perf_counter()
            else:
                timeout = 1.0
            raw: str | bytes | None = None
            if timeout > 0:
                try:
                    async with asyncio.timeout(timeout):
                        raw = await ws.recv()
                except TimeoutError:
                    raw = None
            if raw is None:
                now = time.perf_counter()
                if pending is not None and now - pending[1] >= ACK_TIMEOUT:
                    stats.error("timeout", f"no ack for {pending[0]} in {ACK_TIMEOUT:g} s")
                    pending = None
                elif pending is None and due is not None and now >= due and legal:
                    self._sent += 1
                    id_ = f"a{self._sent}"
                    action = legal[int(self.rng.random() * len(legal))]
                    pending = (id_, time.perf_counter())
                    due = None
                    await ws.send(json.dumps({"type": "act", "action": action, "id": id_}))
                continue
            msg = json.loads(raw)
            kind = msg.get("type")
            if kind == "state":
                if self._dropped_at is not None:  # back in the game after a dropped connection
                    stats.reconnect_s.append(time.perf_counter() - self._dropped_at)
                    self._dropped_at = None
                view = msg["view"]
                if view["over"]:
                    self.final = msg
                    return True
                version = msg["version"]
                if version >= min_version and version != acted_version:
                    legal = [a["action"] for a in view["legal"]]
                    legal_version = version
                    if legal and pending is None and due is None:
                        due = time.perf_counter() + self.think_time()
                    elif not legal:
                        due = None
            elif kind in ("ack", "error") and pending is not None and msg.get("id") == pending[0]:
                stats.latencies_ms.append((time.perf_counter() - pending[1]) * 1000)
                pending = None
                if kind == "ack":
                    stats.acts += 1
                    version = int(msg["version"])
                    self.acked.append((version, str(msg.get("action", ""))))
                    if stats.acked_moves is not None and self.seat is not None:
                        stats.acked_moves.append(
                            (self.table_id, self.seat, version, str(msg.get("action", "")))
                        )
                    min_version, acted_version = version, version - 1
                    if legal_version < version:  # the state after this move is still to come
                        legal, due = [], None
                    elif legal:
                        due = time.perf_counter() + self.think_time()
                else:
                    stats.error(msg.get("code", "?"), msg.get("message", ""))
                    self.refused.append((str(msg.get("id")), str(msg.get("code", "?"))))
                    if legal:
                        due = time.perf_counter() + max(self.think_time(), RETRY_AFTER_ERROR)
            elif kind == "welcome":
                if self.seat is None:
                    self.seat = int(msg["seat"])
                elif msg["seat"] != self.seat:
                    raise RuntimeError(f"welcomed at seat {msg['seat']}, not {self.seat}")
            elif kind == "error":
                stats.error(msg.get("code", "?"), msg.get("message", ""))
        return False


def _reason(exc: BaseException) -> str:
    """A short name for a dropped connection or a failed attempt (the HTTP status of a refused
    handshake, the close code of a closed socket)."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is not None:
        return f"{type(exc).__name__} {status}"
    received = getattr(exc, "rcvd", None)
    if received is not None:
        return f"{type(exc).__name__} {received.code}"
    return type(exc).__name__


def _check(deadline: float | None, player: Player) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise UnfinishedError(f"seat {player.seat} at table {player.table_id} did not finish")


# -- the load -------------------------------------------------------------------------------------


async def table_group(
    http: httpx.AsyncClient,
    ws_base: str,
    *,
    size: int,
    think: float,
    rng: random.Random,
    stats: Stats,
    stop: asyncio.Event,
    reconnect: bool = False,
    local_address: str | None = None,
) -> None:
    """``size`` players who sit down together, play a game, and start again until ``stop``
    (``reconnect``: each player connects again when its connection drops, see :class:`Player`;
    ``local_address``: they connect from that loopback address)."""
    while not stop.is_set():
        try:
            table_id, _, token = await create_table(http, [{"kind": "human"}] * size, "P1")
            tokens = [token]
            for i in range(1, size):
                tokens.append((await join_table(http, table_id, f"P{i + 1}"))[1])
            players = [
                Player(
                    [ws_base],
                    table_id,
                    t,
                    random.Random(rng.random()),
                    think=think,
                    stats=stats,
                    reconnect=reconnect,
                    local_address=local_address,
                )
                for t in tokens
            ]
            results = await asyncio.gather(*(p.play(stop) for p in players), return_exceptions=True)
            for r in results:
                if isinstance(r, BaseException):
                    stats.error(type(r).__name__, str(r))
            if all(r is True for r in results):
                stats.games += 1
            await asyncio.sleep(rng.uniform(0.5, 3.0))  # back in the lobby for a moment
        except LobbyError as exc:
            stats.error(exc.code, str(exc))
            await asyncio.sleep(1.0)
        except (OSError, RuntimeError, TimeoutError, ValueError, httpx.HTTPError) as exc:
            stats.error(type(exc).__name__, str(exc))
            await asyncio.sleep(1.0)


def group_sizes(clients: int, seats: int) -> list[int]:
    """Split ``clients`` into tables of about ``seats`` (each 2 to 6)."""
    groups = math.ceil(clients / seats)
    if clients // groups < 2:
        groups = clients // 2
    base, extra = divmod(clients, groups)
    return [base + (1 if i < extra else 0) for i in range(groups)]


Tick = Callable[[float, Stats], None]
"""Called about twice a second with the seconds elapsed and the figures so far."""


@contextlib.contextmanager
def fewer_gc_pauses(gen0: int = 20_000) -> Iterator[Callable[[], None]]:
    """The players' garbage collector tuned like the server's (``tune_gc_for_serving``) for
    the run, restored after: a larger first-generation threshold, and a ``settle`` to call
    once everybody is seated, which freezes the players' long-lived objects (their sockets,
    coroutines and frames) out of every later collection.

    Without it the players' own collections paused their event loop for 50-90 ms a few times
    a minute (1,000 players), and every acknowledgement that arrived meanwhile counted that
    pause as server latency: the p99 was as much the players' as the server's."""
    before = gc.get_threshold()
    gc.set_threshold(gen0, before[1], before[2])
    try:
        yield gc.freeze  # (no collection first: that would pause the run once more)
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


async def drive(
    base_url: str,
    clients: int,
    duration: float,
    *,
    seats: int = 4,
    think: float = 2.0,
    ramp: float | None = None,
    seed: int = 0,
    on_tick: Tick | None = None,
    server_pid: int | None = None,
    reconnect: bool = False,
    addresses: int = 1,
    record_acks: bool = False,
) -> tuple[Result, Stats]:
    """Run the load against ``base_url`` (``http://HOST:PORT``) for ``duration`` seconds.

    Tables start evenly over ``ramp`` seconds (default min(20, duration/4)); concurrency is
    sampled after it. ``server_pid``: also measure that process's CPU time. The players'
    garbage collector is tuned for the run (:func:`fewer_gc_pauses`).

    ``reconnect``: players connect again when their connection drops (a server process
    killed behind a proxy) and the time until they are back is measured; ``addresses``: the
    tables connect from that many loopback addresses (127.0.0.2, 127.0.0.3, …; 1: the system's
    choice), so that a real server's per-address limits see many players;
    ``record_acks``: keep every acknowledged move in ``Stats.acked_moves``.
    """
    with fewer_gc_pauses() as settle:
        return await _drive(
            base_url,
            clients,
            duration,
            seats=seats,
            think=think,
            ramp=ramp,
            seed=seed,
            on_tick=on_tick,
            server_pid=server_pid,
            settle=settle,
            reconnect=reconnect,
            addresses=addresses,
            record_acks=record_acks,
        )


async def _drive(
    base_url: str,
    clients: int,
    duration: float,
    *,
    seats: int,
    think: float,
    ramp: float | None,
    seed: int,
    on_tick: Tick | None,
    server_pid: int | None,
    settle: Callable[[], None],
    reconnect: bool,
    addresses: int,
    record_acks: bool,
) -> tuple[Result, Stats]:
    server_cpu0 = process_cpu(server_pid)
    client_cpu0 = time.process_time()
    ws_base = "ws" + base_url.removeprefix("http")
    stats, stop = Stats(), asyncio.Event()
    if record_acks:
        stats.acked_moves = []
    rng = random.Random(seed)
    sizes = group_sizes(clients, seats)
    ramp_s = min(20.0, duration / 4) if ramp is None else ramp
    tasks: list[asyncio.Task[None]] = []
    local = source_addresses(addresses)
    per = max(4, 100 // len(local))  # each address: its own pool (two tables or more)
    limits = httpx.Limits(max_connections=per, max_keepalive_connections=per)
    async with contextlib.AsyncExitStack() as clients_stack:
        https = [
            await clients_stack.enter_async_context(
                httpx.AsyncClient(
                    base_url=base_url,
                    timeout=HTTP_TIMEOUT,
                    trust_env=False,
                    transport=httpx.AsyncHTTPTransport(limits=limits, local_address=address),
                )
            )
            for address in local
        ]
        start = time.monotonic()

        async def launch() -> None:
            for i, size in enumerate(sizes):
                if stop.is_set():
                    return
                group = table_group(
                    https[i % len(https)],
                    ws_base,
                    size=size,
                    think=think,
                    rng=random.Random(rng.random()),
                    stats=stats,
                    stop=stop,
                    reconnect=reconnect,
                    local_address=local[i % len(local)],
                )
                tasks.append(asyncio.ensure_future(group))
                delay = start + ramp_s * (i + 1) / len(sizes) - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)

        launcher = asyncio.ensure_future(launch())
        settled = False
        while (elapsed := time.monotonic() - start) < duration:
            await asyncio.sleep(min(0.5, duration - elapsed))
            if elapsed >= ramp_s:
                if not settled and launcher.done():
                    settle()  # everybody seated: their sockets live till the end
                    settled = True
                stats.samples.append(stats.connected)
            if on_tick is not None:
                on_tick(min(duration, time.monotonic() - start), stats)
        stop.set()
        elapsed = time.monotonic() - start
        await launcher
        _done, still = await asyncio.wait(tasks, timeout=15)
        for t in still:
            t.cancel()
    server_cpu1 = process_cpu(server_pid)
    samples = stats.samples or [stats.connected]
    gaps = stats.reconnect_s
    result = Result(
        clients=clients,
        duration_s=elapsed,
        games=stats.games,
        games_per_min=stats.games / elapsed * 60 if elapsed > 0 else 0.0,
        acts=stats.acts,
        p50_ms=percentile(stats.latencies_ms, 50),
        p99_ms=percentile(stats.latencies_ms, 99),
        max_ms=max(stats.latencies_ms, default=0.0),
        errors=sum(stats.errors.values()),
        error_codes=dict(stats.errors),
        concurrent_max=max(samples),
        concurrent_mean=sum(samples) / len(samples),
        server_cpu=None
        if server_cpu0 is None or server_cpu1 is None
        else (server_cpu1 - server_cpu0) / elapsed,
        client_cpu=(time.process_time() - client_cpu0) / elapsed,
        reconnects=len(gaps),
        reconnect_p50_s=percentile(gaps, 50),
        reconnect_max_s=max(gaps, default=0.0),
        unreconnected=stats.unreconnected,
        reconnect_failures=dict(stats.reconnect_failures),
    )
    return result, stats


def source_addresses(count: int) -> list[str | None]:
    """``count`` loopback addresses to connect from: 127.0.0.2, 127.0.0.3, …, 127.0.0.251,
    127.0.1.2, … (all of 127/8 is this machine's); ``[None]`` (the system's choice) for 1."""
    if count <= 1:
        return [None]
    if count > 250 * 250:
        raise ValueError("at most 62,500 source addresses")
    return [f"127.0.{i // 250}.{2 + i % 250}" for i in range(count)]


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop's event loop when installed (the players cost less CPU), else asyncio's."""
    try:
        import uvloop  # noqa: PLC0415 - optional
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop
