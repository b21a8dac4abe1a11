"""``gonuts hint RECORD --player S``: the search bot's estimate of every legal action."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from gonuts.bots.base import parse_budget
from gonuts.bots.hint import DEFAULT_ITERATIONS, Hint, hint
from gonuts.cli.replay import read_source
from gonuts.errors import RecordError
from gonuts.record import Record

EXIT_USAGE = 2


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "hint",
        help="estimate every legal action of a player at the end of a record",
        description="Replay a gonuts-record/1 file (or - for standard input) and search the "
        "decision that --player faces at its end, using only what that player may know. Prints "
        "every legal action with its estimated win probability and expected final score, and "
        "the recommended action.",
    )
    p.add_argument("file", help="record file, or - for standard input")
    p.add_argument("--player", type=int, required=True, metavar="S", help="seat index (0-based)")
    p.add_argument(
        "--budget",
        default=str(DEFAULT_ITERATIONS),
        help=f"search budget: N iterations or Xs seconds (default {DEFAULT_ITERATIONS})",
    )
    p.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=run)


def fail(message: str) -> int:
    print(f"gonuts hint: {message}", file=sys.stderr)
    return EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    try:
        iterations, seconds = parse_budget(args.budget)
    except ValueError as exc:
        return fail(str(exc))
    try:
        raw = read_source(args.file)
    except OSError as exc:
        return fail(f"cannot read {args.file}: {exc.strerror or exc}")
    try:
        record = Record.from_json(raw)
        game = record.replay()
    except RecordError as exc:
        return fail(str(exc))
    if not 0 <= args.player < game.num_players:
        return fail(f"no player {args.player} in this {game.num_players}-player game")
    try:
        result = hint(game, args.player, iterations=iterations, seconds=seconds, seed=args.seed)
    except ValueError as exc:
        return fail(str(exc))
    if args.json:
        sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
        return 0
    Console(highlight=False).print(hint_table(result, game.players[args.player]))
    return 0


def hint_table(result: Hint, name: str) -> Table:
    table = Table(
        title=f"Hint for {name} (seat {result.seat}): {result.iterations} simulations",
        caption=f"Recommended: {result.recommended}",
    )
    table.add_column("action")
    table.add_column("win probability", justify="right")
    table.add_column("expected score", justify="right")
    table.add_column("simulations", justify="right")
    for e in result.estimates:
        mark = " ★" if e.action is result.recommended else ""
        table.add_row(
            f"{e.action}{mark}",
            f"{e.win_probability:.1%}",
            f"{e.expected_score:.1f}",
            str(e.visits),
        )
    return table
