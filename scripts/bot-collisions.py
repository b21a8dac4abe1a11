"""How often search bots at one table pick the same card, and who wins there.

A card two or more players select is discarded (docs/rules.md), so bots that search alike and
all pick the card their search rates best lose it together, round after round, while a player
who picks anything else takes cards unopposed. ``gonuts arena`` shows who wins; this also counts
the pick rounds in which two or more of the named search bots (``--searchers``, default: the
lineup's ``mcts``, ``neural-mcts`` and ``hard`` bots) chose the same position:

    python scripts/bot-collisions.py --players 4 --bots medium,hard,hard,hard --games 4
    python scripts/bot-collisions.py --players 4 --bots medium,mcts:4000,mcts:4000,mcts:4000

Seats rotate with the game number as in the arena; game ``g`` is dealt from seed ``900 + g``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections import Counter
from dataclasses import dataclass

from gonuts.bots import make_bot
from gonuts.build import build_name
from gonuts.game import Game

SEARCHERS = ("mcts", "neural-mcts", "hard")


@dataclass
class Played:
    """One game: the bots by seat, scores, winners by name, pick rounds, those with a collision."""

    game: int
    bots: list[str]
    scores: list[int]
    winners: list[str]
    pick_rounds: int
    collisions: int


def play(players: int, lineup: list[str], game: int, searchers: tuple[str, ...]) -> Played:
    """Game ``game`` of the lineup, seats rotated."""
    state = Game.new(players, seed=900 + game)
    names = [lineup[(p + game) % len(lineup)] for p in range(players)]
    bots = [make_bot(names[p], seed=game * 10 + p) for p in range(players)]
    rounds = collided = 0
    while not state.is_over:
        acting = state.to_act
        chosen = {p: bots[p].choose(state.view(p)) for p in acting}
        if len(acting) > 1:
            rounds += 1
            picks = [chosen[p].notation for p in acting if names[p].startswith(searchers)]
            collided += len(picks) != len(set(picks))
        for p in acting:
            state.apply(p, chosen[p])
    winners = state.state.winners
    return Played(game, names, state.scores(), [names[p] for p in winners], rounds, collided)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--bots", required=True, help="one name per seat, comma-separated")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--first", type=int, default=0, help="first game number")
    parser.add_argument("--searchers", default=",".join(SEARCHERS), help="name prefixes")
    parser.add_argument("--json", help="write every game's figures here")
    args = parser.parse_args()
    lineup = args.bots.split(",")
    searchers = tuple(args.searchers.split(","))
    games = []
    wins: dict[str, float] = {}
    started = time.monotonic()
    for g in range(args.first, args.first + args.games):
        result = play(args.players, lineup, g, searchers)
        games.append(result)
        for name in result.winners:
            wins[name] = wins.get(name, 0.0) + 1 / len(result.winners)
        print(
            f"game {g}: winners {result.winners}, {result.collisions} of {result.pick_rounds}"
            f" pick rounds with a collision ({time.monotonic() - started:.0f} s)",
            flush=True,
        )
    rounds = sum(r.pick_rounds for r in games)
    collided = sum(r.collisions for r in games)
    seats = Counter(name for r in games for name in r.bots)
    print(f"{build_name()}; {args.players} players, {args.bots}, {len(games)} games")
    print(f"pick rounds with two or more searchers on one card: {collided} of {rounds}"
          f" ({collided / max(1, rounds):.0%})")  # fmt: skip
    for name, seated in seats.items():
        won = wins.get(name, 0.0)
        print(f"  {name}: {won:.1f} wins in {seated} seats ({won / seated:.0%};"
              f" par {1 / args.players:.0%})")  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            rows = [dataclasses.asdict(r) for r in games]
            json.dump({"players": args.players, "lineup": lineup, "games": rows}, f, indent=1)


if __name__ == "__main__":
    main()
