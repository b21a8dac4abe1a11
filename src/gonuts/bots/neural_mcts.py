"""``neural-mcts``: PUCT search guided by the self-play network, from the seat's view only.

Like ``mcts`` (:mod:`gonuts.bots.mcts`) each iteration samples a state consistent with the
view (:class:`~gonuts.bots.determinize.Determinizer`: a shuffled unseen deck, other players'
secret choices pending again) and descends an open-loop tree whose nodes are sequences of
decisions; every player who must act at a node keeps its own statistics (decoupled, so the
simultaneous selections stay simultaneous). Unlike ``mcts`` there are no random playouts:

* a node is **expanded** the first time it is reached: the network (:mod:`gonuts.bots.neural`)
  reads each player's own view of the sampled state and gives every player a value (its
  expected win share) and every acting player priors over its legal actions;
* descent picks, for each acting player, the action maximising ``Q + c·P·√N / (1 + n)``
  (PUCT), with ``Q`` the mean backed-up value (the node's own estimate before any visit);
* the new leaf's values (or the true result, win share plus a little margin, at the end of a
  game) are backed up to every player's statistics on the path.

The root decision is the most visited action. Strength is set by iterations or by time.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from gonuts import rules
from gonuts.actions import ACTIONS, Action
from gonuts.bots.budget import parse_budget, poll_signals
from gonuts.bots.determinize import Determinizer
from gonuts.bots.mcts import ActionEstimate, SearchResult
from gonuts.bots.neural import WEIGHTS_ENV, Network, NeuralBot, shipped_network
from gonuts.envs.encoding import OBS_SIZE, encode_observation, mask_from_ids, to_env_action
from gonuts.errors import NotYourTurnError
from gonuts.scoring import scores
from gonuts.state import GameState, Phase
from gonuts.view import PlayerView, make_views

C_PUCT: Final = 1.5
MARGIN_WEIGHT: Final = 0.01
"""As in training (:data:`gonuts.train.ppo.MARGIN_WEIGHT`): the value's score-margin share."""


class _Player:
    """One player's statistics at one node."""

    __slots__ = ("priors", "total", "value", "visits", "worth")

    def __init__(self, priors: dict[int, float], value: float) -> None:
        self.priors = priors
        self.value = value
        self.visits: dict[int, int] = {}
        self.worth: dict[int, float] = {}
        self.total = 0

    def select(self, legal: Sequence[int]) -> int:
        root_n = math.sqrt(self.total + 1)
        fallback = 1.0 / len(legal)
        best = -math.inf
        choice = legal[0]
        for a in legal:
            n = self.visits.get(a, 0)
            q = self.worth[a] / n if n else self.value
            u = q + C_PUCT * self.priors.get(a, fallback) * root_n / (1 + n)
            if u > best:
                best, choice = u, a
        return choice


class _Node:
    __slots__ = ("children", "players")

    def __init__(self) -> None:
        self.players: dict[int, _Player] = {}
        self.children: dict[tuple[int, ...], _Node] = {}


def _outcome(g: GameState) -> list[float]:
    n = g.n
    totals = scores(g.coll, n)
    share = 1.0 / len(g.winners)
    out = []
    for p in range(n):
        margin = totals[p] - max(totals[q] for q in range(n) if q != p)
        win = share if p in g.winners else 0.0
        out.append(win + MARGIN_WEIGHT * max(-30.0, min(30.0, margin)))
    return out


def _expand(net: Network, g: GameState, acting: list[int]) -> tuple[_Node, list[float]]:
    n = g.n
    obs = np.zeros((n, OBS_SIZE), np.float32)
    views = make_views(g, range(n))
    for p in range(n):
        encode_observation(views[p], out=obs[p])
    logits, values = net.forward(obs)
    node = _Node()
    vals = [float(v) for v in values]
    for p in acting:
        ids = rules.legal_ids(g, p)
        mask = mask_from_ids(ids, p, n).astype(bool)
        row = np.where(mask, logits[p], -np.inf)
        z = np.exp(row - row.max())
        z /= z.sum()
        priors = {a: float(z[to_env_action(a, p, n)]) for a in ids}
        node.players[p] = _Player(priors, vals[p])
    return node, vals


def search(
    view: PlayerView,
    rng: random.Random,
    net: Network,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
) -> dict[int, int]:
    """Root visit counts (engine action id → visits) of ``view.seat``'s legal actions."""
    mine = _search(view, rng, net, iterations, seconds).stats
    return dict(mine.visits) if mine is not None else {}


