"""The bot interface, the uniformly random bot and the registry of bots by name.

A bot is anything with a ``name`` and ``choose(view) -> Action``. It receives only a
:class:`~gonuts.view.PlayerView` — a frozen copy of what its seat may know, with no reference
to the game state — so it structurally cannot read the deck order or another player's pending
pick. Every kind of decision (selections and every power's choices) goes through ``choose``.
"""

from __future__ import annotations

import random
from typing import Final, Protocol, runtime_checkable

from gonuts.actions import Action
from gonuts.bots.budget import parse_budget
from gonuts.bots.greedy import GreedyBot
from gonuts.bots.mcts import MCTSBot
from gonuts.errors import NotYourTurnError
from gonuts.view import PlayerView


@runtime_checkable
class Bot(Protocol):
    """Something that picks an action from a player's view (every kind of decision)."""

    name: str

    def choose(self, view: PlayerView) -> Action:
        """One of ``view.legal``; :class:`~gonuts.errors.NotYourTurnError` if it is empty."""
        ...


class RandomBot:
    """Uniform over the legal actions; reproducible with its seed."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Action:
        if not view.legal:
            raise NotYourTurnError(f"seat {view.seat} has no decision to take now")
        return self.rng.choice(view.legal)


class NoisyBot:
    """Another bot that plays a uniformly random legal action with probability ``epsilon``."""

    def __init__(self, inner: Bot, epsilon: float, name: str, seed: int | None = None) -> None:
        self.inner = inner
        self.epsilon = epsilon
        self.name = name
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Action:
        if not view.legal:
            raise NotYourTurnError(f"seat {view.seat} has no decision to take now")
        if self.rng.random() < self.epsilon:
            return self.rng.choice(view.legal)
        return self.inner.choose(view)


class HardBot:
    """The ``hard`` level: by table size (:data:`HARD_BUDGETS`), ``neural-mcts`` where it was
    measured stronger than ``mcts`` (two and four players: heads-up it won 68 % of 96 games
    against ``mcts:4000``, at four players 76 % of 96 against three of them, par 25 %),
    ``mcts`` at the others; iteration budgets, so that its strength does not depend on
    the machine's load (docs/bots.md, "hard")."""

    name = "hard"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.searches: dict[tuple[str, int], Bot] = {}  # built at the first decision of each
        self.neural: Bot | None = None  # the network's search, once it has played

    def choose(self, view: PlayerView) -> Action:
        return self.bot_for(view.num_players).choose(view)

    def bot_for(self, players: int) -> Bot:
        """The search this level plays at a table of ``players`` (one per budget, kept)."""
        kind, iterations = HARD_BUDGETS[players]
        bot = self.searches.get((kind, iterations))
        if bot is None:
            if kind == "neural-mcts":
                from gonuts.bots.neural_mcts import NeuralMCTSBot  # noqa: PLC0415 - NumPy on demand

                bot = self.neural = NeuralMCTSBot(self.seed, iterations=iterations, name="hard")
            else:
                bot = MCTSBot(self.seed, iterations=iterations, name="hard")
            self.searches[kind, iterations] = bot
        return bot


BOT_NAMES: Final = (
    "random",
    "greedy",
    "mcts",
    "neural",
    "neural-mcts",
    "neural-mcts-exact",
    "easy",
    "medium",
    "hard",
)
"""Names :func:`make_bot` knows. ``mcts:N`` (N iterations) and ``mcts:Xs`` (X seconds per
decision) set the search budget, and likewise ``neural-mcts:N`` / ``neural-mcts:Xs``.
``neural-mcts-exact`` is ``neural-mcts`` with 0.3.0's leaf arithmetic (for arenas against it)."""

