"""The bot interface and the uniformly random bot."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from gonuts.actions import Action
from gonuts.view import PlayerView


@runtime_checkable
class Bot(Protocol):
    """Something that picks an action from a player's view (every kind of decision)."""

    name: str

    def choose(self, view: PlayerView) -> Action:
        """One of ``view.legal``."""
        ...


class RandomBot:
    """Uniform over the legal actions; reproducible with its seed."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Action:
        if not view.legal:
            raise ValueError("this seat has no decision to take")
        return self.rng.choice(view.legal)


BOT_NAMES = ("random",)


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by its CLI name."""
    if name == "random":
        return RandomBot(seed)
    raise ValueError(f"unknown bot {name!r} (choose from: {', '.join(BOT_NAMES)})")
