"""mcts iterations per second of CPU, per table size (issue 28: compiled / pure ≥ 4×).

For each table size: four seeded games advanced by 3 × N random decisions (mid-game positions),
then ``gonuts.bots.mcts.search`` with a fixed iteration budget from each; the best of three
repeats (the least disturbed by other jobs on the machine). Interleave the two builds:

    for i in 1 2; do for p in 1 0; do
      GONUTS_PURE=$p taskset -c 0 python scripts/mcts-rate.py --players 2,4,6
    done; done
"""

from __future__ import annotations

import argparse
import random
import time

from gonuts.bots.mcts import search
from gonuts.build import build_name
from gonuts.game import Game
from gonuts.view import PlayerView


def positions(players: int) -> list[PlayerView]:
    views = []
    for seed in range(4):
        game = Game.new(players, seed=seed)
        rng = random.Random(seed)
        for _ in range(3 * players):
            seat = game.to_act[0]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[int(rng.random() * len(legal))])
        views.append(game.view(game.to_act[0]))
    return views


def rate(players: int, iterations: int) -> float:
    views = positions(players)
    best = 0.0
    for repeat in range(3):
        start = time.process_time()
        runs = [search(v, random.Random(repeat), iterations=iterations) for v in views]
        done = sum(run.iterations for run in runs)
        best = max(best, done / (time.process_time() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,4,6")
    parser.add_argument("--iterations", type=int, default=300)
    args = parser.parse_args()
    rates = {int(n): rate(int(n), args.iterations) for n in args.players.split(",")}
    print(build_name(), " ".join(f"{n}p {r:,.0f} it/s" for n, r in rates.items()))


if __name__ == "__main__":
    main()
