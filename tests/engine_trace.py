"""Play seeded random games and trace everything the engine says, for the differential test.

Run by ``tests/test_compiled.py`` twice, side by side: once as the compiled build and once
with ``GONUTS_PURE=1`` (the same sources, interpreted). Game ``i`` has a fixed player count,
variant set and seed, and its moves come from ``random.Random(i)``, so both builds play the
same games; each game's trace -- every state (all fields), every legal action list of every
seat, every event, the scores and winners, then a search-path playout of a copy -- is hashed.

    python tests/engine_trace.py START COUNT   one JSON line: the build and a digest per game
    python tests/engine_trace.py --game I      game I's whole trace, one line per step
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator

from gonuts import rules
from gonuts.build import build_name
from gonuts.game import Game
from gonuts.playout import random_playout
from gonuts.state import GameState
from gonuts.variants import VARIANTS

VARIANT_SETS: tuple[tuple[str, ...], ...] = ((), *((v,) for v in VARIANTS), VARIANTS)
CONFIGS = [(n, vs) for n in range(2, 7) for vs in VARIANT_SETS]
"""Every table size with no variant, each variant alone, and all of them."""


def state_line(g: GameState) -> str:
    """Every field of a state, in a fixed order."""
    history = None if g.history is None else (g.history.player, g.history.action_id)
    return repr(
        (
            g.n, g.deck, g.row, g.discard, g.coll, g.round, g.picks, g.phase.value, g.pos,
            g.actor, g.step, g.passes, sorted(g.known.items()), g.winners, history,
        )
    )  # fmt: skip


def trace(index: int) -> Iterator[str]:
    """Game ``index``'s trace, line by line."""
    players, variants = CONFIGS[index % len(CONFIGS)]
    rng = random.Random(index)
    game = Game.new(players, seed=index, variants=variants)
    search = game.state.copy(events=False)
    seen = 0
    while True:
        g = game.state
        yield "state " + state_line(g)
        yield "legal " + repr([list(rules.legal_ids(g, p)) for p in range(g.n)])
        log = game.event_log
        for event in log[seen:]:
            yield "event " + json.dumps(event.to_json(), sort_keys=True)
        seen = len(log)
        if game.is_over:
            break
        player = game.to_act[int(rng.random() * len(game.to_act))]
        legal = game.legal_actions(player)
        game.apply(player, legal[int(rng.random() * len(legal))])
    yield "scores " + repr((game.scores(), game.winner_seats, game.score_breakdown()))
    yield "actions " + repr([(p, a.id) for p, a in game.actions_taken()])
    decisions = random_playout(search, random.Random(-index))
    yield f"playout {decisions} " + state_line(search)


def digest(index: int) -> str:
    h = hashlib.sha256()
    for line in trace(index):
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def main(argv: list[str]) -> None:
    if argv[0] == "--game":
        for line in trace(int(argv[1])):
            print(line)
        return
    start, count = int(argv[0]), int(argv[1])
    digests = [digest(i) for i in range(start, start + count)]
    print(json.dumps({"build": build_name(), "digests": digests}))


if __name__ == "__main__":
    main(sys.argv[1:])
