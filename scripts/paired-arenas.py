"""Two arenas with the same ``--seed`` and lineup shape, one seat's bot changed: the change in
its win share, game by game, with a bootstrap interval.

Game *k* of two such arenas has the same deal and the same seats (``gonuts arena`` seeds each
game from the tournament seed), so the difference of the bot's result in each pair of games
removes the deal's luck that two separate intervals both carry:

    python scripts/paired-arenas.py A.json B.json --bot 0
    python scripts/paired-arenas.py docs/bots/arena-exact4000-mcts4000-2p.json \\
        docs/bots/arena-nmcts4000b8-mcts4000-2p.json

``--bot I`` is the lineup index of the bot compared (default 0, the first name of ``--bots``);
the other seats must be the same bots in both files. Prints both win shares, the paired
difference (B − A) with a 95 % percentile-bootstrap interval, and how many pairs ended alike.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any


def shares(arena: dict[str, Any], index: int) -> dict[int, float]:
    """Game seed → the win share of the bot at lineup ``index`` (shared victories split)."""
    name = arena["lineup"][index]
    out: dict[int, float] = {}
    for game in arena["results"]:
        seats = [p for p, bot in enumerate(game["bots"]) if bot == name]
        if len(seats) != 1:
            raise SystemExit(f"game {game['game']}: {name!r} holds {len(seats)} seats, not one")
        winners = game["winners"]
        out[game["seed"]] = (1 / len(winners)) if seats[0] in winners else 0.0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--bot", type=int, default=0, help="lineup index of the bot compared")
    parser.add_argument("--samples", type=int, default=10_000)
    args = parser.parse_args(argv)
    a, b = (json.loads(path.read_text()) for path in (args.a, args.b))
    if a["seed"] != b["seed"] or a["players"] != b["players"]:
        raise SystemExit("the two arenas differ in --seed or --players: their games do not pair")
    others = [bot for i, bot in enumerate(a["lineup"]) if i != args.bot]
    if others != [bot for i, bot in enumerate(b["lineup"]) if i != args.bot]:
        raise SystemExit("the other seats differ: only the compared bot may change")
    first, second = shares(a, args.bot), shares(b, args.bot)
    seeds = sorted(first.keys() & second.keys())
    if not seeds:
        raise SystemExit("no game of one arena has the seed of a game of the other")
    diffs = [second[s] - first[s] for s in seeds]
    n = len(diffs)
    rng = random.Random(0)
    means = sorted(sum(rng.choice(diffs) for _ in range(n)) / n for _ in range(args.samples))
    low, high = means[int(0.025 * args.samples)], means[int(0.975 * args.samples) - 1]
    print(
        f"{n} paired games ({a['players']} players, seed {a['seed']}): "
        f"{a['lineup'][args.bot]} {sum(first[s] for s in seeds) / n:.1%}, "
        f"{b['lineup'][args.bot]} {sum(second[s] for s in seeds) / n:.1%}; "
        f"difference {sum(diffs) / n * 100:+.1f} points (95 % bootstrap {low * 100:+.1f}…"
        f"{high * 100:+.1f}); {sum(d == 0 for d in diffs)} pairs ended alike"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
