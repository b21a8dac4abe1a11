"""All-bot tables against a server: do the bots slow everyone else down? (docs/loadtest.md)

``python -m gonuts.loadtest.bots --tables 8,32`` starts the load test's server (a fresh SQLite
file each run), keeps N tables of four bots (``hard`` by default) playing — a finished game is
replaced by a new table — and meanwhile times a trivial request (``GET /healthz``, ten a second,
one at a time) for ``--duration`` seconds after a short warm-up. It reports that request's
median, p95 and max latency and the bots' decisions per second (from the server's
``gonuts_moves_total{by="bot"}`` counter).

All-bot tables need no human: ``POST /api/tables`` with only bot seats and no name starts the
game at once. ``--python`` / ``--pythonpath`` run the server from another interpreter or source
tree (e.g. a ``git worktree`` of an older commit), to measure before and after a change with the
same client.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

import httpx

from gonuts.loadtest.launcher import ServerProcess, free_port, process_cpu, raise_fd_limit
from gonuts.loadtest.report import percentile

SEATS: Final = 4
PROBE_EVERY: Final = 0.1
"""Seconds between two probes (each waits for the previous answer)."""
KEEP_EVERY: Final = 1.0
"""Seconds between two looks at which tables are still playing."""
BOT_MOVES: Final = re.compile(r'^gonuts_moves_total\{by="bot"\} ([0-9.e+]+)$', re.MULTILINE)


@dataclass(frozen=True)
class BotLoad:
    """One run's figures."""

    tables: int
    level: str
    duration_s: float
    probes: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    decisions: int
    decisions_per_s: float
    games_started: int
    probe_errors: int
    cpu_s: float | None = None
    """CPU seconds of the server and its worker processes during the measurement."""
    cpu_per_decision_s: float | None = None
    """``cpu_s`` per bot decision: what one decision cost (a time-budgeted search under load
    gets less than its budget)."""


def tree_cpu(pid: int | None) -> float | None:
    """User + system CPU seconds of process ``pid`` and its live descendants (Linux), or None."""
    if pid is None:
        return None
    total, todo, seen = 0.0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        cpu = process_cpu(p)
        if cpu is None:
            continue
        total += cpu
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return total


async def bot_moves(http: httpx.AsyncClient) -> float:
    """The server's count of stored bot actions so far."""
    r = await http.get("/metrics")
    r.raise_for_status()
    m = BOT_MOVES.search(r.text)
    return float(m.group(1)) if m else 0.0


async def new_table(http: httpx.AsyncClient, level: str) -> str:
    r = await http.post("/api/tables", json={"seats": [{"kind": "bot", "level": level}] * SEATS})
    if r.status_code != 201:
        raise RuntimeError(f"creating a table: HTTP {r.status_code} {r.text[:200]}")
    return str(r.json()["table"]["id"])


async def measure(
    base_url: str,
    tables: int,
    duration: float,
    *,
    level: str = "hard",
    warmup: float = 5.0,
    path: str = "/healthz",
    server_pid: int | None = None,
) -> BotLoad:
    """Keep ``tables`` all-bot tables playing on ``base_url`` and time ``path`` meanwhile;
    ``server_pid``: also count the CPU time of that process and its children."""
    limits = httpx.Limits(max_connections=10)
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits, trust_env=False) as http,
        httpx.AsyncClient(base_url=base_url, timeout=60, trust_env=False) as probe,
    ):
        mine = {await new_table(http, level) for _ in range(tables)}
        started = len(mine)
        stop = asyncio.Event()

        async def keep() -> None:
            nonlocal mine, started
            while not stop.is_set():
                r = await http.get("/api/tables", params={"status": "playing", "limit": 200})
                playing = {t["id"] for t in r.json()["tables"]}
                for _ in mine - playing:
                    started += 1
                mine = (mine & playing) | {
                    await new_table(http, level) for _ in range(len(mine - playing))
                }
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), KEEP_EVERY)

        keeper = asyncio.ensure_future(keep())
        await asyncio.sleep(warmup)
        moves0 = await bot_moves(http)
        cpu0 = tree_cpu(server_pid)
        start = time.perf_counter()
        latencies: list[float] = []
        errors = 0
        while (now := time.perf_counter()) - start < duration:
            t0 = time.perf_counter()
            try:
                r = await probe.get(path)
                ok = r.status_code == 200
            except httpx.HTTPError:
                ok = False
            latencies.append((time.perf_counter() - t0) * 1000)
            errors += not ok
            await asyncio.sleep(max(0.0, now + PROBE_EVERY - time.perf_counter()))
        elapsed = time.perf_counter() - start
        cpu1 = tree_cpu(server_pid)
        moves1 = await bot_moves(http)
        stop.set()
        await keeper
    decisions = int(moves1 - moves0)
    cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    return BotLoad(
        tables=tables,
        level=level,
        duration_s=round(elapsed, 1),
        probes=len(latencies),
        p50_ms=round(percentile(latencies, 50), 1),
        p95_ms=round(percentile(latencies, 95), 1),
        max_ms=round(max(latencies, default=0.0), 1),
        decisions=decisions,
        decisions_per_s=round(decisions / elapsed, 2),
        games_started=started,
        probe_errors=errors,
        cpu_s=None if cpu is None else round(cpu, 1),
        cpu_per_decision_s=None if cpu is None or not decisions else round(cpu / decisions, 3),
    )


