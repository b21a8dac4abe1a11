"""Uniformly random play to the end of the game: the hot path of simulation and search.

Uses :func:`gonuts.rules.apply_unchecked`, the same rules as every other path, minus the
validation that a caller choosing only from ``legal_ids`` does not need.
"""

from __future__ import annotations

import random

from gonuts import rules
from gonuts.state import GameState, Phase


def random_playout(g: GameState, rng: random.Random) -> int:
    """Play ``g`` to the end with uniformly random legal actions; returns decisions taken."""
    rand = rng.random
    to_act = rules.to_act
    legal_ids = rules.legal_ids
    step = rules.apply_unchecked
    select_all = rules.select_all
    over = Phase.OVER
    select = Phase.SELECT
    decisions = 0
    while g.phase is not over:
        if g.phase is select:
            width = g.n + 1
            decisions += g.picks.count(-1)
            select_all(g, [int(rand() * width) for _ in range(g.n)])
            continue
        for player in to_act(g):
            ids = legal_ids(g, player)
            step(g, player, ids[int(rand() * len(ids))])
            decisions += 1
    return decisions
