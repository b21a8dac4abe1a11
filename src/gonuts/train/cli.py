"""Arguments and handler shared by ``python -m gonuts.train`` and ``gonuts train``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--iterations", type=_positive, default=200, help="PPO iterations")
    parser.add_argument("--batch", type=_positive, default=128, help="games per iteration")
    parser.add_argument(
        "--players", type=_players, default=(2, 3, 4, 5, 6), help="table sizes, e.g. 2,3,4"
    )
    parser.add_argument("--hidden", type=_positive, default=256, help="hidden layer width")
    parser.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate")
    parser.add_argument("--epochs", type=_positive, default=3, help="PPO epochs per iteration")
    parser.add_argument("--minibatch", type=_positive, default=2048, help="samples per update")
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
        default=(2, 4),
        help="table sizes of the evaluations (each compiles a step), e.g. 2",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/neural", help="folder for checkpoints and curves")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Train; the progress bar is rich's. Errors the user can cause are one line."""
    try:
        from gonuts.train.ppo import Config, train  # noqa: PLC0415 - jax/flax only here
    except ImportError as exc:
        print(
            f"gonuts train: needs the train extra (pip install 'gonuts[train]'): {exc}",
            file=sys.stderr,
        )
        return 2
    shares = (args.random_seat, args.scripted_seat, args.past_seat)
    if any(not 0.0 <= x < 1.0 for x in shares) or sum(shares) >= 1.0:
        print(
            "gonuts train: --random-seat, --scripted-seat and --past-seat must each be in"
            " [0, 1) and sum to less than 1",
            file=sys.stderr,
        )
        return 2
    if args.init and not Path(args.init).is_file():
        print(f"gonuts train: --init: no such file {args.init}", file=sys.stderr)
        return 2
    cfg = Config(
        seed=args.seed,
        iterations=args.iterations,
        batch=args.batch,
        players=args.players,
        hidden=args.hidden,
        lr=args.lr,
        epochs=args.epochs,
        minibatch=args.minibatch,
        random_seat=args.random_seat,
        scripted_seat=args.scripted_seat,
        past_seat=args.past_seat,
        snapshot_every=args.snapshot_every,
        init=args.init,
        eval_every=args.eval_every,
        eval_players=args.eval_players,
        out=args.out,
    )
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: PLC0415

    with Progress(
        TextColumn("train"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} it  {task.fields[info]}"),
        TimeElapsedColumn(),
        disable=args.quiet,
    ) as bar:
        task = bar.add_task("train", total=cfg.iterations, info="compiling")

        def progress(it: int, stats: dict[str, float]) -> None:
            info = (
                f"{int(stats['players'])}p  entropy {stats.get('entropy', 0.0):.2f}"
                f"  value loss {stats.get('value_loss', 0.0):.3f}"
            )
            bar.update(task, completed=it, info=info)

        try:
            final = train(cfg, progress)
        except ValueError as exc:  # e.g. --init weights of another width
            print(f"gonuts train: {exc}", file=sys.stderr)
            return 2
    print(f"weights: {final}  curve: {final.parent / 'curve.png'}")
    return 0
