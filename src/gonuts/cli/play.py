"""``gonuts play``: a game at one terminal — human seats (hot-seat) and bot opponents.

Design decision: a line-based game printed with rich, not a full-screen Textual app. Every
screen is a plain sequence of lines and prompts, so the whole game is driven and checked
through a pseudo-terminal (pexpect) exactly as a person types, works over ssh, in small and
ASCII-only terminals, and with screen readers; a Textual app would add a dependency and a
second rendering path without serving the issue's points better. Hot-seat secrecy comes from
the terminal itself: a game with several people at the keyboard runs on the alternate screen
(which keeps no scrollback) and every hand-over clears the screen and the scrollback
(``ESC [2J ESC [3J``), so no earlier pick is left anywhere the next player can scroll to.

Seats are numbered from 0 on screen, as in the record notation the player may type
(``take glazed from 2`` takes a Glazed from seat 2).
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from gonuts.actions import Action, Verb
from gonuts.bots import Bot, hint, make_bot
from gonuts.bots.base import DIFFICULTIES
from gonuts.cards import KIND_BY_ID, MAX_PLAYERS, MIN_PLAYERS
from gonuts.cli.completion import file_argument
from gonuts.cli.errors import fail as _fail
from gonuts.cli.errors import nonnegative_float, nonnegative_int, positive_int
from gonuts.errors import MalformedActionError, RecordError
from gonuts.events import Event, EventType
from gonuts.game import Game
from gonuts.record import Record
from gonuts.render import (
    LEGEND,
    a_card,
    breakdown_table,
    card_reference,
    card_text,
    collection_text,
    describe_action,
    describe_event,
    find_kind,
    hint_table,
    table_renderable,
    winners_text,
)
from gonuts.state import Phase
from gonuts.variants import VARIANTS
from gonuts.view import PlayerView

SECRET_PHASES: Final = (Phase.SELECT, Phase.CINNAMON_TWIST)
CLEAR: Final = "\x1b[H\x1b[2J\x1b[3J"
"""Cursor home, erase the screen, erase the scrollback (xterm and every modern terminal)."""
REVEALS: Final = (EventType.ROUND_STARTED, EventType.SELECTIONS_REVEALED, EventType.GAME_OVER)
"""Events after which everyone at a hot-seat table sees what happened before the hand-over."""
DEFAULT_HINT_BUDGET: Final = 1000
EXIT_INTERRUPTED: Final = 130

KEYS_HELP: Final = """\
Keys at every prompt:
  a number or notation   your choice: a row position, a menu number, or the
                         notation, e.g. 'pick 2', 'give glazed to 1' (seats
                         are numbered from 0, as on screen)
  ?                      this help and the legend of colours and dots
  ? NAME                 a card's reference, e.g. '? eclair' or '? bear claw'
  h                      a hint: the search bot's estimate of your choices
  t                      the table again
  l                      the log of this round and the last
  q                      quit; the game so far is saved (Ctrl-C saves too)"""


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
        "(random, greedy, mcts, mcts:N, mcts:Xs, easy, medium, hard)",
    )
    p.add_argument("--seed", type=int, help="shuffle seed (default: random)")
    p.add_argument(
        "--variant",
        action="append",
        choices=VARIANTS,
        metavar="NAME",
        help="a house rule of RULES.md; repeat for several (" + ", ".join(VARIANTS) + ")",
    )
    p.add_argument("--bot-seed", type=int, help="seed for the bots (default: random)")
    file_argument(
        p.add_argument(
            "--save",
            metavar="PATH",
            help="where to save the record (default: a new file in the save folder; with "
            "--resume, the resumed file)",
        )
    )
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


class QuitGame(Exception):  # noqa: N818 - a signal, not an error
    """The human asked to leave (``q``: ``on_purpose``) or the input ended."""

    def __init__(self, *, on_purpose: bool) -> None:
        super().__init__("quit" if on_purpose else "end of input")
        self.on_purpose = on_purpose


class Setup:
    """Everything ``run`` needs to start (or resume) a game; ``error`` when it cannot."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.seats: list[Bot | None] = []
        self.save: Path | None = None
        self.error: str | None = None


