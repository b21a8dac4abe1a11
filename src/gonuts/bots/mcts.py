"""``mcts``: determinized Monte Carlo tree search for simultaneous moves and a hidden deck.

Each iteration

1. **samples a state** consistent with the bot's view (:mod:`gonuts.bots.determinize`): a deck
   order drawn from the unseen cards (the card put back with Double Chocolate stays on top),
   and other players' secret choices made pending again;
2. **descends an open-loop tree** whose nodes are sequences of decisions (the same node serves
   every sampled deck). At a node, every player who must act has its *own* statistics
   (decoupled search, as in decoupled UCT for simultaneous-move games):

   * at a **simultaneous** decision (selections, Cinnamon Twist passes) each player picks
     independently from its own statistics, ignoring what the others pick, so the simulated
     opponents' picks are spread over the positions the way their statistics say (their
     empirical play is a mixed strategy) rather than all piling onto one card, which in this
     game means a collision and nobody gets it. The rule is decoupled UCB1 (``"ucb"``,
     default) or **regret matching** with uniform exploration (``"rm"``);
   * at a **one-player** decision (a power's choices) the player uses UCB1;

3. adds one node, **plays out** the rest of the game at random and
4. **backs up** each player's reward: its win share (a shared victory split), blended with a
   little of its score margin so that lost and won positions still rank moves.

At the root the bot plays the most visited action, or — with ``mixed=True`` — samples the mixed
strategy the search found at a simultaneous decision (visit frequencies of the near-best
actions, or the purified average regret-matching strategy). Measured against ``greedy`` the
most-visited choice is much stronger (see ``docs/bots.md``), so it is the default. Strength is
set by iterations or by time.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gonuts import rules
from gonuts.actions import ACTIONS, Action, Verb
from gonuts.bots.budget import poll_signals
from gonuts.bots.determinize import Determinizer
from gonuts.errors import NotYourTurnError
from gonuts.playout import random_playout
from gonuts.scoring import scores
from gonuts.state import GameState, Phase
from gonuts.view import PlayerView

OVER: Final = Phase.OVER
WIN_WEIGHT: Final = 0.8
MARGIN_SCALE: Final = 40.0
EXPLORATION: Final = 0.15
"""Uniform share mixed into the regret-matching strategy while searching."""
UCB_C: Final = 0.7
PURIFY: Final = 0.05
"""Root actions with a smaller average-strategy probability are never played."""


class Stats:
    """One player's statistics at one tree node."""

    __slots__ = ("regret", "score", "strategy", "visits", "wins", "worth")

    def __init__(self) -> None:
        self.visits: dict[int, int] = {}
        self.worth: dict[int, float] = {}
        """Sum of rewards per action."""
        self.wins: dict[int, float] = {}
        self.score: dict[int, float] = {}
        self.regret: dict[int, float] = {}
        self.strategy: dict[int, float] = {}
        """Sum of the regret-matching strategies played (the average strategy)."""

    def mean(self, a: int) -> float:
        n = self.visits.get(a, 0)
        return self.worth[a] / n if n else 0.5

    def select_ucb(self, legal: Sequence[int], rng: random.Random) -> int:
        visits = self.visits
        fresh = [a for a in legal if a not in visits]
        if fresh:
            return fresh[int(rng.random() * len(fresh))]
        log_total = math.log(sum(visits[a] for a in legal))
        best = -1.0
        choice = legal[0]
        for a in legal:
            n = visits[a]
            value = self.worth[a] / n + UCB_C * math.sqrt(log_total / n)
            if value > best:
                best, choice = value, a
        return choice

    def regret_strategy(self, legal: Sequence[int]) -> list[float]:
        regret = self.regret
        positive = [max(0.0, regret.get(a, 0.0)) for a in legal]
        total = sum(positive)
        if total <= 0.0:
            return [1.0 / len(legal)] * len(legal)
        return [p / total for p in positive]

    def select_rm(self, legal: Sequence[int], rng: random.Random) -> int:
        sigma = self.regret_strategy(legal)
        strategy = self.strategy
        explore = EXPLORATION / len(legal)
        x = rng.random()
        chosen = -1
        for a, p in zip(legal, sigma, strict=True):
            strategy[a] = strategy.get(a, 0.0) + p
            if chosen < 0:
                x -= (1.0 - EXPLORATION) * p + explore
                if x < 0.0:
                    chosen = a
        return chosen if chosen >= 0 else legal[-1]

    def update(self, a: int, reward: float, win: float, score: float) -> None:
        self.visits[a] = self.visits.get(a, 0) + 1
        self.worth[a] = self.worth.get(a, 0.0) + reward
        self.wins[a] = self.wins.get(a, 0.0) + win
        self.score[a] = self.score.get(a, 0.0) + score

    def update_regret(self, legal: Sequence[int], reward: float) -> None:
        """Regret of not having played each action, estimated by its mean reward so far."""
        regret = self.regret
        for a in legal:
            regret[a] = regret.get(a, 0.0) + (self.mean(a) if a in self.visits else reward) - reward


