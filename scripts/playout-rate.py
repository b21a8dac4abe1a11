"""Random games per second of CPU, per table size: the least disturbed rate on a shared machine.

``gonuts.playout.random_game`` (deal, random play, score: what ``gonuts bench`` times) in 12
batches, the best batch's rate (CPU time, ``time.process_time``). Compare builds with
``GONUTS_PURE=1`` / unset, pinned to one core (``taskset -c 0``).
"""

from __future__ import annotations

import argparse
import random
import time

from gonuts.build import build_name
from gonuts.game import default_names
from gonuts.playout import random_game


def rate(players: int, batch: int) -> float:
    names = default_names(players)
    rng = random.Random(0)
    best = 0.0
    seed = 0
    for _ in range(12):
        start = time.process_time()
        for _ in range(batch):
            random_game(names, seed, rng)
            seed += 1
        best = max(best, batch / (time.process_time() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,3,4,6")
    parser.add_argument("--batch", type=int, default=1000)
    args = parser.parse_args()
    rates = {int(n): rate(int(n), args.batch) for n in args.players.split(",")}
    print(build_name(), " ".join(f"{n}p {r:,.0f} games/s" for n, r in rates.items()))


if __name__ == "__main__":
    main()
