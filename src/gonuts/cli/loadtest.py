"""``gonuts loadtest``: simulated players over WebSockets against a real server (docs/loadtest.md).

It starts ``gonuts``'s web app with uvicorn in a subprocess on 127.0.0.1 (or targets ``--url``,
which must be a loopback address) and drives N players in real games: tables of ``--seats``
humans, all simulated, each answering its ``state`` messages with a random legal action after a
small think time. It reports concurrent players, games finished per minute, the p50 / p99
latency from sending an ``act`` to receiving its ``ack`` (or ``error``), and errors.

On a machine with two or more cores the server subprocess is pinned to CPU 0 and this process
(the players) to CPU 1, so the two do not compete (``--no-pin`` turns that off).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import math
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

EXIT_USAGE: Final = 2
EXIT_FAILED: Final = 1
ACK_TIMEOUT: Final = 10.0
HTTP_TIMEOUT: Final = 30.0
WS_MAX_SIZE: Final = 1 << 16


# -- the server subprocess ----------------------------------------------------------------------


def serve_main(argv: list[str] | None = None) -> None:
    """Entry point of the server subprocess: ``python -m gonuts.cli.loadtest --serve PORT DB``."""
    import uvicorn  # noqa: PLC0415

    from gonuts.server import create_app  # noqa: PLC0415
    from gonuts.server.app import tune_gc_for_serving  # noqa: PLC0415
    from gonuts.server.limits import Limits  # noqa: PLC0415

    args = argv if argv is not None else sys.argv[1:]
    port, db_url = int(args[1]), args[2]
    _raise_fd_limit()
    app = create_app(db_url, bot_delay=0.0, limits=Limits.unlimited())
    tune_gc_for_serving()
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_max_size=WS_MAX_SIZE,
        ws_ping_interval=None,
        backlog=4096,
    )


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _pin(pid: int, cpu: int) -> bool:
    setaffinity = getattr(os, "sched_setaffinity", None)
    if setaffinity is None or (os.cpu_count() or 1) < 2:
        return False
    try:
        setaffinity(pid, {cpu})
    except OSError:
        return False
    return True


@contextlib.contextmanager
def local_server(db_url: str | None, *, pin: bool) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A server subprocess on a free loopback port: (base URL, process)."""
    with tempfile.TemporaryDirectory(prefix="gonuts-loadtest-") as tmp:
        url = db_url or f"sqlite:///{Path(tmp) / 'loadtest.sqlite3'}"
        port = _free_port()
        log = Path(tmp) / "server.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "gonuts.cli.loadtest", "--serve", str(port), url],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            if pin:
                _pin(proc.pid, 0)
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"the server exited: {log.read_text(errors='replace')}")
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("the server did not start within 30 s") from None
                    time.sleep(0.1)
            yield base, proc
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# -- the players ----------------------------------------------------------------------------------


@dataclass
class Stats:
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    games: int = 0
    acts: int = 0
    connected: int = 0
    samples: list[int] = field(default_factory=list)

    def error(self, code: str, detail: str = "") -> None:
        self.errors[code] += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(f"{code}: {detail}"[:200])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[k]


async def http_json(
    host: str, port: int, method: str, path: str, body: Any = None
) -> tuple[int, Any]:
    """A minimal HTTP/1.1 JSON request (one connection each)."""
    data = json.dumps(body).encode() if body is not None else b""
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        "Connection: close\r\n\r\n"
    )
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(head.encode() + data)
        await writer.drain()
        raw = await reader.read()
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    header, _, payload = raw.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    return status, json.loads(payload) if payload else None


