"""``gonuts bench``: random playouts per second, per player count (see benchmarks/).

``--batch`` measures :mod:`gonuts.batch` instead: whole batches of random games as one JAX
program on a CPU or GPU (the ``batch`` extra; imported only then).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from gonuts.build import build_name
from gonuts.cli.errors import fail, positive_float, positive_int
from gonuts.game import Game, default_names
from gonuts.playout import random_game

CHUNK_GAMES = 200


@dataclass(frozen=True)
class BenchResult:
    """Totals, and the median rate over short chunks (robust to other jobs on the machine)."""

    players: int
    games: int
    seconds: float
    decisions: int
    median_games_per_s: float
    median_decisions_per_s: float

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds


def checked_playout(game: Game, rng: random.Random) -> int:
    """Random play through the validated public API (legal actions as objects, checked apply)."""
    decisions = 0
    while not game.is_over:
        for player in game.to_act:
            legal = game.legal_actions(player)
            game.apply(player, legal[int(rng.random() * len(legal))])
            decisions += 1
    return decisions


def bench(players: int, seconds: float, seed: int = 0, *, checked: bool = False) -> BenchResult:
    """Play complete random games (deal with a seeded shuffle, play, score) for ``seconds``.

    The default is the search path (:func:`gonuts.playout.random_game`: the deal of
    :meth:`~gonuts.game.Game.new` and :func:`~gonuts.playout.random_playout`, no event log);
    ``checked`` plays through :class:`~gonuts.game.Game` with validation and the event log.
    """
    rng = random.Random(seed)
    names = default_names(players)
    games = decisions = 0
    chunk_rates: list[tuple[float, float]] = []
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        chunk_start = time.perf_counter()
        chunk_games = chunk_decisions = 0
        for _ in range(CHUNK_GAMES):
            if checked:
                chunk_decisions += checked_playout(Game.new(players, seed=seed + games), rng)
            else:
                chunk_decisions += random_game(names, seed + games, rng)[1]
            games += 1
            chunk_games += 1
        now = time.perf_counter()
        decisions += chunk_decisions
        chunk_rates.append(
            (chunk_games / (now - chunk_start), chunk_decisions / (now - chunk_start))
        )
        if now >= deadline:
            return BenchResult(
                players,
                games,
                now - start,
                decisions,
                statistics.median(r[0] for r in chunk_rates),
                statistics.median(r[1] for r in chunk_rates),
            )


JOB_SEED_STRIDE = 10**9
"""Job ``j`` deals from seeds ``j * JOB_SEED_STRIDE`` on: no two jobs play the same game."""


def _bench_job(players: int, seconds: float, seed: int, checked: bool) -> BenchResult:
    return bench(players, seconds, seed, checked=checked)


def bench_jobs(
    players: int, seconds: float, jobs: int, *, checked: bool = False
) -> list[BenchResult]:
    """:func:`bench` in ``jobs`` processes at once (one per core): one result per job.

    The processes are spawned, so each imports the build this one runs (``GONUTS_PURE``
    is inherited).
    """
    if jobs == 1:
        return [bench(players, seconds, checked=checked)]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [
            pool.submit(_bench_job, players, seconds, j * JOB_SEED_STRIDE, checked)
            for j in range(jobs)
        ]
        return [f.result() for f in futures]


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "bench",
        help="measure random playouts per second (one core)",
        description="Plays complete random games for each player count in turn (--seconds "
        "each) and prints games/s and decisions/s on one core (--jobs N: N processes, rates "
        "summed), and which build of the engine ran (compiled or pure Python).",
    )
    p.add_argument(
        "--players",
        default=None,
        help="player counts (default 2,3,4,5,6; with --batch one count, default 3)",
    )
    p.add_argument(
        "--seconds",
        type=positive_float,
        default=3.0,
        help="seconds of play for EACH player count, not in all: the default five counts "
        "at 3 s take about 15 s (with --jobs, every process plays that long at once)",
    )
    p.add_argument(
        "--checked",
        action="store_true",
        help="play through the validated public API with event logs (slower)",
    )
    p.add_argument(
        "--jobs",
        type=positive_int,
        default=1,
        metavar="N",
        help="run N benchmark processes at once (one per core) and sum their rates",
    )
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument(
        "--batch",
        action="store_true",
        help="measure gonuts.batch (JAX): batches of random games on one device",
    )
    p.add_argument(
        "--device",
        choices=("cpu", "gpu"),
        default="cpu",
        help="with --batch: the device to run on (default cpu)",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=None,
        metavar="B",
        help="with --batch: games per batch (default 4096 on cpu, 65536 on gpu)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.batch:
        return run_batch(args)
    if args.batch_size is not None or args.device != "cpu":
        return fail("bench", "--batch-size and --device go with --batch")
    console = Console()
    try:
        counts = [int(x) for x in (args.players or "2,3,4,5,6").split(",")]
    except ValueError:
        return fail("bench", "--players: a comma-separated list of numbers")
    if any(not 2 <= c <= 6 for c in counts):
        return fail("bench", "--players: each count must be 2 to 6")
    jobs: int = args.jobs
    results: list[list[BenchResult]] = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("benchmarking", total=len(counts))
        for c in counts:
            progress.update(task, description=f"{c} players")
            results.append(bench_jobs(c, args.seconds, jobs, checked=args.checked))
            progress.advance(task)
    mode = "checked public API" if args.checked else "search fast path"
    where = "one core" if jobs == 1 else f"{jobs} processes, rates summed"
    table = Table(title=f"Random games, {where} ({mode}), engine: {build_name()}")
    for col in (
        "players",
        "games",
        "seconds (this count)",
        "games/s",
        "decisions/s",
        "overall games/s",
    ):
        table.add_column(col, justify="right")
    for per_job in results:
        table.add_row(
            str(per_job[0].players),
            str(sum(r.games for r in per_job)),
            f"{max(r.seconds for r in per_job):.2f}",
            f"{sum(r.median_games_per_s for r in per_job):,.0f}",
            f"{sum(r.median_decisions_per_s for r in per_job):,.0f}",
            f"{sum(r.games_per_s for r in per_job):,.0f}",
        )
    console.print(table)
    console.print(
        f"games/s and decisions/s: median over chunks of {CHUNK_GAMES} games "
        "(robust to other jobs on the machine); overall: total games / total time"
        + ("." if jobs == 1 else "; each summed over the processes.")
    )
    if args.json:
        with open(args.json, "w") as f:
            rows = [
                asdict(r)
                | {
                    "games_per_s": r.games_per_s,
                    "decisions_per_s": r.decisions_per_s,
                    "job": j,
                    "build": build_name(),
                }
                for per_job in results
                for j, r in enumerate(per_job)
            ]
            json.dump(rows, f, indent=1)
    return 0


def run_batch(args: argparse.Namespace) -> int:
    """``gonuts bench --batch``: games/s of gonuts.batch on one device."""
    if args.checked:
        return fail("bench", "--checked does not go with --batch")
    text = args.players or "3"
    if not text.isdigit() or not 2 <= int(text) <= 6:
        return fail("bench", "--players: with --batch, one player count from 2 to 6")
    try:
        from gonuts.batch.bench import (  # noqa: PLC0415 - the optional batch extra
            DEFAULT_BATCH,
            NoDeviceError,
            bench_batch,
        )
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] not in ("jax", "jaxlib"):
            raise
        return fail("bench", "--batch needs the 'batch' extra: pip install 'gonuts[batch]'")
    size = args.batch_size or DEFAULT_BATCH[args.device]
    console = Console()
    try:
        with console.status(f"compiling and running {size} games at a time on {args.device}"):
            r = bench_batch(int(text), size, args.seconds, args.device)
    except NoDeviceError as exc:
        return fail("bench", str(exc))
    table = Table(title=f"gonuts.batch: random {r.players}-player games on {r.device}")
    for col in ("batch size", "games", "seconds", "games/s", "decisions/s", "compile s"):
        table.add_column(col, justify="right")
    table.add_row(
        str(r.batch_size),
        str(r.games),
        f"{r.seconds:.2f}",
        f"{r.games_per_s:,.0f}",
        f"{r.decisions_per_s:,.0f}",
        f"{r.compile_seconds:.1f}",
    )
    console.print(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r.to_json(), f, indent=1)
    return 0