def default_save_path() -> Path:
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return base / "gonuts" / "games" / f"gonuts-{stamp}.json"


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
        path = Path(args.save) if args.save else setup.save or default_save_path()
        problem = check_save_path(path)
        if problem is not None:
            return fail(problem)
    console = Console(highlight=False)
    session = TerminalGame(
        console,
        game,
        seats,
        delay=args.delay,
        hint_budget=args.hint_budget,
        hint_seed=args.bot_seed or 0,
    )
    if args.resume:
        console.print(Text(f"Resuming {args.resume}: round {game.round}.", style="bold"))
    outcome = session.run()
    if path is not None:
        record = Record.from_game(
            game,
            date=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            event="gonuts play",
            seats=["human" if s is None else s.name for s in seats],
        )
        partial = path.with_name(path.name + ".partial")
        try:  # whole or not at all: a second Ctrl-C cannot leave half a record
            partial.write_text(record.to_json(), encoding="utf-8")
            os.replace(partial, path)
        except OSError as exc:
            return _fail("play", f"could not save the record to {path}: {exc.strerror}", 1)
        line = Text("Record saved: ")
        line.append(str(path), style="bold")
        if game.is_over:
            line.append(f"  (gonuts replay {path})")
        else:
            line.append(f"  (continue with: gonuts play --resume {path})")
        console.print(line)
    elif not game.is_over:
        console.print("The game was not saved (--no-save).")
    return {"finished": 0, "quit": 0, "end of input": 1, "interrupted": EXIT_INTERRUPTED}[outcome]


