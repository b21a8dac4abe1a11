"""CPU of the compiled ``neural-mcts`` search against the search it replaced, same position.

The reference is ``tests/bots/reference_neural_mcts.py`` (0.3.0's search); both run 1000
iterations from one seeded mid-game position at two and four players, best of three, back to
back so that the machine's load touches both alike:

    taskset -c 0 python scripts/neural-mcts-ab.py
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bots import reference_neural_mcts as reference
from gonuts.bots.neural import shipped_network
from gonuts.bots.neural_mcts import _search
from gonuts.game import Game


def main() -> None:
    for players in (2, 4):
        game = Game.new(players, seed=3)
        rng = random.Random(3)
        for _ in range(3 * players):
            seat = game.to_act[0]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[int(rng.random() * len(legal))])
        view = game.view(game.to_act[0])
        net = shipped_network(players)
        best = {"old": float("inf"), "new": float("inf")}
        for _ in range(3):
            for name, search in (("old", reference._search), ("new", _search)):
                start = time.process_time()
                search(view, random.Random(0), net, 1000, None)
                best[name] = min(best[name], time.process_time() - start)
        ratio = best["new"] / best["old"]
        print(f"{players}p: old {best['old']:.3f} s, new {best['new']:.3f} s ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
