"""``gonuts play``: a game at one terminal — human seats (hot-seat) and bot opponents.

This module is the command: its options, the setup of a new or resumed game, and saving the
record. The game's loop and screens are :class:`gonuts.cli.session.TerminalGame`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.text import Text

from gonuts.bots import Bot, make_bot
from gonuts.bots.base import DIFFICULTIES
from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS
from gonuts.cli.completion import file_argument
from gonuts.cli.errors import fail as _fail
from gonuts.cli.errors import nonnegative_float, nonnegative_int, positive_int
from gonuts.cli.session import DEFAULT_HINT_BUDGET, KEYS_HELP, SECRET_PHASES, TerminalGame
from gonuts.errors import RecordError
from gonuts.game import Game
from gonuts.record import Record
from gonuts.render import display_names, is_control, printable
from gonuts.variants import VARIANTS

__all__ = ["TerminalGame", "register", "run"]  # TerminalGame: its old home, still importable

EXIT_INTERRUPTED: Final = 130


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "play",
        help="play a game in the terminal against bots or friends (hot-seat)",
        description="Play Go Nuts for Donuts in the terminal. The first --humans seats are "
        "people sharing this keyboard; the others are bots. With several people (hot-seat) the "
        "game runs on the terminal's alternate screen and every hand-over clears the screen "
        "and its scrollback, so nobody sees another's pick.\n\n"
        f"{KEYS_HELP}\n\n"
        "The game is saved as a record (also when you quit or press Ctrl-C) in "
        "$XDG_DATA_HOME/gonuts/games (default ~/.local/share/gonuts/games), unless --save or "
        "--no-save; 'gonuts play --resume RECORD' continues it.",
    )
    p.add_argument("--players", type=positive_int, help="number of players, 2–6 (default 3)")
    p.add_argument("--humans", type=nonnegative_int, help="human seats, 0–N (default 1)")
    p.add_argument(
        "--names",
        help="comma-separated names for the human seats "
        "(default: Player, or Player A, Player B, …)",
    )
    bots = p.add_mutually_exclusive_group()
    bots.add_argument(
        "--difficulty",
        choices=sorted(DIFFICULTIES),
        help="strength of every bot seat: "
        + "; ".join(f"{k}: {v}" for k, v in DIFFICULTIES.items())
        + " (default medium)",
    )
    bots.add_argument(
        "--bots",
        help="comma-separated bot names for the bot seats, one or one per seat "
        "(random, greedy, mcts, mcts:N, mcts:Xs, neural, neural-mcts, neural-mcts:N, "
        "neural-mcts:Xs, easy, medium, hard)",
    )
    p.add_argument("--seed", type=int, help="shuffle seed (default: random)")
    p.add_argument(
        "--variant",
        action="append",
        choices=VARIANTS,
        metavar="NAME",
        help="a house rule (docs/rules.md, 'House rules'); repeat for several ("
        + ", ".join(VARIANTS)
        + ")",
    )
    p.add_argument("--bot-seed", type=int, help="seed for the bots (default: random)")
    file_argument(
        p.add_argument(
            "--save",
            metavar="PATH",
            help="where to save the record: a file, or a folder (ending in /) for a new file "
            "in it (default: a new file in the save folder; with --resume, the resumed file). "
            "An existing file is never replaced without --force",
        )
    )
    p.add_argument("--force", action="store_true", help="let --save replace an existing file")
    p.add_argument("--no-save", action="store_true", help="do not save a record")
    file_argument(
        p.add_argument(
            "--resume",
            metavar="RECORD",
            help="continue the game saved in RECORD: same players, the bots take their seats again",
        )
    )
    p.add_argument(
        "--delay",
        type=nonnegative_float,
        default=0.0,
        help="seconds to pause after bot moves, to follow a game (default 0)",
    )
    p.add_argument(
        "--hint-budget",
        type=positive_int,
        default=DEFAULT_HINT_BUDGET,
        metavar="N",
        help=f"search iterations for the h hint (default {DEFAULT_HINT_BUDGET})",
    )
    p.set_defaults(handler=run)


class Setup:
    """Everything ``run`` needs to start (or resume) a game; ``error`` when it cannot."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.seats: list[Bot | None] = []
        self.save: Path | None = None
        self.error: str | None = None


