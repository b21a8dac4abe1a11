"""``greedy``: a hand-written heuristic opponent (one-step lookahead on an estimated value).

* **Selections** — every row card gets a value for every player: the change in that player's
  expected final standing (:func:`gonuts.bots.heuristics.estimate`: set tables and how far a
  set is likely to grow, majorities, kinds counts, conditional cards) plus the worth of its
  power (:func:`gonuts.bots.heuristics.power_bonus`). Each opponent is modelled as picking by a
  softmax over its own values; the bot picks the position with the best value times the chance
  that nobody else picks it (a contested card goes to nobody).
* **Power choices** — each legal action is tried on a state sampled from the view and the
  resulting standing is compared (Milk looks three discards ahead; French Cruller discards row
  cards that are worth more to an opponent than to the bot).
"""

from __future__ import annotations

import math
import random
from typing import Final

from gonuts import rules
from gonuts.actions import ACTIONS, DISCARD_BASE, DISCARD_POSITION_BASE, PASS_BASE, Action, Verb
from gonuts.bots.determinize import Determinizer
from gonuts.bots.heuristics import (
    Context,
    card_values,
    estimate,
    make_context,
    power_bonus,
    relative,
)
from gonuts.cards import MILK, NUM_KINDS, kind_index
from gonuts.errors import NotYourTurnError
from gonuts.state import GameState, Phase
from gonuts.view import PlayerView

K: Final = NUM_KINDS
TEMPERATURE: Final = 2.0
"""Softmax temperature of the opponent model (points)."""
UNIFORM: Final = 0.3
"""Share of uniformly random play in the opponent model."""
SELF_TEMPERATURE: Final = 0.3
"""Softmax temperature of the bot's own selection (points)."""
DENIAL: Final = 1.0
"""Weight of the value a pick denies to opponents."""


def _context(view: PlayerView, g: GameState) -> Context:
    unseen = [0] * K
    for kind, count in view.unseen.items():
        unseen[kind_index(kind)] = count
    return make_context(g.n, view.deck_size, g.row, unseen)


def position_values(g: GameState, ctx: Context, seat: int) -> list[float]:
    """Worth to ``seat`` of taking each row card (``-inf`` for an empty position)."""
    values = card_values(g.coll, ctx, seat)
    out: list[float] = []
    for kind in g.row:
        if kind < 0:
            out.append(-math.inf)
        else:
            out.append(
                values[kind]
                + power_bonus(kind, seat, coll=g.coll, values=values, discard=g.discard, ctx=ctx)
            )
    return out


def pick_probabilities(values: list[float], temperature: float = TEMPERATURE) -> list[float]:
    """The opponent model: a softmax over its position values, mixed with uniform play."""
    top = max(values)
    weights = [math.exp((v - top) / temperature) if v > -math.inf else 0.0 for v in values]
    total = sum(weights)
    live = sum(1 for v in values if v > -math.inf)
    return [(1.0 - UNIFORM) * w / total + (UNIFORM / live if w > 0.0 else 0.0) for w in weights]


def selection_scores(g: GameState, ctx: Context, seat: int) -> list[float]:
    """Expected gain of each position for ``seat``: its value if nobody else picks it, plus the
    value it denies an opponent who would have taken it alone (a contested card goes to nobody).
    """
    mine = position_values(g, ctx, seat)
    others = [p for p in range(g.n) if p != seat]
    values = {p: position_values(g, ctx, p) for p in others}
    probs = {p: pick_probabilities(values[p]) for p in others}
    out: list[float] = []
    for i, v in enumerate(mine):
        if v == -math.inf:
            out.append(-math.inf)
            continue
        free = 1.0
        for p in others:
            free *= 1.0 - probs[p][i]
        denied = 0.0
        for p in others:
            alone = probs[p][i]
            for q in others:
                if q != p:
                    alone *= 1.0 - probs[q][i]
            denied += alone * max(0.0, values[p][i])
        out.append(v * free + DENIAL * denied / len(others))
    return out