class Node:
    __slots__ = ("children", "stats")

    def __init__(self) -> None:
        self.stats: dict[int, Stats] = {}
        self.children: dict[tuple[int, ...], Node] = {}


@dataclass(frozen=True, slots=True)
class ActionEstimate:
    """The search's estimate for one legal action of the seat it searched for."""

    action: Action
    visits: int
    win_probability: float
    """Mean win share over the simulations that played this action (shared wins split)."""
    expected_score: float | None
    """Mean final score over those simulations (``None`` from ``neural-mcts``, whose network
    predicts no score)."""
    probability: float
    """How likely the bot is to play it (the mixed strategy at a simultaneous decision)."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    seat: int
    iterations: int
    seconds: float
    simultaneous: bool
    estimates: tuple[ActionEstimate, ...]
    """One per legal action, best first."""
    contested: tuple[tuple[int, float], ...] = ()
    """At a simultaneous selection: for each position (its pick's action id), how likely the
    searched opponents are to pick it too (1 − ∏ over them of 1 − their visit share), the
    chance that nobody gets it if this seat picks it as well. Empty elsewhere."""

    @property
    def best(self) -> ActionEstimate:
        return self.estimates[0]


def _rewards(g: GameState) -> tuple[list[float], list[float], list[int]]:
    n = g.n
    totals = scores(g.coll, n)
    winners = g.winners
    share = 1.0 / len(winners)
    wins = [share if p in winners else 0.0 for p in range(n)]
    rewards = []
    for p in range(n):
        best_other = max(totals[q] for q in range(n) if q != p)
        margin = 0.5 + (totals[p] - best_other) / MARGIN_SCALE
        margin = 0.0 if margin < 0.0 else 1.0 if margin > 1.0 else margin
        rewards.append(WIN_WEIGHT * wins[p] + (1.0 - WIN_WEIGHT) * margin)
    return rewards, wins, totals


def search(
    view: PlayerView,
    rng: random.Random,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    selection: str = "ucb",
    mixed: bool = False,
) -> SearchResult:
    """Search from ``view`` for ``view.seat``; stops after ``iterations`` or ``seconds``
    (whichever comes first; at least one iteration; 1000 iterations if neither is given).

    ``selection`` is the rule at simultaneous decisions: ``"ucb"`` (decoupled UCT: each player
    its own UCB1 statistics) or ``"rm"`` (regret matching). ``mixed``: at a simultaneous root,
    play from the mixed strategy the search found (visit frequencies, or the average
    regret-matching strategy) instead of the most visited action.
    """
    if selection not in ("ucb", "rm"):
        raise ValueError(f"unknown selection rule {selection!r} (ucb or rm)")
    regret_matching = selection == "rm"
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator's view has no decision to search")
    if not view.legal:
        raise NotYourTurnError(f"seat {seat} has no decision to take now")
    if iterations is None and seconds is None:
        iterations = 1000
    det = Determinizer(view)
    root = Node()
    start = time.perf_counter()
    deadline = start + seconds if seconds is not None else math.inf
    limit = iterations if iterations is not None else 1 << 62
    to_act = rules.to_act
    legal_ids = rules.legal_ids
    step = rules.apply_unchecked
    done = 0
    simultaneous_root = False
    while done < limit:
        if done & 15 == 0 and done:
            poll_signals()  # Ctrl-C works in the compiled build too
            if time.perf_counter() >= deadline:
                break
        g = det.sample(rng)
        node: Node | None = root
        path: list[tuple[Stats, int, int, Sequence[int] | None]] = []
        while g.phase is not OVER:
            acting = to_act(g)
            if node is None:  # below the tree: random play to the end
                random_playout(g, rng)
                break
            simultaneous = len(acting) > 1
            if node is root and seat in acting:
                simultaneous_root = simultaneous
            key: list[int] = []
            chosen: list[tuple[int, int]] = []
            for p in acting:
                ids = legal_ids(g, p)
                if len(ids) == 1:
                    a = ids[0]
                else:
                    stats = node.stats.get(p)
                    if stats is None:
                        stats = node.stats[p] = Stats()
                    if simultaneous and regret_matching:
                        a = stats.select_rm(ids, rng)
                        path.append((stats, p, a, ids))
                    else:
                        a = stats.select_ucb(ids, rng)
                        path.append((stats, p, a, None))
                chosen.append((p, a))
                key.append(a)
            for p, a in chosen:
                step(g, p, a)
            child_key = tuple(key)
            child = node.children.get(child_key)
            if child is None:
                node.children[child_key] = Node()
                node = None
            else:
                node = child
        rewards, wins, totals = _rewards(g)
        for stats, p, a, seen in path:
            r = rewards[p]
            stats.update(a, r, wins[p], totals[p])
            if seen is not None:
                stats.update_regret(seen, r)
        done += 1
    elapsed = time.perf_counter() - start
    result = _result(
        root.stats.get(seat),
        view=view,
        seat=seat,
        iterations=done,
        seconds=elapsed,
        simultaneous=simultaneous_root,
        mixed=mixed,
        regret_matching=regret_matching,
    )
    if not simultaneous_root:
        return result
    return dataclasses.replace(result, contested=_contested(root, seat))


def _contested(root: Node, seat: int) -> tuple[tuple[int, float], ...]:
    """:attr:`SearchResult.contested` from the opponents' statistics at the root."""
    free: dict[int, float] = {}
    for p, stats in root.stats.items():
        total = sum(stats.visits.values())
        if p == seat or not total:
            continue
        for a, visits in stats.visits.items():
            if ACTIONS[a].verb is Verb.PICK:
                free[a] = free.get(a, 1.0) * (1.0 - visits / total)
    return tuple(sorted((a, 1.0 - f) for a, f in free.items()))


def _result(
    stats: Stats | None,
    *,
    view: PlayerView,
    seat: int,
    iterations: int,
    seconds: float,
    simultaneous: bool,
    mixed: bool,
    regret_matching: bool,
) -> SearchResult:
    legal = view.legal
    probs: dict[int, float] = {}
    if stats is None:  # a single legal action: nothing was searched
        probs = {a.id: 1.0 / len(legal) for a in legal}
        stats = Stats()
    elif simultaneous and mixed and not regret_matching:
        count = sum(stats.visits.get(a.id, 0) for a in legal) or 1
        raw = {a.id: stats.visits.get(a.id, 0) / count for a in legal}
        top = max(raw.values())
        kept = {a: p for a, p in raw.items() if p >= 0.5 * top}
        norm = sum(kept.values()) or 1.0
        probs = {a: kept.get(a, 0.0) / norm for a in raw}
    elif simultaneous and mixed:
        total = sum(stats.strategy.get(a.id, 0.0) for a in legal) or 1.0
        raw = {a.id: stats.strategy.get(a.id, 0.0) / total for a in legal}
        kept = {a: p for a, p in raw.items() if p >= PURIFY} or raw
        norm = sum(kept.values()) or 1.0
        probs = {a: kept.get(a, 0.0) / norm for a in raw}
    else:
        visits = {a.id: stats.visits.get(a.id, 0) for a in legal}
        most = max(visits.values())
        best = [a for a, v in visits.items() if v == most]
        best.sort(key=lambda a: -stats.mean(a))
        probs = {a: (1.0 if a == best[0] else 0.0) for a in visits}
    estimates = []
    for a in legal:
        n = stats.visits.get(a.id, 0)
        estimates.append(
            ActionEstimate(
                action=ACTIONS[a.id],
                visits=n,
                win_probability=stats.wins.get(a.id, 0.0) / n if n else 0.0,
                expected_score=stats.score.get(a.id, 0.0) / n if n else 0.0,
                probability=probs.get(a.id, 0.0),
            )
        )
    estimates.sort(key=lambda e: (-e.probability, -e.win_probability, -e.visits, e.action.notation))
    return SearchResult(seat, iterations, seconds, simultaneous, tuple(estimates))


class MCTSBot:
    """The search bot; see the module docstring. ``iterations`` and/or ``seconds`` per decision
    set its strength; the seed makes it reproducible (with an iteration budget only)."""

    name = "mcts"

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        name: str | None = None,
        selection: str = "ucb",
        mixed: bool = False,
    ) -> None:
        if iterations is None and seconds is None:
            seconds = 1.0
        self.iterations = iterations
        self.seconds = seconds
        self.selection = selection
        self.mixed = mixed
        self.rng = random.Random(seed)
        if name is not None:
            self.name = name

    def analyse(self, view: PlayerView) -> SearchResult:
        return search(
            view,
            self.rng,
            iterations=self.iterations,
            seconds=self.seconds,
            selection=self.selection,
            mixed=self.mixed,
        )

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal
        if not legal:
            raise NotYourTurnError(f"seat {view.seat} has no decision to take now")
        if len(legal) == 1:
            return legal[0]
        result = self.analyse(view)
        x = self.rng.random()
        for estimate in result.estimates:
            x -= estimate.probability
            if x < 0.0:
                return estimate.action
        return result.best.action