class Player:
    """One simulated human: hello, then a random legal action for each decision."""

    def __init__(self, ws_url: str, token: str, rng: random.Random, think: float) -> None:
        self.ws_url, self.token, self.rng, self.think = ws_url, token, rng, think

    def think_time(self) -> float:
        return self.think * (0.5 + self.rng.random()) if self.think > 0 else 0.0

    async def play(self, stats: Stats, stop: asyncio.Event) -> bool:
        """Play until the game is over (True) or ``stop`` (False)."""
        from websockets.asyncio.client import connect  # noqa: PLC0415

        async with connect(
            self.ws_url, max_size=1 << 22, ping_interval=None, compression=None, open_timeout=30
        ) as ws:
            stats.connected += 1
            try:
                await ws.send(json.dumps({"type": "hello", "token": self.token}))
                return await self._loop(ws, stats, stop)
            finally:
                stats.connected -= 1

    async def _loop(self, ws: Any, stats: Stats, stop: asyncio.Event) -> bool:
        pending: tuple[str, float] | None = None  # (id, sent at)
        min_version = 0
        acted_version = -1
        legal: list[str] = []
        due: float | None = None
        n = 0
        while not stop.is_set():
            if pending is not None:
                timeout: float | None = pending[1] + ACK_TIMEOUT - time.perf_counter()
            elif due is not None:
                timeout = due - time.perf_counter()
            else:
                timeout = 1.0
            raw: str | bytes | None = None
            if timeout is None or timeout > 0:
                try:
                    async with asyncio.timeout(timeout):
                        raw = await ws.recv()
                except TimeoutError:
                    raw = None
            if raw is None:
                if pending is not None and time.perf_counter() - pending[1] >= ACK_TIMEOUT:
                    stats.error("timeout", f"no ack for {pending[0]} in {ACK_TIMEOUT:g} s")
                    pending = None
                elif pending is None and due is not None and time.perf_counter() >= due and legal:
                    n += 1
                    id_ = f"a{n}"
                    action = legal[int(self.rng.random() * len(legal))]
                    pending = (id_, time.perf_counter())
                    due = None
                    await ws.send(json.dumps({"type": "act", "action": action, "id": id_}))
                continue
            msg = json.loads(raw)
            kind = msg.get("type")
            if kind == "state":
                view = msg["view"]
                if view["over"]:
                    return True
                if msg["version"] >= min_version and msg["version"] != acted_version:
                    legal = [a["action"] for a in view["legal"]]
                    if legal and pending is None and due is None:
                        due = time.perf_counter() + self.think_time()
                    elif not legal:
                        due = None
            elif kind in ("ack", "error") and pending is not None and msg.get("id") == pending[0]:
                stats.latencies_ms.append((time.perf_counter() - pending[1]) * 1000)
                pending = None
                if kind == "ack":
                    stats.acts += 1
                    min_version = msg["version"]
                    acted_version = msg["version"] - 1
                    legal, due = [], None
                else:
                    stats.error(msg.get("code", "?"), msg.get("message", ""))
                    if legal:
                        due = time.perf_counter() + self.think_time()
            elif kind == "error":
                stats.error(msg.get("code", "?"), msg.get("message", ""))
        return False


async def table_group(
    host: str,
    port: int,
    *,
    size: int,
    think: float,
    rng: random.Random,
    stats: Stats,
    stop: asyncio.Event,
) -> None:
    """``size`` players who sit down together, play a game, and start again until ``stop``."""
    while not stop.is_set():
        try:
            status, made = await asyncio.wait_for(
                http_json(
                    host,
                    port,
                    "POST",
                    "/api/tables",
                    {"seats": [{"kind": "human"}] * size, "name": "P1"},
                ),
                HTTP_TIMEOUT,
            )
            if status != 201:
                stats.error(f"http_{status}", json.dumps(made)[:160])
                await asyncio.sleep(1.0)
                continue
            table_id = made["table"]["id"]
            tokens = [made["token"]]
            for i in range(1, size):
                status, joined = await asyncio.wait_for(
                    http_json(
                        host, port, "POST", f"/api/tables/{table_id}/join", {"name": f"P{i + 1}"}
                    ),
                    HTTP_TIMEOUT,
                )
                if status != 200:
                    raise RuntimeError(f"join: HTTP {status} {joined}")
                tokens.append(joined["token"])
            ws_url = f"ws://{host}:{port}/ws/tables/{table_id}"
            players = [Player(ws_url, t, random.Random(rng.random()), think) for t in tokens]
            results = await asyncio.gather(
                *(p.play(stats, stop) for p in players), return_exceptions=True
            )
            for r in results:
                if isinstance(r, BaseException):
                    stats.error(type(r).__name__, str(r))
            if all(r is True for r in results):
                stats.games += 1
            await asyncio.sleep(rng.uniform(0.5, 3.0))  # back in the lobby for a moment
        except (OSError, RuntimeError, TimeoutError, ValueError) as exc:
            stats.error(type(exc).__name__, str(exc))
            await asyncio.sleep(1.0)


