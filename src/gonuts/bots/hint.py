"""Move hints: a search bot's estimate of every legal action of one seat (``mcts`` by
default; ``neural-mcts`` with ``bot="neural-mcts"``).

>>> from gonuts import Game
>>> from gonuts.bots import hint
>>> h = hint(Game.new(3, seed=1), 0, iterations=50, seed=0)
>>> h.recommended in h.legal
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Literal

from gonuts.actions import ACTIONS, Action
from gonuts.bots.mcts import ActionEstimate, search
from gonuts.game import Game
from gonuts.view import PlayerView

DEFAULT_ITERATIONS = 2000
HintBot = Literal["mcts", "neural-mcts"]
HINT_BOTS: tuple[HintBot, ...] = ("mcts", "neural-mcts")


@dataclass(frozen=True, slots=True)
class Hint:
    """Every legal action with its estimated win probability and expected final score."""

    seat: int
    recommended: Action
    estimates: tuple[ActionEstimate, ...]
    """One per legal action, recommended first."""
    iterations: int
    seconds: float
    simultaneous: bool
    bot: HintBot = "mcts"
    """The search that made the hint."""
    contested: tuple[tuple[Action, float], ...] = ()
    """At a simultaneous selection, for each pick: how likely another player is to pick that
    position too (the search's model of them), when nobody would get it; () elsewhere."""

    @property
    def legal(self) -> tuple[Action, ...]:
        return tuple(e.action for e in self.estimates)

    @property
    def highest_win_probability(self) -> Action:
        """The action with the highest estimated win probability (first on ties, so the
        recommendation when it ties)."""
        return max(self.estimates, key=lambda e: e.win_probability).action

    @property
    def explanation(self) -> str | None:
        """Why the recommendation is not the action with the highest estimated win
        probability, or ``None`` when it is."""
        best = self.highest_win_probability
        if best is self.recommended:
            return None
        first = self.estimates[0]
        top = next(e for e in self.estimates if e.action is best)
        if self.simultaneous and self.bot == "mcts" and first.probability < 0.995:
            return (
                f"Everyone chooses at once here, so the search plays a mixed strategy: it "
                f"plays {first.action.notation} {first.probability:.0%} of the time, more "
                f"often than {best.notation} ({top.probability:.0%}), whose "
                f"{top.win_probability:.1%} estimate would drop if you always chose it "
                f"and the others expected that. Any action with a share is a good choice."
            )
        if self.bot == "neural-mcts":
            return (
                f"{best.notation} has the highest estimate ({top.win_probability:.1%}) but the "
                f"search, guided by the network's preferences, explored "
                f"{first.action.notation} most ({first.visits} visits against "
                f"{top.visits}) and trusts it more."
            )
        return (
            f"{best.notation} has the highest estimate ({top.win_probability:.1%}) but over "
            f"fewer visits ({top.visits} against {first.visits}); the search trusts the "
            f"more explored {first.action.notation}."
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready object (for the web app and ``gonuts hint --json``)."""
        contested = dict(self.contested)
        return {
            "player": self.seat,
            "recommended": self.recommended.notation,
            "iterations": self.iterations,
            "seconds": round(self.seconds, 3),
            "simultaneous": self.simultaneous,
            "bot": self.bot,
            "highest_win_probability": self.highest_win_probability.notation,
            "explanation": self.explanation,
            "actions": [
                {
                    "action": e.action.notation,
                    "contested": None
                    if e.action not in contested
                    else round(contested[e.action], 4),
                    "win_probability": round(e.win_probability, 4),
                    "expected_score": None
                    if e.expected_score is None
                    else round(e.expected_score, 3),
                    "visits": e.visits,
                    "play_probability": round(e.probability, 4),
                }
                for e in self.estimates
            ],
        }


def hint(
    source: Game | PlayerView,
    seat: int | None = None,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    seed: int | None = None,
    bot: HintBot = "mcts",
) -> Hint:
    """Estimate every legal action of ``seat`` (a :class:`Game` and a seat, or a seat's view).

    Only the seat's view is searched, so a hint never leaks hidden information. With neither
    budget given, searches :data:`DEFAULT_ITERATIONS` iterations. ``bot``: ``"mcts"`` (random
    playouts; win probabilities and expected scores) or ``"neural-mcts"`` (the shipped network's
    priors and values; no expected scores, see
    :func:`gonuts.bots.neural_mcts.search_estimates`). ``ValueError`` when the seat has no
    decision to take or ``bot`` is unknown.
    """
    if bot not in HINT_BOTS:
        raise ValueError(f"no hint bot {bot!r}: choose from {', '.join(HINT_BOTS)}")
    if isinstance(source, Game):
        if seat is None:
            raise ValueError("give the seat to hint for")
        if not 0 <= seat < source.num_players:
            raise ValueError(f"no seat {seat} in a {source.num_players}-player game")
        view = source.view(seat)
    else:
        view = source
        if seat is not None and seat != view.seat:
            raise ValueError(f"this view belongs to seat {view.seat}, not {seat}")
    if view.seat is None or not view.legal:
        who = "a spectator" if view.seat is None else f"player {view.seat}"
        state = "the game is over" if view.over else f"{who} has no decision to take now"
        raise ValueError(state)
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    if bot == "neural-mcts":
        from gonuts.bots.neural import shipped_network  # noqa: PLC0415 - NumPy weights on demand
        from gonuts.bots.neural_mcts import search_estimates  # noqa: PLC0415

        network = shipped_network(view.num_players)
        result = search_estimates(
            view, random.Random(seed), network, iterations=iterations, seconds=seconds
        )
    else:
        result = search(view, random.Random(seed), iterations=iterations, seconds=seconds)
    estimates = result.estimates
    if len(view.legal) == 1:
        only = estimates[0]
        estimates = (
            ActionEstimate(
                only.action, only.visits, only.win_probability, only.expected_score, 1.0
            ),
        )
    return Hint(
        seat=view.seat,
        recommended=estimates[0].action,
        estimates=estimates,
        iterations=result.iterations,
        seconds=result.seconds,
        simultaneous=result.simultaneous,
        bot=bot,
        contested=tuple(
            (ACTIONS[a], p) for a, p in result.contested if ACTIONS[a] in set(view.legal)
        ),
    )
