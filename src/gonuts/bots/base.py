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
    """The ``hard`` level: the strongest search that decides within about a second of one core,
    by table size — ``neural-mcts`` where it was measured stronger than ``mcts`` (the table sizes
    in :data:`HARD_NEURAL_TABLES`: heads-up it won 65 % of 96 games against ``mcts`` at 1 s a
    decision, at four players 54 % of 96 against three of them, par 25 %: docs/bots.md), ``mcts``
    at the others (the network's search is not yet measured there at this budget), each with
    :data:`HARD_ITERATIONS` iterations so that its strength does not depend on the machine's
    load."""

    name = "hard"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.search = MCTSBot(seed, iterations=HARD_ITERATIONS, name="hard")
        self.neural: Bot | None = None  # built at the first decision at such a table

    def choose(self, view: PlayerView) -> Action:
        if view.num_players not in HARD_NEURAL_TABLES:
            return self.search.choose(view)
        if self.neural is None:
            from gonuts.bots.neural_mcts import NeuralMCTSBot  # noqa: PLC0415 - NumPy on demand

            self.neural = NeuralMCTSBot(self.seed, iterations=HARD_ITERATIONS, name="hard")
        return self.neural.choose(view)


BOT_NAMES: Final = ("random", "greedy", "mcts", "neural", "neural-mcts", "easy", "medium", "hard")
"""Names :func:`make_bot` knows. ``mcts:N`` (N iterations) and ``mcts:Xs`` (X seconds per
decision) set the search budget, and likewise ``neural-mcts:N`` / ``neural-mcts:Xs``."""

DIFFICULTIES: Final = {
    "easy": "greedy playing at random one time in three",
    "medium": "greedy",
    "hard": "4000 iterations of neural-mcts at two and four players, of mcts at three, five and"
    " six (up to about 1 s on one idle core)",
}

HARD_ITERATIONS: Final = 4000
"""The ``hard`` level's search budget: an iteration budget, so that its strength does not depend
on the machine's load (a busy web server's bots used to get a fraction of their second). With
``mcts`` 4000 took a median of 1.03 s of CPU per decision over 4-player positions
(docs/server.md); with ``neural-mcts`` a median of 0.70 s at two players and 1.13 s at four
(docs/bots.md)."""

HARD_NEURAL_TABLES: Final = frozenset({2, 4})
"""Table sizes where ``hard`` searches with the network (``neural-mcts``): those where a match
of at least 96 games showed it stronger than ``mcts`` at about a second a decision."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by its CLI name: ``random``, ``greedy``, ``mcts`` (1 s per decision),
    ``mcts:N`` / ``mcts:Xs``, or a difficulty level ``easy``, ``medium``, ``hard``
    (:class:`HardBot`: the same bot in ``gonuts play`` and on the server)."""
    base, colon, budget = name.partition(":")
    if colon and base not in ("mcts", "neural-mcts"):
        raise ValueError(f"only mcts and neural-mcts take a budget, not {name!r}")
    if base in ("neural", "neural-mcts"):
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
    "HARD_ITERATIONS",
    "HARD_NEURAL_TABLES",
    "Bot",
    "HardBot",
    "NoisyBot",
    "RandomBot",
    "make_bot",
    "parse_budget",
]
