"""Hypothesis strategies and helpers for property tests: games played to a random point.

Every choice a generated game makes (player count, deck order, who acts first in a
simultaneous phase, which legal action each seat takes, where play stops) is drawn from
Hypothesis, so failing examples shrink and replay. Random choices come from
``st.randoms(use_true_random=False)``, which Hypothesis controls.

The helpers here read :attr:`Game.state` freely: tests are omniscient, players are not.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from gonuts import Game, Phase
from gonuts.actions import Action, parse_action
from gonuts.cards import KIND_IDS, canonical_deck
from gonuts.state import GameState

DECK_SIZES: dict[int, int] = {2: 37, 3: 50, 4: 61, 5: 70, 6: 70}
"""RULES.md: deck sizes by player count."""

SIMULTANEOUS: frozenset[Phase] = frozenset({Phase.SELECT, Phase.CINNAMON_TWIST})
"""Phases in which several seats may decide at once."""

MAX_DECISIONS = 2_000
"""Far more decisions than any game takes (a 70-card game is about 100)."""

DECISION_POWERS: tuple[str, ...] = (
    "french_cruller",
    "double_chocolate",
    "red_velvet",
    "sprinkled",
    "bear_claw",
    "cinnamon_twist",
    "day_old",
    "milk",
    "raspberry_frosted",
    "strawberry_glazed",
)
"""Kinds whose power can ask for a decision."""


def player_counts(min_players: int = 2, max_players: int = 6) -> st.SearchStrategy[int]:
    return st.integers(min_value=min_players, max_value=max_players)


def seeds() -> st.SearchStrategy[int]:
    """Any integer seed: small, negative and far beyond 64 bits."""
    return st.one_of(
        st.integers(min_value=0, max_value=2**16),
        st.integers(min_value=-(2**80), max_value=2**80),
    )


def deck_ids(n: int) -> list[str]:
    """The deck for ``n`` players in table order, as kind ids."""
    return [KIND_IDS[k] for k in canonical_deck(n)]


@st.composite
def decks(draw: st.DrawFn, n: int, early: Sequence[str] = ()) -> tuple[str, ...]:
    """A shuffled deck for ``n`` players, top card first.

    ``early`` kinds (those in this deck) are moved to where the first refills draw from, so
    their powers come up in the first rounds, when it matters most that every seat owns cards.
    """
    rnd = draw(st.randoms(use_true_random=False))
    cards = deck_ids(n)
    rnd.shuffle(cards)
    positions = n + 1
    for kind in early:
        if kind not in cards:
            continue
        cards.remove(kind)
        cards.insert(rnd.randrange(positions, min(len(cards), 4 * positions)), kind)
    return tuple(cards)


@st.composite
def new_games(
    draw: st.DrawFn,
    min_players: int = 2,
    max_players: int = 6,
    early: Sequence[str] = (),
) -> Game:
    """A freshly dealt game, from a seed or (with ``early`` kinds) from a biased deck."""
    n = draw(player_counts(min_players, max_players))
    from_deck = bool(early) or draw(st.booleans())
    if from_deck:
        return Game.new(n, deck=draw(decks(n, early)))
    return Game.new(n, seed=draw(seeds()))


def choose(
    game: Game, seat: int, rnd: random.Random, prefer: Collection[str] = frozenset()
) -> Action:
    """A legal action for ``seat``: uniform, except that in the selection a seat claims a row
    position holding a ``prefer`` kind that no seat has chosen yet (and avoids those that
    another seat claimed), so that exactly one seat takes it and resolves its power."""
    legal = game.legal_actions(seat)
    assert legal, f"seat {seat} has nothing to decide"
    if prefer and game.phase is Phase.SELECT:
        claimed = {p + 1 for p in game.state.picks if p >= 0}
        targets = {i + 1 for i, card in enumerate(game.row) if card in prefer}
        free = sorted(targets - claimed)
        if free:
            return parse_action(f"pick {free[0]}")
        others = [a for a in legal if a.position not in targets]
        if others:
            return rnd.choice(others)
    return rnd.choice(legal)


def step(
    game: Game, rnd: random.Random, prefer: Collection[str] = frozenset()
) -> tuple[int, Action]:
    """Play one decision: a random seat among those to act takes a :func:`choose` action."""
    seat = rnd.choice(game.to_act)
    action = choose(game, seat, rnd, prefer)
    game.apply(seat, action)
    return seat, action


def walk(
    game: Game,
    rnd: random.Random,
    max_steps: int = MAX_DECISIONS,
    prefer: Collection[str] = frozenset(),
) -> Iterator[tuple[int, Action]]:
    """Play up to ``max_steps`` decisions, yielding each (seat, action) after it is applied."""
    for _ in range(max_steps):
        if game.is_over:
            return
        yield step(game, rnd, prefer)


def play_out(game: Game, rnd: random.Random, prefer: Collection[str] = frozenset()) -> int:
    """Play to the end; the number of decisions taken."""
    return sum(1 for _ in walk(game, rnd, MAX_DECISIONS, prefer))


@st.composite
def played_games(
    draw: st.DrawFn,
    *,
    min_players: int = 2,
    max_players: int = 6,
    max_steps: int = 150,
    early: Sequence[str] = (),
    prefer: Collection[str] = frozenset(),
) -> Game:
    """A game played from the deal by random legal decisions to a random point (possibly
    the end)."""
    game = draw(new_games(min_players, max_players, early))
    rnd = draw(st.randoms(use_true_random=False))
    steps = draw(st.integers(min_value=0, max_value=max_steps))
    for _ in walk(game, rnd, steps, prefer):
        pass
    return game


@st.composite
def games_where(
    draw: st.DrawFn,
    predicate: Callable[[Game], bool],
    *,
    min_players: int = 2,
    max_players: int = 6,
    early: Sequence[str] = (),
    prefer: Collection[str] = frozenset(),
    tries: int = 4,
) -> Game:
    """A game played by random legal decisions until ``predicate`` holds (at a random one of
    the states where it holds); a few fresh games are tried before the example is rejected."""
    for _ in range(tries):
        game = draw(new_games(min_players, max_players, early))
        rnd = draw(st.randoms(use_true_random=False))
        found: Game | None = game.copy() if predicate(game) else None
        if found is not None and rnd.random() < 0.5:
            return found
        for _ in walk(game, rnd, MAX_DECISIONS, prefer):
            if predicate(game):
                found = game.copy()
                if rnd.random() < 0.5:
                    return found
        if found is not None:
            return found
    assume(False)
    raise AssertionError("unreachable")


# -- snapshots and fingerprints -------------------------------------------------------------------


def snapshot(game: Game) -> dict[str, Any]:
    """Every field of the state, deep-copied into plain values, plus the log and history."""
    g: GameState = game.state
    return {
        "config": g.config,
        "n": g.n,
        "deck": list(g.deck),
        "row": list(g.row),
        "discard": list(g.discard),
        "coll": list(g.coll),
        "round": g.round,
        "picks": list(g.picks),
        "phase": g.phase,
        "pos": g.pos,
        "actor": g.actor,
        "step": g.step,
        "passes": list(g.passes),
        "known": dict(g.known),
        "winners": g.winners,
        "events": None if g.events is None else list(g.events),
        "history": [(p, a.id) for p, a in game.actions_taken()],
    }


def counted_cards(game: Game) -> int:
    """Cards in the deck, the row, the discard pile and every collection."""
    g = game.state
    return len(g.deck) + sum(1 for c in g.row if c >= 0) + len(g.discard) + sum(g.coll)


def public_fingerprint(game: Game) -> tuple[object, ...]:
    """What every seat sees: table, collections, who acts, winners, public events."""
    return (
        game.phase,
        game.round,
        game.row,
        game.deck_size,
        game.discard_pile,
        tuple(tuple(sorted(c.items())) for c in game.collections),
        game.to_act,
        game.winner_seats,
        game.selections,
        tuple(e for e in game.event_log if e.visible_to is None),
    )


def knowers_of_top(game: Game) -> set[int]:
    """Seats that know the card on top of the deck (put back with Double Chocolate)."""
    size = len(game.state.deck)
    return {p for p, (length, _) in game.state.known.items() if length == size}


def replay_with_deck(game: Game, deck: Sequence[str]) -> Game | None:
    """``game``'s decisions replayed on ``deck`` (top first); None if one is refused."""
    twin = Game.new(game.players, deck=deck)
    try:
        for seat, action in game.actions_taken():
            twin.apply(seat, action)
    except (ValueError, AssertionError):
        return None
    return twin


