"""OpenSpiel's MCTS bot against gonuts' random bots, through the turn-based conversion.

    .venv/bin/python examples/openspiel_mcts.py --games 20 --players 3 --simulations 200

MCTS (``open_spiel.python.algorithms.mcts.MCTSBot``) plays seat 0 of
``turn_based_simultaneous_game(game=python_gonuts(players=N))``; the other seats are
:class:`gonuts.bots.RandomBot` choosing from their own views. Leaves are valued by random
playouts in the engine (:class:`gonuts.envs.openspiel.PlayoutEvaluator`).

Caveat: OpenSpiel's MCTS is a perfect-information search. It plans on the true state, so it
knows the deck order (the chance outcomes). Seat 0 chooses first at every simultaneous node
of the turn-based conversion, so it never sees the others' pending selections. Read the
result as a strong "cheating" reference point, not as a fair player.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]
from open_spiel.python.algorithms import mcts  # type: ignore[import-untyped,unused-ignore]

from gonuts import rules
from gonuts.bots import make_bot
from gonuts.envs.encoding import from_env_action, to_env_action
from gonuts.envs.openspiel import NOOP, GoNutsState, PlayoutEvaluator


def play(players: int, games: int, simulations: int, seed: int) -> float:
    """MCTS's mean win share at seat 0 over ``games`` games."""
    game = pyspiel.load_game(f"turn_based_simultaneous_game(game=python_gonuts(players={players}))")
    rng = np.random.RandomState(seed)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=simulations,
        evaluator=PlayoutEvaluator(players, seed=seed),
        solve=False,
        random_state=rng,
    )
    base_game = pyspiel.load_game("python_gonuts", {"players": players})
    total = 0.0
    for g in range(games):
        randoms = {p: make_bot("random", seed * 1000 + g * 10 + p) for p in range(1, players)}
        state = game.new_initial_state()
        shadow: GoNutsState = base_game.new_initial_state()  # the same game, for bot views
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                action = int(rng.choice(outcomes, p=probs))
                state.apply_action(action)
                shadow.apply_action(action)
                continue
            player = state.current_player()
            if player == 0:
                action = int(bot.step(state))
            else:
                view = shadow.view(player)
                assert view is not None
                action = (
                    to_env_action(randoms[player].choose(view).id, player, players)
                    if view.legal
                    else NOOP
                )
            state.apply_action(action)
            if action != NOOP:
                engine = shadow.engine
                rules.apply(engine, player, from_env_action(action, player, players))
        total += state.returns()[0]
    return total / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    share = play(args.players, args.games, args.simulations, args.seed)
    print(
        f"MCTS ({args.simulations} simulations) at seat 0 vs {args.players - 1} random bots: "
        f"win share {share:.3f} over {args.games} games "
        f"(random play: {1 / args.players:.3f}); {time.perf_counter() - start:.1f} s"
    )


if __name__ == "__main__":
    main()