def server(python: str, pythonpath: str | None, workers: int | None, tmp: Path) -> ServerProcess:
    """The load test's server (``python -m gonuts.loadtest``) on a fresh SQLite file."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    if workers is not None:
        env["GONUTS_THINK_WORKERS"] = str(workers)
    port = free_port()
    command = [python, "-m", "gonuts.loadtest", str(port), f"sqlite:///{tmp / 'bots.sqlite3'}"]
    return ServerProcess(command, port, tmp / "server.log", env)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m gonuts.loadtest.bots",
        description="Latency of a trivial request and bot decisions per second with N all-bot "
        "tables (docs/loadtest.md, 'Bots').",
    )
    p.add_argument("--tables", default="8,32", help="comma-separated table counts (default 8,32)")
    p.add_argument("--duration", type=float, default=60.0, help="seconds measured (default 60)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds before (default 5)")
    p.add_argument("--level", default="hard", help="bot level of every seat (default hard)")
    p.add_argument("--path", default="/healthz", help="the request timed (default /healthz)")
    p.add_argument("--url", default=None, help="a running server instead of starting one")
    p.add_argument("--python", default=sys.executable, help="the server's interpreter")
    p.add_argument("--pythonpath", default=None, help="PYTHONPATH of the server (a source tree)")
    p.add_argument("--think-workers", type=int, default=None, help="GONUTS_THINK_WORKERS")
    p.add_argument("--label", default="", help="a name for this run in the output")
    p.add_argument("--json", default=None, help="append one JSON line per run to this file")
    args = p.parse_args(argv)
    try:
        counts = [int(n) for n in args.tables.split(",")]
    except ValueError:
        p.error("--tables takes whole numbers separated by commas, e.g. 8,32")
    if any(n < 0 for n in counts) or args.duration <= 0 or args.warmup < 0:
        p.error("--tables must not be negative, --duration positive, --warmup not negative")
    raise_fd_limit()
    print("| run | tables | p50 ms | p95 ms | max ms | decisions/s | CPU s/decision |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in counts:
        with tempfile.TemporaryDirectory(prefix="gonuts-bots-") as tmp:
            proc = None
            base = args.url
            if base is None:
                proc = server(args.python, args.pythonpath, args.think_workers, Path(tmp))
                proc.start()
                base = proc.http
            try:
                result = asyncio.run(
                    measure(
                        base,
                        n,
                        args.duration,
                        level=args.level,
                        warmup=args.warmup,
                        path=args.path,
                        server_pid=proc.pid if proc is not None else None,
                    )
                )
            finally:
                if proc is not None:
                    proc.stop()
        r = result
        print(
            f"| {args.label} | {n} | {r.p50_ms} | {r.p95_ms} | {r.max_ms} | {r.decisions_per_s} "
            f"| {r.cpu_per_decision_s if r.cpu_per_decision_s is not None else '-'} |",
            flush=True,
        )
        if args.json:
            with Path(args.json).open("a", encoding="utf-8") as out:
                out.write(json.dumps({"label": args.label, **asdict(r)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
