"""``gonuts play``: a game at one terminal — human seats (hot-seat) and bot opponents."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from gonuts.actions import Action, Verb
from gonuts.bots import Bot, make_bot
from gonuts.cards import KIND_BY_ID, MAX_PLAYERS, MIN_PLAYERS
from gonuts.errors import IllegalActionError, MalformedActionError
from gonuts.game import Game
from gonuts.record import Record
from gonuts.render import (
    breakdown_table,
    card_text,
    describe_action,
    table_renderable,
)
from gonuts.state import Phase
from gonuts.view import PlayerView

SECRET_PHASES = (Phase.SELECT, Phase.CINNAMON_TWIST)


class QuitGame(Exception):  # noqa: N818 - a signal, not an error
    """The human asked to leave (``q``) or closed the input."""


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "play",
        help="play a game in the terminal against bots or friends (hot-seat)",
        description="Play Go Nuts for Donuts in the terminal. The first --humans seats are "
        "people sharing this keyboard (the screen hides each pick from the next player); "
        "the other seats are bots. The game is saved as a record at the end.",
    )
    p.add_argument("--players", type=int, default=3, help="number of players, 2–6 (default 3)")
    p.add_argument("--humans", type=int, default=1, help="human seats, 0–N (default 1)")
    p.add_argument("--names", help="comma-separated names for the human seats")
    p.add_argument("--bots", help="comma-separated bot names for the other seats (default random)")
    p.add_argument("--seed", type=int, help="shuffle seed (default: random)")
    p.add_argument("--bot-seed", type=int, default=None, help="seed for the bots")
    p.add_argument("--save", metavar="PATH", help="where to save the record")
    p.add_argument("--no-save", action="store_true", help="do not save a record")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to pause after bot moves")
    p.set_defaults(handler=run)


def default_save_path() -> Path:
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return base / "gonuts" / "games" / f"gonuts-{stamp}.json"


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    n = args.players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        console.print(f"[red]A game has 2 to 6 players, not {n}.[/red]")
        return 2
    if not 0 <= args.humans <= n:
        console.print(f"[red]--humans must be between 0 and {n}.[/red]")
        return 2
    human_names = [s.strip() for s in args.names.split(",")] if args.names else []
    if len(human_names) > args.humans or any(not s for s in human_names):
        console.print("[red]--names: give at most one non-empty name per human seat.[/red]")
        return 2
    bot_kinds = [s.strip() for s in args.bots.split(",")] if args.bots else []
    n_bots = n - args.humans
    if bot_kinds and len(bot_kinds) not in (1, n_bots):
        console.print(f"[red]--bots: give one bot name, or one per bot seat ({n_bots}).[/red]")
        return 2
    bot_kinds = (bot_kinds * n_bots)[:n_bots] if bot_kinds else ["random"] * n_bots
    try:
        bots = [
            make_bot(kind, None if args.bot_seed is None else args.bot_seed + i)
            for i, kind in enumerate(bot_kinds)
        ]
    except ValueError as exc:
        console.print(f"[red]{exc}[/red]")
        return 2
    names: list[str] = []
    for seat in range(args.humans):
        if seat < len(human_names):
            names.append(human_names[seat])
        else:
            names.append(f"Player {seat + 1}")
    names += [f"Bot {args.humans + i + 1} ({bot.name})" for i, bot in enumerate(bots)]
    seats: list[Bot | None] = [None] * args.humans + list(bots)
    game = Game.new(names, seed=args.seed)
    session = TerminalGame(console, game, seats, delay=args.delay)
    finished = False
    try:
        session.play()
        finished = True
    except QuitGame:
        console.print("\n[yellow]Game abandoned.[/yellow]")
    if not args.no_save:
        path = Path(args.save) if args.save else default_save_path()
        record = Record.from_game(
            game,
            date=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            event="gonuts play",
            seats=["human" if s is None else s.name for s in seats],
        )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(record.to_json(), encoding="utf-8")
            console.print(f"Record saved: [bold]{path}[/bold]  (gonuts replay {path})")
        except OSError as exc:
            console.print(f"[red]Could not save the record to {path}: {exc.strerror}[/red]")
            return 1
    return 0 if finished else 1


class TerminalGame:
    """Drives one game: asks bots and people, shows what each person may see."""

    def __init__(
        self, console: Console, game: Game, seats: Sequence[Bot | None], *, delay: float = 0.0
    ) -> None:
        self.console = console
        self.game = game
        self.seats = seats
        self.delay = delay
        self.humans = [p for p, bot in enumerate(seats) if bot is None]
        self.hot_seat = len(self.humans) > 1
        self.shown_events = 0
        self.last_human: int | None = None
        self.observer = self.humans[0] if len(self.humans) == 1 else None

    # -- the loop ---------------------------------------------------------------------------------

    def play(self) -> None:
        game = self.game
        self.shown_events = len(game.event_log)
        self.console.print(Rule("Go Nuts for Donuts"))
        self.console.print(
            "Pick a donut each round; if two or more of you pick the same one, nobody gets it. "
            "Type ? at any prompt for help."
        )
        self.show_table(self.observer)
        while not game.is_over:
            waiting = game.to_act
            # Bots first: their choices are secret too, and they never wait for people.
            for seat in waiting:
                bot = self.seats[seat]
                if bot is not None:
                    game.apply(seat, bot.choose(game.view(seat)))
            for seat in waiting:
                if self.seats[seat] is None and seat in game.to_act:
                    self.human_turn(seat)
            self.show_new_events()
            if self.delay and not self.humans:
                time.sleep(self.delay)
        self.finish()

    def human_turn(self, seat: int) -> None:
        game = self.game
        view = game.view(seat)
        if self.hot_seat and self.last_human != seat:
            self.hand_over(seat)
        self.last_human = seat
        if self.hot_seat or view.phase is not Phase.SELECT:
            self.show_table(seat)
        while True:
            action = self.ask(view)
            try:
                game.apply(seat, action)
                break
            except IllegalActionError as exc:  # pragma: no cover - ask() only offers legal ones
                self.console.print(f"[red]{exc}[/red]")
        if self.hot_seat and game.phase in SECRET_PHASES and not game.is_over:
            self.console.clear()

    def hand_over(self, seat: int) -> None:
        """Hot-seat: clear the screen and wait until the right person has the keyboard."""
        self.console.clear()
        self.console.print(Rule(f"Pass the keyboard to {self.game.players[seat]}"))
        self.read(f"{self.game.players[seat]}, press Enter when the others cannot see the screen")

    # -- asking ----------------------------------------------------------------------------------

    def ask(self, view: PlayerView) -> Action:
        name = view.players[view.seat] if view.seat is not None else "?"
        legal = list(view.legal)
        if view.phase is Phase.SELECT:
            prompt = f"{name}, pick a donut: position 1–{len(view.row)}"
            while True:
                answer = self.read(prompt)
                action = self.match(answer, legal, by_position=True)
                if action is not None:
                    return action
                self.console.print(
                    f"[red]Type a position from 1 to {len(view.row)} (or ? for help).[/red]"
                )
        self.console.print(self.decision_header(view))
        for i, action in enumerate(legal, 1):
            self.console.print(f"  [bold]{i}[/bold]) {describe_action(action, view.players)}")
        while True:
            answer = self.read(f"{name}, choose 1–{len(legal)}")
            action = self.match(answer, legal, by_position=False)
            if action is not None:
                return action
            self.console.print(f"[red]Type a number from 1 to {len(legal)} (or ? for help).[/red]")

    def match(self, answer: str, legal: list[Action], *, by_position: bool) -> Action | None:
        answer = answer.strip()
        if answer in ("?", "h", "help"):
            self.console.print(
                "Type the number of your choice, or its notation (e.g. 'pick 2'). "
                "'t' shows the table again, 'q' quits (the record is still saved)."
            )
            return None
        if answer in ("t", "table"):
            seat = self.last_human if self.last_human is not None else self.observer
            self.show_table(seat)
            return None
        if answer in ("q", "quit", "exit"):
            raise QuitGame
        if answer.isdigit():
            number = int(answer)
            if by_position:
                return next((a for a in legal if a.position == number), None)
            return legal[number - 1] if 1 <= number <= len(legal) else None
        try:
            action = Action.parse(answer)
        except MalformedActionError:
            return None
        return action if action in legal else None

    def read(self, prompt: str) -> str:
        try:
            return self.console.input(f"[bold cyan]{prompt}[/bold cyan] › ")
        except EOFError:
            raise QuitGame from None

    def decision_header(self, view: PlayerView) -> Text:
        power = view.power
        text = Text()
        if power is not None:
            text.append("Your ")
            text.append_text(card_text(power))
            text.append(": ")
            text.append(KIND_BY_ID[power].power or "", style="italic")
        if view.phase is Phase.DOUBLE_CHOCOLATE and view.drawn:
            text.append("\nYou drew: ")
            for i, kind in enumerate(view.drawn):
                if i:
                    text.append(" and ")
                text.append_text(card_text(kind, star=False))
            text.append(". The other goes back on top of the deck.")
        if view.phase is Phase.CINNAMON_TWIST:
            actor = view.players[view.actor] if view.actor is not None else "someone"
            text = Text(f"{actor}'s Cinnamon Twist: choose a card to pass to ")
            if view.seat is not None:
                text.append(view.players[(view.seat + 1) % len(view.players)], style="bold")
            text.append(" (in secret).")
        if view.legal and view.legal[0].verb is Verb.DISCARD and view.phase is Phase.MILK:
            text.append("\n(discard milk to lose the Milk, or start discarding three other cards)")
        return text

    # -- showing ---------------------------------------------------------------------------------

    def show_table(self, seat: int | None) -> None:
        view = self.game.view(seat) if seat is not None else self.game.public_view()
        self.console.print(table_renderable(view))

    def show_new_events(self) -> None:
        events = self.game.event_log
        for event in events[self.shown_events :]:
            if event.visible_to is not None and not (
                event.visible_to == self.observer and not self.hot_seat
            ):
                continue
            style = "bold" if event.type.value in ("round_started", "game_over") else ""
            self.console.print(Text("• " + event.describe(self.game.players), style=style))
        self.shown_events = len(events)
        if not self.game.is_over and self.game.phase is Phase.SELECT and not self.hot_seat:
            self.show_table(self.observer)

    def finish(self) -> None:
        game = self.game
        self.console.print(Rule("Game over"))
        self.console.print(table_renderable(game.public_view(), title="Final table"))
        self.console.print(breakdown_table(game.players, game.score_breakdown(), game.winner_seats))
        winners = [game.players[p] for p in game.winner_seats]
        shared = " share the victory" if len(winners) > 1 else " wins"
        self.console.print(Text(" and ".join(winners) + shared + "!", style="bold yellow"))
