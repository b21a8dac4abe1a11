"""Random states for the environment tests: every decision point of a few random games."""

from __future__ import annotations

import random
from collections.abc import Iterator

from gonuts import rules
from gonuts.game import Game
from gonuts.state import GameState


def random_states(players: int, games: int, seed: int = 0) -> Iterator[GameState]:
    """Every state where some seat must decide, along ``games`` uniformly random games."""
    rng = random.Random(seed)
    for g in range(games):
        state = Game.new(players, seed=seed * 1000 + g, events=False).state
        while True:
            waiting = rules.to_act(state)
            if not waiting:
                break
            yield state
            player = rng.choice(waiting)
            rules.apply(state, player, rng.choice(list(rules.legal_ids(state, player))))
