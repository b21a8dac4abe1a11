"""CPU time of one decision of a bot (default: the ``hard`` level), per table size.

Positions: seeded games played by ``greedy`` at every seat; from each game the decisions with
more than one legal action, spread evenly from the first one to mid-game. Each position gets a
fresh bot (seeded), timed with ``time.process_time`` around ``choose`` (every thread's CPU, so
a multi-threaded BLAS is counted whole). Run it on one core and interleave the builds:

    taskset -c 0 python scripts/hard-budget.py --players 2,3,4,5,6
    taskset -c 0 python scripts/hard-budget.py --players 3 --bot mcts:10000

``--json FILE`` also records each position's decision (the action's notation), so that two
implementations of one bot can be compared decision by decision (``--compare FILE``).
``--exact`` runs ``neural-mcts``'s leaves the exact way (:class:`gonuts.bots.neural_mcts.Expander`,
bit for bit 0.3.0's network arithmetic) instead of the sparse default:

    taskset -c 0 python scripts/hard-budget.py --players 2,4 --positions 48 --exact --json a.json
    taskset -c 0 python scripts/hard-budget.py --players 2,4 --positions 48 --compare a.json
    taskset -c 0 python scripts/hard-budget.py --players 2,4 --positions 12 --ab   # interleaved
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from gonuts.bots import Bot, make_bot
from gonuts.bots.base import HardBot
from gonuts.bots.greedy import GreedyBot
from gonuts.bots.neural_mcts import NeuralMCTSBot
from gonuts.build import build_name
from gonuts.game import Game
from gonuts.view import PlayerView


def positions(players: int, count: int, games: int = 3) -> list[PlayerView]:
    """``count`` decision views, spread over the first halves of ``games`` seeded games."""
    per_game = -(-count // games)
    views: list[PlayerView] = []
    for seed in range(games):
        game = Game.new(players, seed=500 + seed)
        bots = [GreedyBot(seed * 10 + p) for p in range(players)]
        seen: list[PlayerView] = []
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            if len(view.legal) > 1:
                seen.append(view)
            game.apply(seat, bots[seat].choose(view))
        half = seen[: len(seen) // 2]
        step = max(1, len(half) // per_game)
        views.extend(half[::step][:per_game])
    return views[:count]


def leaves(bot: Bot, players: int, exact: bool) -> Bot:
    """``bot`` with its network search's leaves the exact (0.3.0) way or the sparse way (the
    ``hard`` level's search at this table size, or a ``neural-mcts`` bot itself)."""
    inner = bot.bot_for(players) if isinstance(bot, HardBot) else bot
    if isinstance(inner, NeuralMCTSBot):
        inner.exact = exact
    return bot


def measure(bot_name: str, players: int, count: int, exact: bool = False) -> dict[str, Any]:
    """The bot's CPU seconds and decisions over ``count`` positions of ``players``."""
    seconds: list[float] = []
    decisions: list[str] = []
    for i, view in enumerate(positions(players, count, games=max(3, -(-count // 6)))):
        bot = leaves(make_bot(bot_name, seed=i), players, exact)
        start = time.process_time()
        action = bot.choose(view)
        seconds.append(time.process_time() - start)
        decisions.append(action.notation)
    ordered = sorted(seconds)
    return {
        "players": players,
        "bot": bot_name,
        "positions": len(seconds),
        "median_s": statistics.median(seconds),
        "p90_s": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
        "max_s": ordered[-1],
        "seconds": seconds,
        "decisions": decisions,
    }


def measure_ab(bot_name: str, players: int, count: int) -> dict[str, Any]:
    """Each position searched the exact way and the sparse way back to back (same seed), so
    that the machine's load touches both alike: both CPU times and whether they decide alike."""
    seconds: dict[str, list[float]] = {"exact": [], "sparse": []}
    same = 0
    views = positions(players, count, games=max(3, -(-count // 6)))
    for i, view in enumerate(views):
        chosen = []
        for way in ("exact", "sparse"):
            bot = leaves(make_bot(bot_name, seed=i), players, way == "exact")
            start = time.process_time()
            chosen.append(bot.choose(view).notation)
            seconds[way].append(time.process_time() - start)
        same += chosen[0] == chosen[1]
    exact, sparse = (statistics.median(seconds[w]) for w in ("exact", "sparse"))
    return {
        "players": players,
        "bot": bot_name,
        "positions": len(views),
        "exact_median_s": exact,
        "sparse_median_s": sparse,
        "sparse_max_s": max(seconds["sparse"]),
        "ratio": sparse / exact,
        "same_decisions": same,
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,3,4,5,6")
    parser.add_argument("--bot", default="hard")
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--json", type=Path, help="write every figure and decision here")
    parser.add_argument("--compare", type=Path, help="a --json file: are the decisions equal?")
    parser.add_argument(
        "--exact", action="store_true", help="neural-mcts's leaves the exact (0.3.0) way"
    )
    parser.add_argument(
        "--ab", action="store_true", help="each position the exact and the sparse way, alternately"
    )
    args = parser.parse_args()
    if args.ab:
        rows = [measure_ab(args.bot, int(n), args.positions) for n in args.players.split(",")]
        for row in rows:
            print(
                f"{build_name()} {args.bot} {row['players']}p: exact median"
                f" {row['exact_median_s']:.3f} s, sparse median {row['sparse_median_s']:.3f} s"
                f" (max {row['sparse_max_s']:.3f} s), sparse/exact {row['ratio']:.2f}, same"
                f" decision in {row['same_decisions']} of {row['positions']}",
                flush=True,
            )
        if args.json:
            args.json.write_text(json.dumps({"build": build_name(), "rows": rows}, indent=1))
        return
    rows = []
    for n in args.players.split(","):
        row = measure(args.bot, int(n), args.positions, exact=args.exact)
        rows.append(row)
        print(
            f"{build_name()} {args.bot} {row['players']}p: median {row['median_s']:.3f} s,"
            f" p90 {row['p90_s']:.3f} s, max {row['max_s']:.3f} s ({row['positions']} positions)",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps({"build": build_name(), "rows": rows}, indent=1) + "\n")
    if args.compare:
        recorded = json.loads(args.compare.read_text())["rows"]
        before = {r["players"]: r["decisions"] for r in recorded}
        for row in rows:
            old = before.get(row["players"])
            if old is None:
                print(f"{row['players']}p: not in {args.compare}")
                continue
            differ = [
                i for i, (a, b) in enumerate(zip(old, row["decisions"], strict=False)) if a != b
            ]
            count = min(len(old), len(row["decisions"]))
            print(
                f"{row['players']}p decisions as in {args.compare}: {count - len(differ)} of"
                f" {count}" + (f" (positions {differ} differ)" if differ else "")
            )


if __name__ == "__main__":
    main()