def group_sizes(clients: int, seats: int) -> list[int]:
    """Split ``clients`` into tables of about ``seats`` (each 2 to 6)."""
    groups = math.ceil(clients / seats)
    if clients // groups < 2:
        groups = clients // 2
    base, extra = divmod(clients, groups)
    return [base + (1 if i < extra else 0) for i in range(groups)]


@dataclass(frozen=True)
class Result:
    clients: int
    duration_s: float
    games: int
    games_per_min: float
    acts: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    errors: int
    error_codes: dict[str, int]
    concurrent_max: int
    concurrent_mean: float
    server_cpu: float | None = None
    """CPU time of the started server / wall time (1.0 = one core busy); None for --url."""
    client_cpu: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "clients": self.clients,
            "games_per_min": round(self.games_per_min, 2),
            "p50_ms": round(self.p50_ms, 2),
            "p99_ms": round(self.p99_ms, 2),
            "errors": self.errors,
            "duration_s": round(self.duration_s, 1),
            "games": self.games,
            "acts": self.acts,
            "max_ms": round(self.max_ms, 2),
            "error_codes": self.error_codes,
            "concurrent_max": self.concurrent_max,
            "concurrent_mean": round(self.concurrent_mean, 1),
            "server_cpu": None if self.server_cpu is None else round(self.server_cpu, 2),
            "client_cpu": round(self.client_cpu, 2),
        }


async def drive(
    base_url: str,
    clients: int,
    duration: float,
    *,
    seats: int = 4,
    think: float = 2.0,
    ramp: float | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    server_pid: int | None = None,
) -> tuple[Result, Stats]:
    """Run the load against ``base_url`` for ``duration`` seconds."""
    server_cpu0 = process_cpu(server_pid)
    client_cpu0 = time.process_time()
    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    stats, stop = Stats(), asyncio.Event()
    rng = random.Random(seed)
    sizes = group_sizes(clients, seats)
    ramp_s = min(20.0, duration / 4) if ramp is None else ramp
    tasks: list[asyncio.Task[None]] = []
    start = time.monotonic()
    task_id = progress.add_task("load", total=duration, info="") if progress else None

    async def launch() -> None:
        for i, size in enumerate(sizes):
            if stop.is_set():
                return
            tasks.append(
                asyncio.ensure_future(
                    table_group(
                        host,
                        port,
                        size=size,
                        think=think,
                        rng=random.Random(rng.random()),
                        stats=stats,
                        stop=stop,
                    )
                )
            )
            delay = start + ramp_s * (i + 1) / len(sizes) - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)

    launcher = asyncio.ensure_future(launch())
    while (elapsed := time.monotonic() - start) < duration:
        await asyncio.sleep(min(0.5, duration - elapsed))
        if elapsed >= ramp_s:
            stats.samples.append(stats.connected)
        if progress is not None and task_id is not None:
            recent = stats.latencies_ms[-2000:]
            progress.update(
                task_id,
                completed=min(duration, time.monotonic() - start),
                info=f"players {stats.connected:>5} · games {stats.games:>4} · "
                f"acts {stats.acts:>6} · p99 {percentile(recent, 99):6.1f} ms · "
                f"errors {sum(stats.errors.values())}",
            )
    stop.set()
    elapsed = time.monotonic() - start
    await launcher
    _done, still = await asyncio.wait(tasks, timeout=15)
    for t in still:
        t.cancel()
    server_cpu1 = process_cpu(server_pid)
    client_cpu = (time.process_time() - client_cpu0) / elapsed
    samples = stats.samples or [stats.connected]
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
        client_cpu=client_cpu,
    )
    return result, stats


def process_cpu(pid: int | None) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    return (int(fields[11]) + int(fields[12])) / ticks


def _new_loop() -> asyncio.AbstractEventLoop:
    try:
        import uvloop  # noqa: PLC0415
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


def _cores(share: float | None) -> str:
    return "n/a" if share is None else f"{share * 100:.0f}% of a core"