# -- states worth looking at ----------------------------------------------------------------------


def has_known_top(game: Game) -> bool:
    """Someone knows the card on top of the deck, outside a Double Chocolate choice."""
    return bool(knowers_of_top(game)) and game.phase is not Phase.DOUBLE_CHOCOLATE


def choosing_double_chocolate(game: Game) -> bool:
    return game.phase is Phase.DOUBLE_CHOCOLATE


def several_passing(game: Game) -> bool:
    """A Cinnamon Twist in which at least two seats still choose their pass."""
    return game.phase is Phase.CINNAMON_TWIST and len(game.to_act) >= 2


def several_selecting(game: Game) -> bool:
    """A selection in which at least two seats still choose their pick."""
    return game.phase is Phase.SELECT and len(game.to_act) >= 2


def interesting_games() -> st.SearchStrategy[Game]:
    """Games at random points, mixed with states that hold secrets: a known deck top, a
    Double Chocolate choice, a Cinnamon Twist with passes pending."""
    powers = frozenset(DECISION_POWERS)
    return st.one_of(
        played_games(max_steps=200, early=DECISION_POWERS[:3], prefer=powers),
        games_where(has_known_top, min_players=3, early=DECISION_POWERS[:3], prefer=powers),
        games_where(
            choosing_double_chocolate,
            min_players=3,
            early=("double_chocolate",),
            prefer={"double_chocolate"},
        ),
        games_where(
            several_passing, min_players=4, early=("cinnamon_twist",), prefer={"cinnamon_twist"}
        ),
    )