class GreedyBot:
    """A fast heuristic bot; see the module docstring. Reproducible with its seed."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal
        if not legal:
            raise NotYourTurnError(f"seat {view.seat} has no decision to take now")
        if len(legal) == 1:
            return legal[0]
        seat = view.seat
        assert seat is not None
        g = Determinizer(view).sample(self.rng)
        ctx = _context(view, g)
        if view.phase is Phase.SELECT:
            scores = selection_scores(g, ctx, seat)
            return self._sample(legal, [scores[(a.position or 1) - 1] for a in legal])
        if view.phase is Phase.FRENCH_CRULLER:
            return self._cruller(g, ctx, seat, legal)
        if view.phase is Phase.MILK and view.step == 0:
            return self._milk(g, ctx, seat, legal)
        best: tuple[float, float, Action] | None = None
        for action in legal:
            value = self._after(g, ctx, seat, action)
            item = (value, self.rng.random(), action)
            if best is None or item[:2] > best[:2]:
                best = item
        assert best is not None
        return best[2]

    def _sample(self, legal: tuple[Action, ...], scores: list[float]) -> Action:
        """A softmax pick with a low temperature: near-best, but not predictable (identical
        greedy bots that always took the same best card would only collide with each other)."""
        top = max(scores)
        weights = [math.exp((s - top) / SELF_TEMPERATURE) for s in scores]
        x = self.rng.random() * sum(weights)
        for action, w in zip(legal, weights, strict=True):
            x -= w
            if x < 0.0:
                return action
        return legal[scores.index(top)]

    @staticmethod
    def _after(g: GameState, ctx: Context, seat: int, action: Action) -> float:
        """The seat's standing after ``action`` (tried on a copy of the sampled state)."""
        h = g.copy(events=False)
        if action.verb is Verb.PASS:
            kind = action.id - PASS_BASE
            h.coll[seat * K + kind] -= 1
            h.coll[((seat + 1) % h.n) * K + kind] += 1
        else:
            rules.apply_unchecked(h, seat, action.id)
        return relative(estimate(h.coll, ctx), seat)

    def _cruller(self, g: GameState, ctx: Context, seat: int, legal: tuple[Action, ...]) -> Action:
        mine = card_values(g.coll, ctx, seat)
        others = [card_values(g.coll, ctx, p) for p in range(g.n) if p != seat]
        best: tuple[float, Action] | None = None
        for action in legal:
            if action.verb is not Verb.DISCARD_POSITION:
                continue
            kind = g.row[action.id - DISCARD_POSITION_BASE]
            gain = max(o[kind] for o in others) - mine[kind] - 1.0
            if gain > 0 and (best is None or gain > best[0]):
                best = (gain, action)
        if best is not None:
            return best[1]
        return next(a for a in legal if a.verb is Verb.STOP)

    def _milk(self, g: GameState, ctx: Context, seat: int, legal: tuple[Action, ...]) -> Action:
        # Compare losing the Milk with the best three discards, chosen one at a time.
        keep_milk = g.copy(events=False)
        total = 0.0
        first: Action | None = None
        for _ in range(3):
            options = [k for k in range(K) if k != MILK and keep_milk.coll[seat * K + k]]
            if not options:
                break
            scored = []
            for k in options:
                keep_milk.coll[seat * K + k] -= 1
                scored.append((relative(estimate(keep_milk.coll, ctx), seat), k))
                keep_milk.coll[seat * K + k] += 1
            value, k = max(scored)
            keep_milk.coll[seat * K + k] -= 1
            total = value
            if first is None:
                first = ACTIONS[DISCARD_BASE + k]
        drop = g.copy(events=False)
        drop.coll[seat * K + MILK] -= 1
        drop_value = relative(estimate(drop.coll, ctx), seat)
        if first is not None and first in legal and total > drop_value:
            return first
        return ACTIONS[DISCARD_BASE + MILK]