def search_estimates(
    view: PlayerView,
    rng: random.Random,
    net: Network,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
) -> SearchResult:
    """The search as a hint (:func:`gonuts.bots.hint.hint` with ``bot="neural-mcts"``): every
    legal action of ``view.seat``, most visited first, with its visits and mean value.

    The value is the network's (expected win share plus a hundredth of the score margin, the
    training reward) backed up through the tree, clipped to [0, 1] as the win probability; the
    network predicts no score, so ``expected_score`` is ``None``. The bot plays the most
    visited action, so its ``probability`` is 1 and every other action's 0.
    """
    run = _search(view, rng, net, iterations, seconds)
    stats = run.stats if run.stats is not None else _Player({}, 0.0)

    def visits(a: Action) -> int:
        return stats.visits.get(a.id, 0)

    def value(a: Action) -> float:  # an unvisited action: the node's own value
        n = visits(a)
        return min(1.0, max(0.0, stats.worth[a.id] / n if n else stats.value))

    ranked = sorted(view.legal, key=lambda a: (-visits(a), -value(a), a.notation))
    return SearchResult(
        seat=run.seat,
        iterations=run.iterations,
        seconds=run.seconds,
        simultaneous=run.simultaneous,
        estimates=tuple(
            ActionEstimate(a, visits(a), value(a), None, 1.0 if i == 0 else 0.0)
            for i, a in enumerate(ranked)
        ),
    )


@dataclass(frozen=True, slots=True)
class _Run:
    seat: int
    stats: _Player | None
    """The searching seat's statistics at the root (``None``: it had one legal action)."""
    iterations: int
    seconds: float
    simultaneous: bool


def _search(
    view: PlayerView,
    rng: random.Random,
    net: Network,
    iterations: int | None,
    seconds: float | None,
) -> _Run:
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator's view has no decision to search")
    if iterations is None and seconds is None:
        iterations = 400
    det = Determinizer(view)
    start = time.perf_counter()
    deadline = start + seconds if seconds is not None else math.inf
    limit = iterations if iterations is not None else 1 << 62
    root: _Node | None = None
    simultaneous = False
    done = 0
    while done < limit and (done == 0 or time.perf_counter() < deadline):
        if done & 15 == 0:
            poll_signals()  # Ctrl-C works in the compiled build too
        g = det.sample(rng)
        path: list[tuple[_Player, int, int]] = []
        node = root
        parent: tuple[_Node, tuple[int, ...]] | None = None
        while True:
            if g.phase is Phase.OVER:
                values = _outcome(g)
                break
            acting = rules.to_act(g)
            if done == 0 and node is None and root is None:  # the root, searched once
                simultaneous = len(acting) > 1
            if node is None:
                node, values = _expand(net, g, acting)
                if parent is None:
                    root = node
                else:
                    parent[0].children[parent[1]] = node
                break
            key: list[int] = []
            for p in acting:
                ids = rules.legal_ids(g, p)
                stats = node.players.get(p)
                if len(ids) == 1:
                    a = ids[0]
                else:
                    if stats is None:
                        stats = node.players[p] = _Player({}, 0.5)
                    a = stats.select(ids)
                    path.append((stats, p, a))
                key.append(a)
            for p, a in zip(acting, key, strict=True):
                rules.apply_unchecked(g, p, a)
            child_key = tuple(key)
            parent = (node, child_key)
            node = node.children.get(child_key)
        for stats, p, a in path:
            stats.visits[a] = stats.visits.get(a, 0) + 1
            stats.worth[a] = stats.worth.get(a, 0.0) + values[p]
            stats.total += 1
        done += 1
    assert root is not None
    return _Run(seat, root.players.get(seat), done, time.perf_counter() - start, simultaneous)


class NeuralMCTSBot:
    """The network-guided search; ``iterations`` and/or ``seconds`` per decision."""

    name = "neural-mcts"

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        name: str | None = None,
        network: Network | None = None,
    ) -> None:
        if iterations is None and seconds is None:
            seconds = 1.0
        self.iterations = iterations
        self.seconds = seconds
        self.network = network  # None: the shipped network for the view's table size
        self.rng = random.Random(seed)
        if name is not None:
            self.name = name

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal
        if not legal:
            raise NotYourTurnError(f"seat {view.seat} has no decision to take now")
        if len(legal) == 1:
            return legal[0]
        network = self.network or shipped_network(view.num_players)
        visits = search(view, self.rng, network, iterations=self.iterations, seconds=self.seconds)
        if not visits:
            return legal[0]
        return ACTIONS[max(visits, key=lambda a: visits[a])]


def make_neural(
    base: str, budget: str | None, seed: int | None, name: str
) -> NeuralBot | NeuralMCTSBot:
    """``neural``, ``neural-mcts`` (1 s per decision) or ``neural-mcts:N`` / ``:Xs`` (for
    :func:`gonuts.bots.base.make_bot`)."""
    if os.environ.get(WEIGHTS_ENV):
        shipped_network()  # a bad GONUTS_NEURAL_WEIGHTS is a ValueError now, not at the first move
    if base == "neural":
        return NeuralBot(seed)
    if budget is None:
        return NeuralMCTSBot(seed, seconds=1.0)
    iterations, seconds = parse_budget(budget)
    return NeuralMCTSBot(seed, iterations=iterations, seconds=seconds, name=name)
