"""``gonuts replay FILE``: check a record against the rules and show where it leads."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from gonuts.cli.completion import file_argument
from gonuts.cli.errors import fail as _fail
from gonuts.cli.errors import nonnegative_int
from gonuts.errors import RecordError
from gonuts.record import Record, replay_summary
from gonuts.render import (
    breakdown_table,
    describe_event,
    display_names,
    join_names,
    table_renderable,
)

EXIT_BAD_RECORD = 2


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="replay a game record and show the state it reaches",
        description="Apply a gonuts-record/1 file (or - for standard input) and print the "
        "state it reaches. A bad record exits with status 2 and one line on stderr.",
    )
    file_argument(p.add_argument("file", help="record file, or - for standard input"))
    p.add_argument("--json", action="store_true", help="print the RECORD.md JSON object")
    p.add_argument("--log", action="store_true", help="also print the event log")
    p.add_argument(
        "--upto",
        type=nonnegative_int,
        metavar="N",
        help="replay only the first N actions (0 to the record's length; default: all)",
    )
    p.set_defaults(handler=run)


def read_source(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    with open(name, "rb") as f:
        return f.read()


class RecordFileError(Exception):
    """A record file that cannot be read or is not a record: the message is the one line
    the command prints (``gonuts CMD: message``)."""


def load_record(name: str) -> Record:
    """The record in file ``name`` (``-``: standard input), parsed but not yet replayed;
    :class:`RecordFileError` for an unreadable file, text that is not UTF-8, or a malformed
    record. ``replay``, ``hint`` and ``review`` all start here."""
    try:
        raw = read_source(name)
    except OSError as exc:
        raise RecordFileError(f"cannot read {name}: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordFileError("invalid JSON: the file is not UTF-8 text") from None
    try:
        return Record.from_json(text)
    except RecordError as exc:
        raise RecordFileError(str(exc)) from exc


def run(args: argparse.Namespace) -> int:
    try:
        record = load_record(args.file)
    except RecordFileError as exc:
        return fail(str(exc))
    if args.upto is not None and args.upto > len(record.actions):
        return fail(f"--upto {args.upto}: the record has only {len(record.actions)} actions")
    try:
        game = record.replay(upto=args.upto)
    except RecordError as exc:
        return fail(str(exc))
    if args.json:
        sys.stdout.write(json.dumps(replay_summary(game), ensure_ascii=False) + "\n")
        return 0
    # The screen shows names escaped and told apart: a record may come from anyone.
    shown_record = dataclasses.replace(record, players=display_names(record.players))
    game = shown_record.replay(upto=args.upto)
    console = Console(highlight=False)
    view = game.public_view()
    shown = len(record.actions) if args.upto is None else args.upto
    title = Text(", ".join(game.players), style="bold")
    title.append(f" — {shown} actions, round {game.round}")
    console.print(table_renderable(view, title=title))
    if game.is_over:
        console.print(breakdown_table(game.players, game.score_breakdown(), game.winner_seats))
        line = Text("Game over. ", style="bold")
        line.append("Winner: ")
        line.append(join_names([game.players[p] for p in game.winner_seats]), style="yellow")
        console.print(line)
    else:
        for p in game.to_act:
            legal = ", ".join(str(a) for a in game.legal_actions(p))
            line = Text("Waiting for ")
            line.append(game.players[p], style="bold")
            line.append(f" (seat {p}): {legal}")
            console.print(line)
    if args.log:
        console.print(Rule("Event log"))
        for event in view.events:
            console.print(describe_event(event, game.players))
    return 0


def fail(message: str) -> int:
    return _fail("replay", message, EXIT_BAD_RECORD)
