"""Arguments and handler shared by ``python -m gonuts.train`` and ``gonuts train``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any


def _players(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of player counts: {text!r}") from None
    if not values or any(not 2 <= v <= 6 for v in values):
        raise argparse.ArgumentTypeError(f"player counts must be 2 to 6, not {text!r}")
    return values


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _bots(text: str) -> tuple[str, ...]:
    from gonuts.bots.base import make_bot  # noqa: PLC0415 - the bots only when asked

    names = tuple(x.strip() for x in text.split(",") if x.strip())
    if not names:
        raise argparse.ArgumentTypeError("name at least one bot, e.g. greedy")
    for name in names:
        try:
            make_bot(name, 0)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return names


SELF_PLAY_ONLY = ("hidden", "random_seat", "scripted_seat", "past_seat", "snapshot_every")
"""Options of the self-play stage that the --against stage does not have."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--iterations", type=_positive, default=200, help="PPO iterations")
    parser.add_argument("--batch", type=_positive, default=128, help="games per iteration")
    parser.add_argument(
        "--players", type=_players, default=(2, 3, 4, 5, 6), help="table sizes, e.g. 2,3,4"
    )
    parser.add_argument("--hidden", type=_positive, default=256, help="hidden layer width")
    parser.add_argument(
        "--lr", type=float, default=None, help="Adam learning rate (3e-4; with --against 1e-4)"
    )
    parser.add_argument(
        "--entropy",
        type=float,
        default=None,
        help="entropy bonus weight (0.01; with --against 0.003)",
    )
    parser.add_argument("--epochs", type=_positive, default=3, help="PPO epochs per iteration")
    parser.add_argument(
        "--minibatch",
        type=_positive,
        default=None,
        help="samples per update (2048; with --against 1024)",
    )
    parser.add_argument(
        "--random-seat", type=float, default=0.2, help="share of seats played by random players"
    )
    parser.add_argument(
        "--scripted-seat",
        type=float,
        default=0.0,
        help="share of seats played by the scripted points player",
    )
    parser.add_argument(
        "--past-seat", type=float, default=0.0, help="share of seats played by past snapshots"
    )
    parser.add_argument(
        "--snapshot-every", type=_positive, default=20, help="iterations per past snapshot"
    )
    parser.add_argument("--init", default="", help="start from these weights (.npz)")
    parser.add_argument("--eval-every", type=_positive, default=10, help="iterations per eval")
    parser.add_argument(
        "--eval-players",
        type=_players,
        default=None,
        help="table sizes of the evaluations (each compiles a step): 2,4; with --against 4",
    )
    parser.add_argument(
        "--against",
        type=_bots,
        default=None,
        metavar="BOTS",
        help="second stage: train against these bots (e.g. greedy) in the rules engine on CPU"
        " workers, from --init (default: the shipped network); --batch is games per iteration",
    )
    parser.add_argument(
        "--eval-games", type=_positive, default=192, help="with --against: games per evaluation"
    )
    parser.add_argument(
        "--jobs", type=_positive, default=None, help="with --against: worker processes (all cores)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/neural", help="folder for checkpoints and curves")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _override(cfg: Any, args: argparse.Namespace) -> None:
    """The options whose default depends on the stage: the stage's own unless given."""
    for name in ("lr", "entropy", "minibatch", "eval_players"):
        value = getattr(args, name)
        if value is not None:
            setattr(cfg, name, value)


def run(args: argparse.Namespace) -> int:
    """Train; the progress bar is rich's. Errors the user can cause are one line."""
    try:
        from gonuts.train.ppo import Config, train  # noqa: PLC0415 - jax/flax only here
        from gonuts.train.versus import VersusConfig, train_versus  # noqa: PLC0415
    except ImportError as exc:
        print(
            f"gonuts train: needs the train extra (pip install 'gonuts[train]'): {exc}",
            file=sys.stderr,
        )
        return 2
    if args.init and not Path(args.init).is_file():
        print(f"gonuts train: --init: no such file {args.init}", file=sys.stderr)
        return 2
    job: Callable[[Callable[[int, dict[str, float]], None]], Path]
    if args.against is not None:
        defaults = argparse.ArgumentParser()
        add_arguments(defaults)
        given = [
            name for name in SELF_PLAY_ONLY if getattr(args, name) != defaults.get_default(name)
        ]
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            print(f"gonuts train: {flags}: not an option of --against", file=sys.stderr)
            return 2
        versus = VersusConfig(
            seed=args.seed,
            iterations=args.iterations,
            games=args.batch,
            players=args.players,
            against=args.against,
            epochs=args.epochs,
            eval_every=args.eval_every,
            eval_games=args.eval_games,
            jobs=args.jobs or os.cpu_count() or 1,
            out=args.out,
        )
        _override(versus, args)
        versus.init = args.init or versus.init
        total = versus.iterations
        job = partial(train_versus, versus)

    else:
        shares = (args.random_seat, args.scripted_seat, args.past_seat)
        if any(not 0.0 <= x < 1.0 for x in shares) or sum(shares) >= 1.0:
            print(
                "gonuts train: --random-seat, --scripted-seat and --past-seat must each be in"
                " [0, 1) and sum to less than 1",
                file=sys.stderr,
            )
            return 2
        cfg = Config(
            seed=args.seed,
            iterations=args.iterations,
            batch=args.batch,
            players=args.players,
            hidden=args.hidden,
            epochs=args.epochs,
            random_seat=args.random_seat,
            scripted_seat=args.scripted_seat,
            past_seat=args.past_seat,
            snapshot_every=args.snapshot_every,
            init=args.init,
            eval_every=args.eval_every,
            out=args.out,
        )
        _override(cfg, args)
        total = cfg.iterations
        job = partial(train, cfg)

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: PLC0415

    with Progress(
        TextColumn("train"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} it  {task.fields[info]}"),
        TimeElapsedColumn(),
        disable=args.quiet,
    ) as bar:
        task = bar.add_task("train", total=total, info="compiling")

        def progress(it: int, stats: dict[str, float]) -> None:
            info = (
                f"{int(stats['players'])}p  entropy {stats.get('entropy', 0.0):.2f}"
                f"  value loss {stats.get('value_loss', 0.0):.3f}"
            )
            if "win_share" in stats:
                info += f"  win share {stats['win_share']:.2f}"
            bar.update(task, completed=it, info=info)

        try:
            final = job(progress)
        except ValueError as exc:  # e.g. --init weights of another width
            print(f"gonuts train: {exc}", file=sys.stderr)
            return 2
    print(f"weights: {final}  curve: {final.parent / 'curve.png'}")
    return 0
