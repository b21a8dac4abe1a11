"""Uniformly random play to the end of the game: the hot path of simulation and search.

Uses :func:`gonuts.rules.apply_unchecked`, the same rules as every other path, minus the
validation that a caller choosing only from ``legal_ids`` does not need.
"""

from __future__ import annotations

import random
from typing import Final

from gonuts import rules
from gonuts.cards import canonical_deck
from gonuts.powers import POWER_BY_PHASE
from gonuts.rng import seeded_shuffle
from gonuts.state import GameConfig, GameState, Phase

OVER: Final = Phase.OVER
SELECT: Final = Phase.SELECT
CINNAMON_TWIST: Final = Phase.CINNAMON_TWIST


def random_playout(g: GameState, rng: random.Random) -> int:
    """Play ``g`` to the end with uniformly random legal actions; returns decisions taken."""
    rand = rng.random
    decisions = 0
    n = g.n
    width = n + 1
    while True:
        phase = g.phase
        if phase is SELECT:
            picks = g.picks
            for p in range(n):  # those still choosing, ascending (as rules.to_act lists them)
                if picks[p] < 0:
                    decisions += 1
                    picks[p] = int(rand() * width)
            rules.reveal(g)
        elif phase is OVER:
            return decisions
        elif phase is CINNAMON_TWIST:  # simultaneous: everyone still choosing, ascending
            for player in rules.to_act(g):
                ids = rules.legal_ids(g, player)
                rules.apply_unchecked(g, player, ids[int(rand() * len(ids))])
                decisions += 1
        else:  # one player decides: rules.legal_ids and rules.apply_unchecked, inlined
            power = POWER_BY_PHASE[phase]
            player = g.actor
            choices = power.legal(g, player)
            if power.apply(g, player, choices[int(rand() * len(choices))]) or not power.settle(g):
                rules.power_done(g)
            decisions += 1


def random_game(
    players: tuple[str, ...], seed: int, rng: random.Random, variants: frozenset[str] = frozenset()
) -> tuple[GameState, int]:
    """A game dealt from ``seed`` (as :meth:`gonuts.game.Game.new` deals it, without the
    checks or the event log) played to the end at random: the final state and its decisions."""
    deck = tuple(seeded_shuffle(canonical_deck(len(players)), seed))
    g = rules.setup(GameConfig(players, deck, variants), events=False)
    return g, random_playout(g, rng)