def default_save_path(folder: Path | None = None) -> Path:
    """A new file name in ``folder`` (default: the save folder), not taken by another game."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    folder = base / "gonuts" / "games" if folder is None else folder
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return free_name(folder / f"gonuts-{stamp}.json")


def free_name(path: Path) -> Path:
    """``path``, or ``name-2.json``, ``name-3.json``, … the first that does not exist."""
    candidate, number = path, 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
    return candidate


def save_target(given: str | None, resumed: Path | None, *, force: bool) -> tuple[Path, str | None]:
    """Where the record goes, and why not (``--save`` over an existing file without --force)."""
    if given is None:
        return (resumed or default_save_path()), None
    path = Path(given)
    if given.endswith(("/", os.sep)) or path.is_dir():
        return default_save_path(path), None
    if path.exists() and not force and path != resumed:
        return path, (
            f"--save {path}: the file exists (another game?); --force replaces it, or give "
            "a folder ending in / for a new file there"
        )
    return path, None


def check_save_path(path: Path) -> str | None:
    """Why a record cannot be written to ``path`` (checked before the game starts), or None."""
    if path.is_dir():
        return f"--save {path}: is a folder; give a file name"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"--save {path}: cannot create its folder: {exc.strerror or exc}"
    # Try for real: os.access() says yes to root even where no file can be made (/proc, a
    # read-only mount), and the record is written next to the target and renamed over it.
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".gonuts-", suffix=".check"):
            pass
    except OSError as exc:
        return f"--save {path}: cannot write in {path.parent}: {exc.strerror or exc}"
    if path.exists() and not os.access(path, os.W_OK):
        return f"--save {path}: the file is not writable"
    return None


def without_pending_secrets(game: Game) -> Game:
    """The game as of the last completed step that reveals nothing: in the middle of a
    selection (or a Cinnamon Twist's passes) the choices already made are taken back, so a
    saved record never holds a pick nobody has seen yet; on resume they are made again."""
    if game.is_over or game.phase not in SECRET_PHASES:
        return game
    step = (game.round, game.phase, game.state.pos)
    safe = game
    while safe.actions_taken():
        earlier = safe.copy()
        earlier.undo()
        if (earlier.round, earlier.phase, earlier.state.pos) != step:
            break
        safe = earlier
    return safe


def make_bots(kinds: Sequence[str], seed: int | None) -> list[Bot]:
    """``ValueError`` for an unknown bot name."""
    return [make_bot(kind, None if seed is None else seed + i) for i, kind in enumerate(kinds)]


def new_game(args: argparse.Namespace) -> Setup:
    setup = Setup()
    n = 3 if args.players is None else args.players
    humans = 1 if args.humans is None else args.humans
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        setup.error = f"--players: a game has 2 to 6 players, not {n}"
        return setup
    if not 0 <= humans <= n:
        setup.error = f"--humans must be between 0 and {n}"
        return setup
    human_names = [s.strip() for s in args.names.split(",")] if args.names else []
    if len(human_names) > humans or any(not s for s in human_names):
        setup.error = "--names: give at most one non-empty name per human seat"
        return setup
    for name in human_names:
        if any(is_control(c) for c in name):
            setup.error = f"--names: {printable(name)!r} holds a control character"
            return setup
    n_bots = n - humans
    kinds = [s.strip() for s in args.bots.split(",")] if args.bots else []
    if kinds and len(kinds) not in (1, n_bots):
        setup.error = f"--bots: give one bot name, or one per bot seat ({n_bots})"
        return setup
    if not kinds:
        kinds = [args.difficulty or "medium"]
    kinds = (kinds * n_bots)[:n_bots]
    try:
        bots = make_bots(kinds, args.bot_seed)
    except ValueError as exc:
        setup.error = f"--bots: {exc}"
        return setup
    names: list[str] = []
    for seat in range(humans):
        if seat < len(human_names):
            names.append(human_names[seat])
        elif humans == 1:
            names.append("Player")
        else:
            names.append(f"Player {chr(ord('A') + seat)}")
    names += [f"Bot {humans + i} ({bot.name})" for i, bot in enumerate(bots)]
    folded = [name.casefold() for name in names]
    duplicates = sorted({name for name in names if folded.count(name.casefold()) > 1})
    if duplicates:
        setup.error = f"--names: every player needs a different name ({', '.join(duplicates)})"
        return setup
    setup.game = Game.new(names, seed=args.seed, variants=args.variant or ())
    setup.seats = [None] * humans + list(bots)
    return setup


def resume_game(args: argparse.Namespace) -> Setup:
    setup = Setup()
    clashing = [
        option
        for option, value in (
            ("--players", args.players),
            ("--humans", args.humans),
            ("--names", args.names),
            ("--bots", args.bots),
            ("--difficulty", args.difficulty),
            ("--seed", args.seed),
            ("--variant", args.variant),
        )
        if value is not None
    ]
    if clashing:
        setup.error = f"--resume takes the players from the record, not {', '.join(clashing)}"
        return setup
    path = Path(args.resume)
    try:
        record = Record.from_json(path.read_bytes())
        game = record.replay()
    except OSError as exc:
        setup.error = f"--resume: cannot read {path}: {exc.strerror or exc}"
        return setup
    except RecordError as exc:
        setup.error = f"--resume {path}: {exc}"
        return setup
    if display_names(record.players) != record.players:
        setup.error = (
            f"--resume {path}: the names {', '.join(map(repr, display_names(record.players)))} "
            "hold control characters or read alike: not saved by gonuts play"
        )
        return setup
    kinds = record.extra.get("seats")
    if (
        not isinstance(kinds, list)
        or len(kinds) != game.num_players
        or not all(isinstance(k, str) for k in kinds)
    ):
        setup.error = (
            f"--resume {path}: no 'seats' list (humans and bots): not saved by gonuts play"
        )
        return setup
    if game.is_over:
        setup.error = f"--resume {path}: this game is already over (gonuts replay {path})"
        return setup
    seats: list[Bot | None] = []
    for seat, kind in enumerate(kinds):
        if kind == "human":
            seats.append(None)
            continue
        try:
            seats.append(make_bot(kind, None if args.bot_seed is None else args.bot_seed + seat))
        except ValueError as exc:
            setup.error = f"--resume {path}: seat {seat}: {exc}"
            return setup
    setup.game = game
    setup.seats = seats
    setup.save = path
    return setup


def run(args: argparse.Namespace) -> int:
    def fail(message: str) -> int:
        return _fail("play", message)

    setup = resume_game(args) if args.resume else new_game(args)
    if setup.error is not None:
        return fail(setup.error)
    game, seats = setup.game, setup.seats
    assert game is not None
    path: Path | None = None
    if args.save and args.no_save:
        return fail("--save and --no-save cannot be combined")
    if not args.no_save:
        path, problem = save_target(args.save, setup.save, force=args.force)
        problem = problem or check_save_path(path)
        if problem is not None:
            return fail(problem)
    elif args.force:
        return fail("--force goes with --save, not --no-save")
    console = Console(highlight=False)
    session = TerminalGame(
        console,
        game,
        seats,
        delay=args.delay,
        hint_budget=args.hint_budget,
        hint_seed=args.bot_seed or 0,
        saving=path is not None,
    )
    if args.resume:
        console.print(Text(f"Resuming {args.resume}: round {game.round}.", style="bold"))
    outcome = session.run()
    if path is not None:
        return save(console, game, seats, path, outcome, replace=args.force or path == setup.save)
    if not game.is_over:
        console.print("The game was not saved (--no-save).")
    return EXIT_CODES[outcome]


EXIT_CODES: Final = {"finished": 0, "quit": 0, "end of input": 1, "interrupted": EXIT_INTERRUPTED}


def save(
    console: Console,
    game: Game,
    seats: Sequence[Bot | None],
    path: Path,
    outcome: str,
    *,
    replace: bool,
) -> int:
    """Write the record (as of the last step that reveals nothing) and say where; a file that
    appeared at ``path`` during the game is kept and the record goes to a free name."""
    record = Record.from_game(
        without_pending_secrets(game),
        date=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        event="gonuts play",
        seats=["human" if s is None else s.name for s in seats],
    )
    line = Text("Record saved: ")
    try:  # whole or not at all: a second Ctrl-C cannot leave half a record
        try:
            record.save(path, overwrite=replace)
        except FileExistsError:
            taken, path = path, free_name(path)
            record.save(path)
            line = Text(f"{taken} appeared meanwhile and is kept. Record saved: ")
    except OSError as exc:
        return _fail("play", f"could not save the record to {path}: {exc.strerror}", 1)
    line.append(str(path), style="bold")
    if game.is_over:
        line.append(f"  (gonuts replay {path})")
    else:
        line.append(f"  (continue with: gonuts play --resume {path})")
    console.print(line)
    return EXIT_CODES[outcome]
