"""Helpers for the rules tests: stacked decks, records built from a few lines, quick checks.

A test states the top of the deck it needs (``deck_top``, top card first: the first N+1 cards
are dealt into row positions 1 … N+1, the next ones refill the row or are drawn by powers) and
the decisions taken, then replays them as a ``gonuts-record/1`` record through the public API.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from gonuts.cards import KIND_IDS, NUM_KINDS, canonical_deck, kind_index
from gonuts.events import Event, EventType
from gonuts.game import Game
from gonuts.record import Record

Act = tuple[int, str]
"""One recorded decision: (seat, action in RECORD.md notation)."""

DECK_SIZES = {2: 37, 3: 50, 4: 61, 5: 70, 6: 70}


def canonical_ids(players: int) -> list[str]:
    """The deck for ``players`` in table order, as kind ids."""
    return [KIND_IDS[k] for k in canonical_deck(players)]


def stacked_deck(players: int, top: Sequence[str]) -> list[str]:
    """A full legal deck for ``players`` whose first cards are ``top`` (top card first).

    The rest of the deck follows in canonical (table) order, minus the cards used in ``top``.
    ``ValueError`` if ``top`` asks for more cards of a kind than the deck holds.
    """
    rest = Counter(canonical_ids(players))
    for card in top:
        kind_index(card)  # KeyError for a misspelt kind
        if rest[card] == 0:
            raise ValueError(f"the {players}-player deck has no more {card!r} for {list(top)}")
        rest[card] -= 1
    tail: list[str] = []
    for card in canonical_ids(players):
        if rest[card] > 0:
            rest[card] -= 1
            tail.append(card)
    return [*top, *tail]


def names(players: int | Sequence[str]) -> list[str]:
    if isinstance(players, int):
        return [f"P{i}" for i in range(players)]
    return list(players)


def record(
    players: int | Sequence[str], deck_top: Sequence[str], actions: Sequence[Act] = ()
) -> dict[str, object]:
    """A ``gonuts-record/1`` record (as a dict) with a stacked deck."""
    seats = names(players)
    return {
        "format": "gonuts-record/1",
        "players": seats,
        "deck": stacked_deck(len(seats), deck_top),
        "actions": [{"player": p, "action": a} for p, a in actions],
    }


def play(
    players: int | Sequence[str], deck_top: Sequence[str], actions: Sequence[Act] = ()
) -> Game:
    """Replay the record built by :func:`record`; the game it reaches."""
    game = Record.from_dict(record(players, deck_top, actions)).replay()
    assert_conserved(game)
    return game


def picks(*positions: int) -> list[Act]:
    """One selection round: seat ``i`` picks ``positions[i]``."""
    return [(seat, f"pick {p}") for seat, p in enumerate(positions)]


def contest(players: int, position: int, times: int = 1) -> list[Act]:
    """``times`` rounds in which every player picks ``position``: that card is discarded and
    the position refilled from the deck top, so each round moves one card onto the pile."""
    return [(seat, f"pick {position}") for _ in range(times) for seat in range(players)]


def draft(hands: Sequence[Sequence[str]], last: str) -> tuple[list[str], list[Act]]:
    """Deal every seat the cards of its hand, one per round: seat ``i`` picks position ``i+1``.

    All hands have the same length (the number of rounds). Position N+1 holds ``last`` from
    the start and nobody picks it. Returns the deck top and the actions; the deck cards a
    test appends next refill positions 1 … N after the last of these rounds.
    Use cards without a power (or whose power has nothing to do) in the hands.
    """
    n = len(hands)
    rounds = len(hands[0])
    assert all(len(h) == rounds for h in hands)
    top: list[str] = []
    acts: list[Act] = []
    for r in range(rounds):
        top.extend(h[r] for h in hands)
        if r == 0:
            top.append(last)
        acts.extend(picks(*range(1, n + 1)))
    return top, acts


def legal(game: Game, seat: int) -> list[str]:
    """``seat``'s legal actions in notation, in the engine's (sorted) order."""
    return [str(a) for a in game.legal_actions(seat)]


def event_types(game: Game) -> list[EventType]:
    return [e.type for e in game.event_log]


def events_of(game: Game, type_: EventType) -> list[Event]:
    return [e for e in game.event_log if e.type is type_]


def flat(collections: Sequence[Mapping[str, int]]) -> list[int]:
    """Flat collections ``coll[player * K + kind]`` for :func:`gonuts.scoring.scores`."""
    out = [0] * (NUM_KINDS * len(collections))
    for p, coll in enumerate(collections):
        for kind, count in coll.items():
            out[p * NUM_KINDS + kind_index(kind)] += count
    return out


def deck_top(game: Game) -> str:
    """The card on top of the deck (test-only peek at the hidden state)."""
    return KIND_IDS[game.state.deck[-1]]


def assert_conserved(game: Game) -> None:
    """Every card of the deck is in exactly one place: row, deck, discard pile or a collection."""
    seen: Counter[str] = Counter(c for c in game.row if c is not None)
    seen.update(KIND_IDS[c] for c in game.state.deck)
    seen.update(game.discard_pile)
    for coll in game.collections:
        seen.update(coll)
    assert seen == Counter(canonical_ids(game.num_players))