def is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# -- the command ----------------------------------------------------------------------------------


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "loadtest",
        help="drive simulated players over WebSockets against a local server",
        description="Start a gonuts server on 127.0.0.1 (or target --url, a loopback address) "
        "and drive N simulated players in real games over WebSockets; report concurrent "
        "players, games finished per minute, p50/p99 latency from a move to its "
        "acknowledgement, and errors. See docs/loadtest.md.",
    )
    p.add_argument("--clients", type=int, default=100, metavar="N", help="players (default 100)")
    p.add_argument("--duration", type=float, default=30.0, metavar="S", help="seconds (default 30)")
    p.add_argument(
        "--url", default=None, help="a running server (loopback only), e.g. http://127.0.0.1:8000"
    )
    p.add_argument("--json", default=None, metavar="FILE", help="write the figures as JSON")
    p.add_argument(
        "--seats", type=int, default=4, metavar="K", help="players per table, 2-6 (default 4)"
    )
    p.add_argument(
        "--think",
        type=float,
        default=2.0,
        metavar="S",
        help="mean think time before each move, uniform in [S/2, 3S/2] (default 2.0)",
    )
    p.add_argument(
        "--ramp",
        type=float,
        default=None,
        metavar="S",
        help="seconds over which tables start (default min(20, duration/4))",
    )
    p.add_argument("--db", default=None, metavar="URL", help="database of the started server")
    p.add_argument("--seed", type=int, default=0, help="random seed of the players")
    p.add_argument(
        "--no-pin", action="store_true", help="do not pin the server and the players to CPUs"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    err = Console(stderr=True)
    if args.clients < 2:
        err.print("gonuts loadtest: --clients must be at least 2")
        return EXIT_USAGE
    if args.duration <= 0 or args.think < 0 or (args.ramp is not None and args.ramp < 0):
        err.print("gonuts loadtest: --duration must be positive, --think and --ramp not negative")
        return EXIT_USAGE
    if not 2 <= args.seats <= 6:
        err.print("gonuts loadtest: --seats is 2 to 6")
        return EXIT_USAGE
    if args.url is not None and not is_loopback(args.url):
        err.print("gonuts loadtest: --url must be a loopback address (127.0.0.1, localhost, ::1)")
        return EXIT_USAGE
    if args.url is not None and urlsplit(args.url).scheme != "http":
        err.print("gonuts loadtest: --url must be http://HOST:PORT")
        return EXIT_USAGE
    _raise_fd_limit()
    pin = not args.no_pin
    console = Console()
    try:
        with contextlib.ExitStack() as stack:
            server_pid: int | None = None
            if args.url is None:
                base, proc = stack.enter_context(local_server(args.db, pin=pin))
                server_pid = proc.pid
                where = f"a server started on {base} (pid {proc.pid})"
                if pin and _pin(os.getpid(), 1):
                    where += "; server on CPU 0, players on CPU 1"
            else:
                base, where = args.url.rstrip("/"), args.url
            if not args.quiet:
                console.print(
                    f"gonuts loadtest: {args.clients} players, {args.duration:g} s, "
                    f"tables of {args.seats}, think {args.think:g} s, against {where}"
                )
            progress = Progress(
                TextColumn("[bold]load"),
                BarColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.fields[info]}"),
                console=console,
                disable=args.quiet,
            )
            loop = _new_loop()
            try:
                with progress:
                    result, stats = loop.run_until_complete(
                        drive(
                            base,
                            args.clients,
                            args.duration,
                            seats=args.seats,
                            think=args.think,
                            ramp=args.ramp,
                            seed=args.seed,
                            progress=progress,
                            server_pid=server_pid,
                        )
                    )
            finally:
                loop.close()
    except RuntimeError as exc:
        err.print(f"gonuts loadtest: {exc}")
        return EXIT_FAILED
    data = result.to_json()
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if not args.quiet:
        console.print(
            f"players: {result.clients} (concurrent: max {result.concurrent_max}, "
            f"mean {result.concurrent_mean:.0f})\n"
            f"games finished: {result.games} ({result.games_per_min:.1f} per minute)\n"
            f"moves acknowledged: {result.acts} ({result.acts / result.duration_s:.0f}/s)\n"
            f"latency move → ack: p50 {result.p50_ms:.1f} ms, p99 {result.p99_ms:.1f} ms, "
            f"max {result.max_ms:.1f} ms\n"
            f"errors: {result.errors} {dict(stats.errors) if stats.errors else ''}\n"
            f"CPU: server {_cores(result.server_cpu)}, players {_cores(result.client_cpu)}"
        )
        for sample in stats.error_samples:
            console.print(f"  {sample}", markup=False)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve_main()
