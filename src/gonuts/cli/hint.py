"""``gonuts hint RECORD --player S``: the search bot's estimate of every legal action."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console

from gonuts.bots.base import parse_budget
from gonuts.bots.hint import DEFAULT_ITERATIONS, HINT_BOTS, hint
from gonuts.cli.completion import file_argument
from gonuts.cli.errors import fail as _fail
from gonuts.cli.errors import nonnegative_int
from gonuts.cli.replay import RecordFileError, load_record
from gonuts.errors import RecordError
from gonuts.render import display_names, hint_table

EXIT_USAGE = 2


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "hint",
        help="estimate every legal action of a player at the end of a record",
        description="Replay a gonuts-record/1 file (or - for standard input) and search the "
        "decision that --player faces at its end, using only what that player may know. Prints "
        "every legal action with its estimated win probability and expected final score, and "
        "the recommended action. At a simultaneous choice (the picks, Cinnamon Twist) the search "
        "plays a mixed strategy, so its recommendation need not be the highest win probability; "
        "the output then says why.",
    )
    file_argument(p.add_argument("file", help="record file, or - for standard input"))
    p.add_argument(
        "--player",
        type=nonnegative_int,
        required=True,
        metavar="S",
        help="seat number, from 0 as in the record notation",
    )
    p.add_argument(
        "--budget",
        default=str(DEFAULT_ITERATIONS),
        help=f"search budget: N iterations or Xs seconds (default {DEFAULT_ITERATIONS})",
    )
    p.add_argument(
        "--bot",
        choices=HINT_BOTS,
        default="mcts",
        help="the search: mcts (random playouts; the default) or neural-mcts (the shipped "
        "network's priors and values; no expected scores)",
    )
    p.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=run)


def fail(message: str) -> int:
    return _fail("hint", message)


def run(args: argparse.Namespace) -> int:
    try:
        iterations, seconds = parse_budget(args.budget)
    except ValueError as exc:
        return fail(str(exc))
    try:
        game = load_record(args.file).replay()
    except (RecordFileError, RecordError) as exc:
        return fail(str(exc))
    if not 0 <= args.player < game.num_players:
        return fail(f"no player {args.player} in this {game.num_players}-player game")
    try:
        result = hint(
            game,
            args.player,
            iterations=iterations,
            seconds=seconds,
            seed=args.seed,
            bot=args.bot,
        )
    except ValueError as exc:
        return fail(str(exc))
    if args.json:
        sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
        return 0
    Console(highlight=False).print(hint_table(result, display_names(game.players)))
    return 0