class TerminalGame:
    """Drives one game: asks bots and people, shows each person only what they may see."""

    def __init__(
        self,
        console: Console,
        game: Game,
        seats: Sequence[Bot | None],
        *,
        delay: float = 0.0,
        hint_budget: int = DEFAULT_HINT_BUDGET,
        hint_seed: int = 0,
    ) -> None:
        self.console = console
        self.game = game
        self.seats = seats
        self.delay = delay
        self.hint_budget = hint_budget
        self.hint_seed = hint_seed
        self.humans = [p for p, bot in enumerate(seats) if bot is None]
        self.hot_seat = len(self.humans) > 1
        self.observer = self.humans[0] if len(self.humans) == 1 else None
        """The seat whose view the screen shows between turns (None: the public view)."""
        self.shown_events = len(game.event_log)
        """Events already printed on the screen."""
        self.results_from = len(game.event_log)
        """Hot-seat: events everyone has seen on a results screen."""
        self.last_human: int | None = None
        self.viewer: int | None = self.observer
        """Whose eyes are on the screen now (None: everyone's, at a hot-seat table)."""

    # -- the loop ---------------------------------------------------------------------------------

    def run(self) -> str:
        """Play to the end or until the person quits: ``"finished"``, ``"quit"``, ``"end of
        input"`` or ``"interrupted"`` (Ctrl-C). The final scores are printed on the normal
        screen (a hot-seat game leaves the alternate screen first)."""
        alternate = self.hot_seat and self.console.is_terminal
        outcome = "finished"
        try:
            if alternate:
                self.console.set_alt_screen(True)
                self.clear()
            self.play()
        except QuitGame as quit_:
            outcome = "quit" if quit_.on_purpose else "end of input"
        except KeyboardInterrupt:
            outcome = "interrupted"
        finally:
            if alternate:
                self.clear()
                self.console.set_alt_screen(False)
        if outcome == "finished":
            self.finish()
        else:
            words = {
                "quit": "You left the game.",
                "end of input": "The input ended: game abandoned.",
                "interrupted": "Interrupted (Ctrl-C): game abandoned.",
            }[outcome]
            self.console.print(Text("\n" + words, style="yellow"))
        return outcome

    def play(self) -> None:
        game = self.game
        self.console.print(Rule("Go Nuts for Donuts"))
        self.console.print(
            "Pick a donut each round; if two or more of you pick the same one, nobody gets it. "
            "Type ? at any prompt for help, h for a hint, q to quit (the game is saved)."
        )
        if game.variants:
            self.console.print(Text("House rules: " + ", ".join(game.variants), style="bold"))
        if not self.hot_seat:
            self.show_table()
        while not game.is_over:
            waiting = game.to_act
            bots_moved = False
            # Bots first: their choices are secret too, and they never wait for people.
            for seat in waiting:
                bot = self.seats[seat]
                if bot is not None and seat in game.to_act:
                    game.apply(seat, bot.choose(game.view(seat)))
                    bots_moved = True
            for seat in waiting:
                if self.seats[seat] is None and seat in game.to_act:
                    self.human_turn(seat)
            if not self.hot_seat:
                self.show_new_events()
            if self.delay and bots_moved and not self.hot_seat:
                time.sleep(self.delay)

    def human_turn(self, seat: int) -> None:
        game = self.game
        if self.hot_seat:
            pending = self.public_events(self.results_from)
            if pending and (seat != self.last_human or any(e.type in REVEALS for e in pending)):
                self.results_screen()
                self.hand_over(seat)
            elif seat != self.last_human:
                self.hand_over(seat)
            else:
                self.viewer = seat
                self.show_new_events()
        self.last_human = seat
        self.viewer = seat
        view = game.view(seat)
        if self.hot_seat or view.phase is not Phase.SELECT:
            self.show_table()
        game.apply(seat, self.ask(view))
        if self.hot_seat:
            self.shown_events = len(game.event_log)
            if game.phase in SECRET_PHASES and not game.is_over:
                self.clear()  # the pick leaves the screen before the next person comes
            self.viewer = None

    def results_screen(self) -> None:
        """Hot-seat: everyone sees what happened since the last results screen, then Enter."""
        self.viewer = None
        self.clear()
        events = self.public_events(self.results_from)
        ended = any(e.type is EventType.ROUND_STARTED for e in events)
        played = self.game.round - 1 if ended and not self.game.is_over else self.game.round
        self.console.print(Rule(f"Round {played}: what happened"))
        for event in events:
            self.console.print(Text("• ").append_text(describe_event(event, self.game.players)))
        self.show_table()
        self.results_from = self.shown_events = len(self.game.event_log)
        self.prompt("Everyone may look. Press Enter to continue", None)

    def hand_over(self, seat: int) -> None:
        """Hot-seat: clear the screen and its scrollback, wait for the right person."""
        self.viewer = None
        if self.last_human is not None:  # before the first turn nothing secret was shown
            self.clear()
        name = self.game.players[seat]
        self.console.print(Rule(Text(f"Pass the keyboard to {name}")))
        self.prompt(f"{name}, press Enter when the others cannot see the screen", None)
        self.clear()

    def clear(self) -> None:
        """Erase the screen and the scrollback (hot-seat only; nothing to erase in a pipe)."""
        if self.hot_seat and self.console.is_terminal:
            self.console.file.write(CLEAR)
            self.console.file.flush()

    # -- asking ----------------------------------------------------------------------------------

    def read(self, prompt: str) -> str:
        text = Text(prompt, style="bold cyan")
        text.append(" › ")
        try:
            return self.console.input(text)
        except EOFError:
            raise QuitGame(on_purpose=False) from None

    def prompt(self, prompt: str, view: PlayerView | None) -> str:
        """An answer, after handling the keys that work at every prompt (? h t l q)."""
        while True:
            answer = self.read(prompt).strip()
            if answer.startswith("?"):
                self.show_help(answer[1:].strip())
                continue
            word = answer.lower()
            if word in ("q", "quit", "exit"):
                raise QuitGame(on_purpose=True)
            if word in ("t", "table"):
                self.show_table()
                continue
            if word in ("l", "log"):
                self.show_log()
                continue
            if word in ("h", "hint"):
                self.show_hint(view)
                continue
            if word == "help":
                self.show_help("")
                continue
            return answer

    def ask(self, view: PlayerView) -> Action:
        name = view.players[view.seat] if view.seat is not None else "?"
        legal = list(view.legal)
        if view.phase is Phase.SELECT:
            while True:
                answer = self.prompt(f"{name}, pick a donut: position 1–{len(view.row)}", view)
                action = self.match(answer, legal, by_position=True)
                if action is not None:
                    return action
                self.error(f"Type a position from 1 to {len(view.row)} (or ? for help).")
        self.console.print(self.decision_header(view))
        targets = sorted({a.seat for a in legal if a.seat is not None})
        if len(targets) > 1 and all(a.seat is not None for a in legal):
            return self.ask_two_steps(view, legal, targets)
        return self.ask_menu(view, legal)

    def ask_menu(self, view: PlayerView, legal: list[Action], *, back: bool = False) -> Action:
        """One numbered menu; ``back``: ``b`` returns to the previous step (raises _Back)."""
        name = view.players[view.seat] if view.seat is not None else "?"
        for i, action in enumerate(legal, 1):
            line = Text(f"  {i}) ", style="bold")
            line.append(describe_action(action, view.players))
            self.console.print(line)
        extra = ", b to go back" if back else ""
        while True:
            answer = self.prompt(f"{name}, choose 1–{len(legal)}{extra}", view)
            if back and answer.lower() in ("b", "back"):
                raise _Back
            chosen = self.match(answer, legal, by_position=False)
            if chosen is not None:
                return chosen
            self.error(f"Type a number from 1 to {len(legal)} (or ? for help).")

    def ask_two_steps(self, view: PlayerView, legal: list[Action], targets: list[int]) -> Action:
        """Whom (by seat number), then which card: for Sprinkled, Bear Claw, Strawberry Glazed."""
        name = view.players[view.seat] if view.seat is not None else "?"
        verb = legal[0].verb
        question = {
            Verb.GIVE: "To whom?",
            Verb.TAKE_FROM: "From whom?",
            Verb.DISCARD_FROM: "From whose collection?",
        }.get(verb, "Whom?")
        while True:
            self.console.print(Text(question, style="bold"))
            for seat in targets:
                line = Text(f"  {seat}) ", style="bold")
                line.append(view.players[seat], style="bold")
                line.append(": ")
                line.append_text(collection_text(view.collections[seat]))
                self.console.print(line)
            chosen: int | None = None
            while chosen is None:
                answer = self.prompt(
                    f"{name}, type a seat number ({', '.join(map(str, targets))})", view
                )
                direct = self.match(answer, legal, by_position=False, numbers=False)
                if direct is not None:
                    return direct
                chosen = self.match_seat(answer, view.players, targets)
                if chosen is None:
                    self.error(
                        f"Type one of the seat numbers {', '.join(map(str, targets))}, or a name."
                    )
            options = [a for a in legal if a.seat == chosen]
            if len(options) == 1:
                return options[0]
            try:
                return self.ask_menu(view, options, back=True)
            except _Back:
                continue

    def match_seat(self, answer: str, names: Sequence[str], targets: list[int]) -> int | None:
        if answer.isdigit():
            seat = int(answer)
            return seat if seat in targets else None
        folded = answer.casefold()
        found = [s for s in targets if names[s].casefold() == folded]
        return found[0] if len(found) == 1 else None

    def match(
        self, answer: str, legal: list[Action], *, by_position: bool, numbers: bool = True
    ) -> Action | None:
        answer = answer.strip()
        if answer.isdigit():
            if not numbers:
                return None
            number = int(answer)
            if by_position:
                return next((a for a in legal if a.position == number), None)
            return legal[number - 1] if 1 <= number <= len(legal) else None
        try:
            action = Action.parse(" ".join(answer.lower().split()))
        except MalformedActionError:
            return None
        return action if action in legal else None

    def error(self, message: str) -> None:
        self.console.print(Text(message, style="red"))

    def decision_header(self, view: PlayerView) -> Text:
        power = view.power
        text = Text()
        if power is not None:
            text.append("Your ")
            text.append_text(card_text(power))
            text.append(": ")
            text.append(KIND_BY_ID[power].power or "", style="italic")
        if view.phase is Phase.DOUBLE_CHOCOLATE and view.drawn:
            text.append("\nYou drew ")
            for i, kind in enumerate(view.drawn):
                if i:
                    text.append(" and ")
                text.append(a_card(kind).split(" ", 1)[0] + " ")
                text.append_text(card_text(kind, star=False))
            text.append(". The other goes back on top of the deck.")
        if view.phase is Phase.CINNAMON_TWIST:
            actor = view.players[view.actor] if view.actor is not None else "someone"
            text = Text(f"{actor}'s Cinnamon Twist: choose a card to pass to ")
            if view.seat is not None:
                text.append(view.players[(view.seat + 1) % len(view.players)], style="bold")
            text.append(" (in secret).")
        if view.legal and view.legal[0].verb is Verb.DISCARD and view.phase is Phase.MILK:
            text.append("\n(discard the Milk itself, or start discarding three other cards)")
        return text

    # -- showing ---------------------------------------------------------------------------------

    def current_view(self) -> PlayerView:
        seat = self.viewer
        return self.game.view(seat) if seat is not None else self.game.public_view()

    def compact(self) -> bool:
        """Whether the row's boxes would push the prompt off the screen (small terminals)."""
        width, height = self.console.size
        per_line = max(1, (width + 1) // 25)
        lines = math.ceil(len(self.game.row) / per_line) * 8 + self.game.num_players + 10
        return lines > height

    def show_table(self) -> None:
        self.console.print(table_renderable(self.current_view(), compact=self.compact()))

    def public_events(self, start: int) -> list[Event]:
        return [e for e in self.game.event_log[start:] if e.visible_to is None]

    def show_new_events(self) -> None:
        events = self.game.event_log
        for event in events[self.shown_events :]:
            if event.visible_to is not None and event.visible_to != self.viewer:
                continue
            self.console.print(Text("• ").append_text(describe_event(event, self.game.players)))
        self.shown_events = len(events)
        if not self.game.is_over and self.game.phase is Phase.SELECT and not self.hot_seat:
            self.show_table()

    def show_log(self) -> None:
        """The events of the previous round and this one, as the viewer may see them."""
        events = self.current_view().events
        starts = [i for i, e in enumerate(events) if e.type is EventType.ROUND_STARTED]
        start = starts[-2] if len(starts) >= 2 else 0
        self.console.print(Rule("Log: the last round and this one"))
        for event in events[start:]:
            self.console.print(Text("• ").append_text(describe_event(event, self.game.players)))

    def show_help(self, topic: str) -> None:
        if topic:
            kind = find_kind(topic)
            if kind is None:
                self.error(f"No card called {topic!r}. Try e.g. '? eclair' or '? bear claw'.")
            else:
                self.console.print(card_reference(kind))
            return
        self.console.print(Text(KEYS_HELP))
        self.console.print(Text(LEGEND))

    def show_hint(self, view: PlayerView | None) -> None:
        if view is None or view.seat is None or not view.legal:
            self.error("There is no decision to hint at now.")
            return
        self.console.print(Text(f"Thinking ({self.hint_budget} simulations)…", style="dim"))
        result = hint(view, iterations=self.hint_budget, seed=self.hint_seed)
        self.console.print(hint_table(result, view.players))

    def finish(self) -> None:
        game = self.game
        if self.hot_seat:
            for event in self.public_events(self.results_from):
                self.console.print(Text("• ").append_text(describe_event(event, game.players)))
        self.console.print(Rule("Game over"))
        self.console.print(table_renderable(game.public_view(), title="Final table"))
        self.console.print(breakdown_table(game.players, game.score_breakdown(), game.winner_seats))
        self.console.print(winners_text(game.players, game.winner_seats))


class _Back(Exception):  # noqa: N818 - a signal, not an error
    """``b`` at the second step of a two-step choice."""
