"""The terminal game's loop and its screens (``gonuts play``; the command's options, setup and
saving are in :mod:`gonuts.cli.play`).

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

Over 500 lines because the loop and its screens share one small state (the game, the seats at
the keyboard, the console); splitting the screens off would pass that state through every call.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Final

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from gonuts.actions import Action, Verb
from gonuts.bots import Bot, hint
from gonuts.cards import KIND_BY_ID
from gonuts.errors import MalformedActionError
from gonuts.events import Event, EventType
from gonuts.game import Game
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
from gonuts.view import PlayerView

SECRET_PHASES: Final = (Phase.SELECT, Phase.CINNAMON_TWIST)
CLEAR: Final = "\x1b[H\x1b[2J\x1b[3J"
"""Cursor home, erase the screen, erase the scrollback (xterm and every modern terminal)."""
REVEALS: Final = (EventType.ROUND_STARTED, EventType.SELECTIONS_REVEALED, EventType.GAME_OVER)
"""Events after which everyone at a hot-seat table sees what happened before the hand-over."""
DEFAULT_HINT_BUDGET: Final = 1000

KEYS: Final = (
    (
        "a number or notation",
        "your choice: a row position, a menu number, or the notation, e.g. 'pick 2', "
        "'give glazed to 1' (seats are numbered from 0, as on screen)",
    ),
    ("?", "this help and the legend of colours and dots"),
    ("? NAME", "a card's reference, e.g. '? eclair' or '? bear claw'"),
    ("h", "a hint: the search bot's estimate of your choices (Ctrl-C cancels it)"),
    ("t", "the table again"),
    ("l", "the log of this round and the last"),
    ("q", "quit; the game so far is saved (Ctrl-C saves too), unless --no-save"),
)
"""The keys at every prompt: (key, what it does)."""
KEYS_HELP: Final = "Keys at every prompt:\n" + "\n".join(f"  {k:<22} {v}" for k, v in KEYS)
"""The keys as plain lines (``gonuts play --help``)."""


def keys_table() -> Table:
    """The keys as a two-column table that wraps its descriptions, not its columns."""
    table = Table(title="Keys at every prompt", title_justify="left", box=None, show_header=False)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("what it does", ratio=1)
    for key, text in KEYS:
        table.add_row(key, text)
    return table


class QuitGame(Exception):  # noqa: N818 - a signal, not an error
    """The human asked to leave (``q``: ``on_purpose``) or the input ended."""

    def __init__(self, *, on_purpose: bool) -> None:
        super().__init__("quit" if on_purpose else "end of input")
        self.on_purpose = on_purpose


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
        saving: bool = True,
    ) -> None:
        self.console = console
        self.game = game
        self.seats = seats
        self.delay = delay
        self.hint_budget = hint_budget
        self.hint_seed = hint_seed
        self.saving = saving
        """Whether the game is saved when it ends or the player leaves (not with --no-save)."""
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
        self.declined: list[tuple[int, Text]] = []
        """Every declined power of this session: (events logged before it, the line). The
        event log has no event for a choice that changes nothing, so the live stream, the
        ``l`` log and the hot-seat results screen merge these lines in by that index."""
        self.declined_shown = 0
        """How many of :attr:`declined` the live stream has printed."""

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
            "Type ? at any prompt for help, h for a hint, "
            + (
                "q to quit (the game is saved)."
                if self.saving
                else "q to quit (--no-save: the game is not saved)."
            )
        )
        if game.variants:
            self.console.print(Text("House rules: " + ", ".join(game.variants), style="bold"))
        if not self.humans:
            self.show_table()
        while not game.is_over:
            waiting = game.to_act
            bots_moved = False
            # Bots first: their choices are secret too, and they never wait for people.
            for seat in waiting:
                bot = self.seats[seat]
                if bot is not None and seat in game.to_act:
                    self.apply(seat, bot.choose(game.view(seat)))
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
        self.show_table()  # after the bots chose: they show as chosen (✓), not choosing (…)
        self.apply(seat, self.ask(view))
        if self.hot_seat:
            self.shown_events = len(game.event_log)
            if game.phase in SECRET_PHASES and not game.is_over:
                self.clear()  # the pick leaves the screen before the next person comes
            self.viewer = None

    def apply(self, seat: int, action: Action) -> None:
        """Carry out a decision; a declined power (``stop``) gets its own line on screen, as
        the event log has none for a choice that changes nothing."""
        game = self.game
        power = game.pending_power
        before = len(game.event_log)
        game.apply(seat, action)
        if action.verb is Verb.STOP and power is not None:
            name = KIND_BY_ID[power].name
            self.declined.append((before, Text(f"{game.players[seat]} stops the {name}.")))

    def print_declined(self, upto: int) -> None:
        """The declined powers that came before event ``upto``, not shown yet."""
        while self.declined_shown < len(self.declined):
            before, line = self.declined[self.declined_shown]
            if before > upto:
                break
            self.console.print(Text("• ").append_text(line))
            self.declined_shown += 1

    def event_lines(self, start: int, viewer: int | None) -> list[Text]:
        """The lines for events ``start`` on that ``viewer`` may see (None: public ones only),
        with the declined powers of that stretch in their places."""
        events = self.game.event_log
        declined = [(b, line) for b, line in self.declined if b >= start]
        lines: list[Text] = []
        for index in range(start, len(events)):
            while declined and declined[0][0] <= index:
                lines.append(declined.pop(0)[1])
            event = events[index]
            if event.visible_to is None or event.visible_to == viewer:
                lines.append(describe_event(event, self.game.players))
        lines.extend(line for _, line in declined)
        return lines

    def results_screen(self) -> None:
        """Hot-seat: everyone sees what happened since the last results screen, then Enter."""
        self.viewer = None
        self.clear()
        events = self.public_events(self.results_from)
        ended = any(e.type is EventType.ROUND_STARTED for e in events)
        played = self.game.round - 1 if ended and not self.game.is_over else self.game.round
        self.console.print(Rule(f"Round {played}: what happened"))
        for line in self.event_lines(self.results_from, None):
            self.console.print(Text("• ").append_text(line))
        self.declined_shown = len(self.declined)
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
        for index in range(self.shown_events, len(events)):
            self.print_declined(index)
            event = events[index]
            if event.visible_to is not None and event.visible_to != self.viewer:
                continue
            self.console.print(Text("• ").append_text(describe_event(event, self.game.players)))
        self.print_declined(len(events))
        self.shown_events = len(events)
        if not self.game.is_over and self.game.phase is Phase.SELECT and not self.humans:
            self.show_table()  # bots only: nobody's turn shows it

    def show_log(self) -> None:
        """The events of the previous round and this one, as the viewer may see them."""
        events = self.game.event_log  # every round start is public
        starts = [i for i, e in enumerate(events) if e.type is EventType.ROUND_STARTED]
        start = starts[-2] if len(starts) >= 2 else 0
        self.console.print(Rule("Log: the last round and this one"))
        for line in self.event_lines(start, self.viewer):
            self.console.print(Text("• ").append_text(line))

    def show_help(self, topic: str) -> None:
        if topic:
            kind = find_kind(topic)
            if kind is None:
                self.error(f"No card called {topic!r}. Try e.g. '? eclair' or '? bear claw'.")
            else:
                self.console.print(card_reference(kind))
                card = KIND_BY_ID[kind]
                if card.min_players > self.game.num_players:
                    self.console.print(
                        Text(
                            f"Not in this game's deck: {card.name} is used from "
                            f"{card.min_players} players, and this game has "
                            f"{self.game.num_players}.",
                            style="yellow",
                        )
                    )
            return
        self.console.print(keys_table())
        self.console.print(Text(LEGEND))

    def show_hint(self, view: PlayerView | None) -> None:
        if view is None or view.seat is None or not view.legal:
            self.error("There is no decision to hint at now.")
            return
        self.console.print(
            Text(f"Thinking ({self.hint_budget} search iterations; Ctrl-C cancels)…", style="dim")
        )
        try:
            result = hint(view, iterations=self.hint_budget, seed=self.hint_seed)
        except KeyboardInterrupt:  # the hint, not the game
            self.error("Hint cancelled.")
            return
        self.console.print(hint_table(result, view.players))

    def finish(self) -> None:
        game = self.game
        if self.hot_seat:
            for line in self.event_lines(self.results_from, None):
                self.console.print(Text("• ").append_text(line))
        self.console.print(Rule("Game over"))
        self.console.print(table_renderable(game.public_view(), title="Final table"))
        self.console.print(breakdown_table(game.players, game.score_breakdown(), game.winner_seats))
        self.console.print(winners_text(game.players, game.winner_seats))


class _Back(Exception):  # noqa: N818 - a signal, not an error
    """``b`` at the second step of a two-step choice."""