HARD_BUDGETS: Final[dict[int, tuple[str, int]]] = {
    2: ("neural-mcts", 4000),
    3: ("mcts", 12000),
    4: ("neural-mcts", 4000),
    5: ("mcts", 4000),
    6: ("mcts", 4000),
}
"""The ``hard`` level's search and iteration budget per table size (docs/bots.md, "hard and
the compiled build"). ``neural-mcts:4000`` at two and four players, where matches of 96 games
showed it stronger than ``mcts``: 0.3.0's budget, now searched by a compiled tree over sparse
leaves that the network reads eight at a time (:data:`gonuts.bots.neural_mcts.BATCH`). Against
a common opponent the batched search won +3.1 (heads-up) and +9.4 (four players) points more of
the same 96 deals than before, intervals holding 0. CPU per decision, one core, 2026-12-08:
a median of 0.27–0.39 s heads-up and 0.34–0.39 s at four players (0.47–0.79 s on 12-07's host
at half speed). ``mcts:12000`` at three players (0.35–0.41 s; three times 0.3.0's budget, at
least as strong over 96 games), ``mcts:4000`` at five and six (0.20–0.24 s)."""

HARD_ITERATIONS: Final = HARD_BUDGETS[4][1]
"""The network's search budget at ``hard`` (two and four players), and ``mcts``'s at five and
six."""

HARD_NEURAL_TABLES: Final = frozenset(n for n, (kind, _) in HARD_BUDGETS.items() if kind != "mcts")
"""Table sizes where ``hard`` searches with the network (``neural-mcts``)."""


def _describe_hard() -> str:
    sizes: dict[str, list[str]] = {}
    for n, (kind, iterations) in HARD_BUDGETS.items():
        sizes.setdefault(f"{kind}:{iterations}", []).append(str(n))
    return "; ".join(f"{spec} at {', '.join(ns)} players" for spec, ns in sizes.items())


DIFFICULTIES: Final = {
    "easy": "greedy playing at random one time in three",
    "medium": "greedy",
    "hard": _describe_hard() + " (compiled: 0.2–0.5 s of CPU a decision)",
}


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by its CLI name: ``random``, ``greedy``, ``mcts`` (1 s per decision),
    ``mcts:N`` / ``mcts:Xs``, or a difficulty level ``easy``, ``medium``, ``hard``
    (:class:`HardBot`: the same bot in ``gonuts play`` and on the server)."""
    base, colon, budget = name.partition(":")
    if colon and base not in ("mcts", "neural-mcts", "neural-mcts-exact"):
        raise ValueError(f"only mcts and neural-mcts take a budget, not {name!r}")
    if base in ("neural", "neural-mcts", "neural-mcts-exact"):
        from gonuts.bots.neural_mcts import make_neural  # noqa: PLC0415 - NumPy only when asked

        return make_neural(base, budget if colon else None, seed, name)
    if base == "random":
        return RandomBot(seed)
    if base == "greedy":
        return GreedyBot(seed)
    if base == "mcts":
        if colon:
            iterations, seconds = parse_budget(budget)
            return MCTSBot(seed, iterations=iterations, seconds=seconds, name=name)
        return MCTSBot(seed, seconds=1.0)
    if base == "easy":
        return NoisyBot(GreedyBot(seed), 1 / 3, "easy", None if seed is None else seed + 7919)
    if base == "medium":
        bot = GreedyBot(seed)
        bot.name = "medium"
        return bot
    if base == "hard":
        return HardBot(seed)
    raise ValueError(
        f"unknown bot {name!r} (choose from: {', '.join(BOT_NAMES)}; mcts:N or mcts:Xs)"
    )


__all__ = [  # parse_budget lives in gonuts.bots.budget (no cycle with neural_mcts); still here
    "BOT_NAMES",
    "DIFFICULTIES",
    "HARD_BUDGETS",
    "HARD_ITERATIONS",
    "HARD_NEURAL_TABLES",
    "Bot",
    "HardBot",
    "NoisyBot",
    "RandomBot",
    "make_bot",
    "parse_budget",
]
