"""``gonuts loadtest``: simulated players over WebSockets against a real server (docs/loadtest.md).

The command line of :mod:`gonuts.loadtest`: it starts the load test's server in a subprocess on
127.0.0.1 (or targets ``--url``, which must be a loopback address) and drives N players in real
games: tables of ``--seats`` humans, all simulated, each answering its ``state`` messages with a
random legal action after a small think time. It reports concurrent players, games finished per
minute, the p50 / p99 latency from sending an ``act`` to receiving its ``ack`` (or ``error``),
and errors.

On a machine with two or more cores the server subprocess is pinned to CPU 0 and this process
(the players) to CPU 1, so the two do not compete (``--no-pin`` turns that off).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

EXIT_USAGE: Final = 2
EXIT_FAILED: Final = 1


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
    p.add_argument(
        "--reconnect",
        action="store_true",
        help="players connect again when their connection drops (a server process killed "
        "behind a proxy), and the time until they are back is reported",
    )
    p.add_argument(
        "--addresses",
        type=int,
        default=1,
        metavar="N",
        help="connect from N loopback addresses (127.0.0.2, …) so that a real server's "
        "per-address limits see many players (default 1: the system's choice)",
    )
    p.add_argument(
        "--acks",
        default=None,
        metavar="FILE",
        help="write every acknowledged move as a JSON line [table, seat, version, action]",
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
    if not 1 <= args.addresses <= 62_500:
        err.print("gonuts loadtest: --addresses is 1 to 62500")
        return EXIT_USAGE
    # The web extra, imported once the arguments are known to be good.
    from gonuts.loadtest.client import Stats, drive, new_event_loop  # noqa: PLC0415
    from gonuts.loadtest.launcher import (  # noqa: PLC0415
        ServerError,
        is_loopback,
        local_server,
        pin,
        raise_fd_limit,
    )
    from gonuts.loadtest.report import progress_line  # noqa: PLC0415

    if args.url is not None and not is_loopback(args.url):
        err.print("gonuts loadtest: --url must be a loopback address (127.0.0.1, localhost, ::1)")
        return EXIT_USAGE
    if args.url is not None and urlsplit(args.url).scheme != "http":
        err.print("gonuts loadtest: --url must be http://HOST:PORT")
        return EXIT_USAGE
    raise_fd_limit()
    pinned = not args.no_pin
    console = Console()
    try:
        with contextlib.ExitStack() as stack:
            server_pid: int | None = None
            if args.url is None:
                server = stack.enter_context(local_server(args.db, pin_cpu=0 if pinned else None))
                server_pid = server.pid
                base = server.http
                where = f"a server started on {base} (pid {server_pid})"
                if pinned and pin(os.getpid(), 1):
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
            task = progress.add_task("load", total=args.duration, info="")

            def tick(elapsed: float, stats: Stats) -> None:
                info = progress_line(
                    stats.connected,
                    stats.games,
                    stats.acts,
                    stats.latencies_ms[-2000:],
                    sum(stats.errors.values()),
                )
                progress.update(task, completed=elapsed, info=info)

            loop = new_event_loop()
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
                            on_tick=None if args.quiet else tick,
                            server_pid=server_pid,
                            reconnect=args.reconnect,
                            addresses=args.addresses,
                            record_acks=args.acks is not None,
                        )
                    )
            finally:
                loop.close()
    except ServerError as exc:
        err.print(f"gonuts loadtest: {exc}", markup=False)
        return EXIT_FAILED
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_json(), indent=2) + "\n", encoding="utf-8")
    if args.acks:
        lines = (json.dumps(list(move)) + "\n" for move in stats.acked_moves or [])
        Path(args.acks).write_text("".join(lines), encoding="utf-8")
    if not args.quiet:
        console.print(result.summary(stats.errors))
        for sample in stats.error_samples:
            console.print(f"  {sample}", markup=False)
    return 0
