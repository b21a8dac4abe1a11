"""What the network learned: how much it prefers each card kind when it selects, per table size.

``python -m gonuts.train.learned [--games 40] [--json FILE]`` plays games of the shipped
``neural`` bot against itself (rules engine) and, at every selection, compares the policy's
probability of picking each row card with the uniform share (1 / number of choices). A kind's
*preference* is the mean of that ratio over every time the kind was on offer: above 1 the
network reaches for it, below 1 it leaves it. NumPy only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Sequence

from gonuts.actions import ACTIONS, Verb
from gonuts.bots.neural import NeuralBot, shipped_network
from gonuts.cards import KIND_BY_ID
from gonuts.game import Game


def card_preferences(players: int, games: int, seed: int = 0) -> dict[str, float]:
    """Kind id → mean (policy probability / uniform share) at selections, over ``games``."""
    net = shipped_network(players)
    bots = [NeuralBot(s, network=net) for s in range(players)]
    ratios: dict[str, list[float]] = defaultdict(list)
    for g in range(games):
        game = Game.new(players, seed=seed * 100_003 + g, events=False)
        while not game.is_over:
            for seat in game.to_act:
                if seat not in game.to_act:
                    continue
                view = game.view(seat)
                if len(view.legal) > 1 and view.legal[0].verb is Verb.PICK:
                    priors, _ = net.evaluate(view)
                    uniform = 1.0 / len(priors)
                    for aid, p in priors.items():
                        pos = ACTIONS[aid].position
                        kind = view.row[pos - 1] if pos is not None else None
                        if kind is not None:
                            ratios[kind].append(p / uniform)
                game.apply(seat, bots[seat].choose(view))
    return {k: sum(v) / len(v) for k, v in sorted(ratios.items())}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gonuts.train.learned", description=__doc__)
    parser.add_argument("--games", type=int, default=40, help="self-play games per table size")
    parser.add_argument("--json", metavar="FILE", help="also write the table as JSON")
    args = parser.parse_args(argv)
    table = {n: card_preferences(n, args.games) for n in range(2, 7)}
    kinds = sorted({k for row in table.values() for k in row})
    print("| card | " + " | ".join(f"{n}p" for n in table) + " |")
    print("|---|" + "---|" * len(table))
    for k in sorted(kinds, key=lambda k: -sum(table[n].get(k, 0.0) for n in table)):
        cells = " | ".join(f"{table[n][k]:.2f}" if k in table[n] else "–" for n in table)
        print(f"| {KIND_BY_ID[k].name} | {cells} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(table, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
