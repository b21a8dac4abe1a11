"""Tables that start at a chosen moment: a stacked deck and a stored history, as the tutorial's.

The pure core plays a game forward from a seeded deck (seat 0 takes the wanted ★ card whenever
the row shows it, everyone else plays at random) until a condition holds, e.g. "seat 0 must
decide a Bear Claw with two opponents to choose from". That deck and those actions are stored
as a table in play, exactly as the server stores a live one; the server rebuilds it from the
database when the browser opens it, so the page opens right at that moment: one table per
power dialog instead of a whole game each.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from gonuts.cards import KIND_IDS
from gonuts.game import Game, deck_from_seed
from gonuts.server.kernel.db import hash_token
from gonuts.server.play.store import StoredAction, StoredSeat, StoredTable
from gonuts.server.store import TableStore
from gonuts.state import Phase

NAMES = ("Ana", "Ben", "Cy", "Dee", "Eli", "Fay")


@dataclass(frozen=True)
class Stacked:
    """A table stored at a chosen moment: its id, seat 0's token, the game at that moment."""

    table_id: str
    token: str
    game: Game


def play_to(
    players: int,
    until: Callable[[Game], bool],
    *,
    power: str | None = None,
    seeds: range = range(1, 4000),
    max_steps: int = 400,
    seat0_last: bool = False,
) -> tuple[tuple[str, ...], list[tuple[int, str]], Game]:
    """A deck and the actions that lead to a game where ``until`` holds (the first seed that
    does); seat 0 takes ``power`` from the row whenever it may. With ``seat0_last`` the other
    seats choose first in every round and ``until`` is also asked between their picks, so a
    moment can be "everyone else has chosen, and how" (their picks stored, the server's bots
    then have nothing left to choose)."""
    for seed in seeds:
        deck = tuple(KIND_IDS[k] for k in deck_from_seed(players, seed))
        game = Game.new(list(NAMES[:players]), deck=deck)
        rng = random.Random(seed)
        actions: list[tuple[int, str]] = []
        for _ in range(max_steps):
            if game.is_over:
                break
            if until(game):
                return deck, actions, game
            seats = game.to_act
            if seat0_last:
                seats = tuple(sorted(seats, key=lambda s: s == 0))
            for seat in seats:
                if seat0_last and until(game):
                    return deck, actions, game
                legal = game.legal_actions(seat)
                choice = rng.choice(legal)
                if seat == 0 and power is not None and game.phase is Phase.SELECT:
                    for action in legal:
                        position = action.position
                        if position is not None and game.row[position - 1] == power:
                            choice = action
                game.apply(seat, choice)
                actions.append((seat, str(choice)))
    raise AssertionError(f"no seed in {seeds} reaches the wanted moment")


def deciding(power: str, *, options: int = 2, opponents: int = 0) -> Callable[[Game], bool]:
    """Seat 0 decides ``power`` with at least ``options`` choices, among at least
    ``opponents`` different opponents (the two-step dialogs)."""

    def holds(game: Game) -> bool:
        if game.pending_power != power or 0 not in game.to_act:
            return False
        legal = game.legal_actions(0)
        seats = {a.seat for a in legal if a.seat is not None}
        return len(legal) >= options and len(seats) >= opponents

    return holds


def store_table(
    db_url: str, players: int, deck: tuple[str, ...], actions: list[tuple[int, str]], game: Game
) -> Stacked:
    """Store a table in play with this deck and history: seat 0 a person (the returned token),
    the others easy bots."""
    token = secrets.token_urlsafe(16)
    seats = (
        StoredSeat(0, "human", None, NAMES[0], hash_token(token)),
        *(StoredSeat(i, "bot", "easy", NAMES[i]) for i in range(1, players)),
    )
    table_id = secrets.token_urlsafe(8)
    store = TableStore(db_url)
    try:
        # Stored as "finished" (no page lists or loads such a table unasked) until its whole
        # history is in, then in play: a lobby's listing must not load it half-written and let
        # its bots move in the middle of the history.
        store.create(StoredTable(table_id, "finished", deck, seats))
        for seq, (seat, notation) in enumerate(actions):
            store.append_action(table_id, StoredAction(seq, seat, notation))
        store.start(table_id)
    finally:
        store.close()
    return Stacked(table_id, token, game)


def stacked_table(
    db_url: str,
    players: int,
    until: Callable[[Game], bool],
    *,
    power: str | None = None,
    seat0_last: bool = False,
) -> Stacked:
    """A stored table that opens where ``until`` first holds (see :func:`play_to`)."""
    deck, actions, game = play_to(players, until, power=power, seat0_last=seat0_last)
    return store_table(db_url, players, deck, actions, game)


def seat_script(stacked: Stacked) -> str:
    """An init script that gives the page seat 0's credentials (as joining would)."""
    return (
        f"localStorage.setItem('gonuts.seat.{stacked.table_id}', "
        f"JSON.stringify({{seat: 0, token: '{stacked.token}'}}));"
    )
