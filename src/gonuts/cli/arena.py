"""``gonuts arena``: bot tournaments with rotating seats, statistics and ratings."""

from __future__ import annotations

import argparse
import importlib
import json
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from gonuts.bots.arena import BotSummary, GameResult, play_game, ray_map, summarize, worker_context
from gonuts.bots.base import make_bot
from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS
from gonuts.cli.completion import dir_argument, file_argument
from gonuts.cli.errors import fail as _fail
from gonuts.cli.errors import missing_extra, positive_int
from gonuts.variants import VARIANTS, ordered

EXIT_USAGE = 2


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "arena",
        help="play bots against each other and rate them",
        description="Play --games games between bots. Seats rotate so that every bot plays "
        "every seat equally often (use a multiple of --players games). Prints per bot: games, "
        "win share (shared victories split), mean score ± 95% CI, mean rank, a "
        "Bradley–Terry rating (Elo scale) with a bootstrap 95% interval and the mean seconds "
        "per decision. Ctrl-C stops early and prints the summary of the games finished.",
    )
    p.add_argument("--players", type=positive_int, required=True, help="players per game, 2–6")
    p.add_argument(
        "--bots",
        required=True,
        help="comma-separated bot names, one per seat (or one for every seat), e.g. "
        "mcts,greedy,greedy,greedy; budgets: mcts:500 (iterations) or mcts:0.5s",
    )
    p.add_argument("--games", type=positive_int, required=True, help="number of games")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    dir_argument(
        p.add_argument("--save", metavar="DIR", help="write every game as a record into DIR")
    )
    file_argument(
        p.add_argument(
            "--json",
            metavar="FILE",
            help="write the results as JSON ('-': stdout, and the table goes to stderr)",
        )
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run the games on a Ray cluster (default: start a local one); "
        "needs the optional extra: pip install 'gonuts[ray]'",
    )
    p.add_argument(
        "--variant",
        action="append",
        choices=VARIANTS,
        metavar="NAME",
        help="a house rule (docs/rules.md, 'House rules') for every game; repeat for several ("
        + ", ".join(VARIANTS)
        + ")",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def fail(message: str) -> int:
    return _fail("arena", message, EXIT_USAGE)


def parse_bots(text: str, players: int) -> list[str]:
    bots = [b.strip() for b in text.split(",")]
    if any(not b for b in bots):
        raise ValueError("--bots: empty bot name")
    if len(bots) == 1:
        bots *= players
    if len(bots) != players:
        raise ValueError(f"--bots: give {players} bot names (one per seat) or one, not {len(bots)}")
    for name in dict.fromkeys(bots):
        make_bot(name, 0)  # ValueError for an unknown name or a bad budget
    return bots


def _play(task: tuple[list[str], int, int, bool, tuple[str, ...]]) -> GameResult:
    bots, index, seed, save, variants = task
    return play_game(bots, index, seed, save, variants)


def run_local(
    bots: list[str],
    games: int,
    seed: int,
    save: bool,
    jobs: int,
    *,
    variants: tuple[str, ...] = (),
) -> Iterator[GameResult]:
    tasks = [(bots, i, seed, save, variants) for i in range(games)]
    if jobs <= 1:
        for task in tasks:
            yield _play(task)
        return
    ctx = worker_context()
    with ctx.Pool(jobs, initializer=_ignore_interrupts) as pool:
        yield from pool.imap_unordered(_play, tasks)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and summarizes (no traceback
    from every worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_ray(
    bots: list[str],
    games: int,
    seed: int,
    save: bool,
    address: str,
    *,
    variants: tuple[str, ...] = (),
) -> Iterator[GameResult]:
    return ray_map(play_game, [(bots, i, seed, save, variants) for i in range(games)], address)


def run(args: argparse.Namespace) -> int:
    n = args.players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        return fail(f"--players must be 2 to 6, not {n}")
    if args.games < 1:
        return fail("--games must be at least 1")
    if args.jobs < 1:
        return fail("--jobs must be at least 1")
    try:
        bots = parse_bots(args.bots, n)
    except ValueError as exc:
        return fail(str(exc))
    variants = ordered(args.variant or ())
    if args.games % n and len(set(bots)) > 1:
        _fail(
            "arena",
            f"warning: {args.games} games is not a multiple of {n} players, so the bots do not "
            f"sit in every seat equally often (seat advantage leaks into the shares); "
            f"{args.games + (-args.games) % n} would balance them",
        )
    save_dir = Path(args.save) if args.save else None
    if save_dir is not None:
        try:
            save_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return fail(f"cannot create {save_dir}: {exc.strerror or exc}")
    source: Iterator[GameResult]
    if args.ray is not None:
        try:
            importlib.import_module("ray")
        except ImportError as exc:
            code = missing_extra("arena", exc)
            return code if code is not None else fail("--ray: Ray cannot be imported")
        source = run_ray(
            bots, args.games, args.seed, save_dir is not None, args.ray, variants=variants
        )
    else:
        source = run_local(
            bots, args.games, args.seed, save_dir is not None, args.jobs, variants=variants
        )
    console = Console(stderr=True, highlight=False)
    interrupted: list[bool] = []
    results = collect(
        source, args.games, console, quiet=args.quiet, save_dir=save_dir, interrupted=interrupted
    )
    if results is None:
        return 1
    if interrupted:
        _fail(
            "arena",
            f"interrupted after {len(results)} of {args.games} games; "
            "the summary covers the games finished",
        )
        if not results:
            return 130
    results.sort(key=lambda r: r.index)
    summary = summarize(results, bots, seed=args.seed)
    to_stdout = args.json != "-"
    stream = sys.stdout if to_stdout else sys.stderr
    out = Console(file=stream, highlight=False, width=None if stream.isatty() else 120)
    out.print(summary_table(summary, n, len(results)))
    if args.json:
        payload = to_json(n, results, summary, args.seed, bots, variants=variants)
        text = json.dumps(payload, indent=1) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            try:
                Path(args.json).write_text(text, encoding="utf-8")
            except OSError as exc:
                return _fail("arena", f"cannot write {args.json}: {exc.strerror}", 1)
    return 130 if interrupted else 0


def collect(
    source: Iterator[GameResult],
    games: int,
    console: Console,
    *,
    quiet: bool,
    save_dir: Path | None,
    interrupted: list[bool] | None = None,
) -> list[GameResult] | None:
    """The games' results as they finish, saving each record; ``None`` if a record cannot be
    saved. Ctrl-C stops early: the games finished so far, and ``interrupted`` gets a mark."""
    results: list[GameResult] = []
    progress = Progress(
        TextColumn("[bold]arena"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=quiet,
    )
    write: Callable[[GameResult], None] = (
        (lambda r: _save(save_dir, r)) if save_dir is not None else (lambda r: None)
    )
    try:
        with progress:
            task = progress.add_task("games", total=games)
            for result in source:
                write(result)
                results.append(result)
                progress.advance(task)
    except KeyboardInterrupt:
        if interrupted is not None:
            interrupted.append(True)
    except OSError as exc:
        _fail("arena", f"cannot save a record: {exc}", 1)
        return None
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()
    return results


def _save(directory: Path, result: GameResult) -> None:
    assert result.record is not None
    (directory / f"game-{result.index:05d}.json").write_text(result.record, encoding="utf-8")


def summary_table(summary: Sequence[BotSummary], players: int, games: int) -> Table:
    table = Table(title=Text(f"Arena: {games} games, {players} players"))
    for column in (
        "bot",
        "games",
        "win share (95% Wilson)",
        "mean score (95% CI)",
        "mean rank",
        "rating",
    ):
        table.add_column(column, justify="left" if column == "bot" else "right")
    table.add_column("s/decision", justify="right")
    for s in summary:
        table.add_row(
            Text(s.name),
            str(s.games),
            f"{s.win_share:.1%} ({s.win_share_ci[0]:.1%}–{s.win_share_ci[1]:.1%})",
            f"{s.mean_score:.1f} ({s.mean_score_ci[0]:.1f}–{s.mean_score_ci[1]:.1f})",
            f"{s.mean_rank:.2f}",
            f"{s.rating:+.0f} ({s.rating_ci[0]:+.0f}…{s.rating_ci[1]:+.0f})",
            f"{s.seconds_per_decision:.3g}",
        )
    return table


def to_json(
    players: int,
    results: Sequence[GameResult],
    summary: Sequence[BotSummary],
    seed: int,
    bots: Sequence[str],
    *,
    variants: Sequence[str] = (),
) -> dict[str, Any]:
    return {
        "players": players,
        "games": len(results),
        "seed": seed,
        "lineup": list(bots),
        "variants": list(variants),
        "bots": [s.to_dict() for s in summary],
        "results": [r.to_dict() for r in results],
    }
