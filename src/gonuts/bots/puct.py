"""The tree and the loop of ``neural-mcts`` (:mod:`gonuts.bots.neural_mcts`), NumPy-free.

Compiled with mypyc (:data:`gonuts.build.COMPILED_MODULES`): sampling, descent, selection and
backup are Python-level work at every iteration, and compiled they cost a few microseconds
instead of tens. The network is not called here: :func:`search` asks its ``expand`` argument
(NumPy, interpreted) for each new node. The arithmetic is the interpreted version's, operation
for operation (IEEE doubles either way), so the search visits the same actions.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Final

from gonuts import rules
from gonuts.bots.budget import poll_signals
from gonuts.bots.determinize import Determinizer
from gonuts.scoring import scores
from gonuts.state import GameState, Phase

C_PUCT: Final = 1.5
MARGIN_WEIGHT: Final = 0.01
"""As in training (:data:`gonuts.train.ppo.MARGIN_WEIGHT`): the value's score-margin share."""


class Player:
    """One player's statistics at one node: the network's priors and value, visits, worth."""

    def __init__(self, priors: dict[int, float], value: float) -> None:
        self.priors = priors
        self.value = value
        self.visits: dict[int, int] = {}
        self.worth: dict[int, float] = {}
        self.total = 0

    def select(self, legal: Sequence[int]) -> int:
        """The action maximising ``Q + c·P·√N / (1 + n)`` (PUCT); the first of equals."""
        root_n = math.sqrt(self.total + 1)
        fallback = 1.0 / len(legal)
        best = -math.inf
        choice = legal[0]
        for a in legal:
            n = self.visits.get(a, 0)
            q = self.worth[a] / n if n else self.value
            u = q + C_PUCT * self.priors.get(a, fallback) * root_n / (1 + n)
            if u > best:
                best = u
                choice = a
        return choice


class Node:
    """A sequence of decisions: each acting player's statistics and the children by joint move."""

    def __init__(self) -> None:
        self.players: dict[int, Player] = {}
        self.children: dict[tuple[int, ...], Node] = {}


Expand = Callable[[GameState, list[int]], tuple[Node, list[float]]]
"""A new node for a sampled state and its acting players, with every player's value."""


def make_node(
    acting: Sequence[int], legal: Sequence[Sequence[int]], logits: list[float], values: list[float]
) -> Node:
    """A new node: each acting player's priors, a softmax over its legal actions' logits
    (``logits`` holds them player after player, ``legal`` in order), and its value."""
    node = Node()
    at = 0
    for j in range(len(acting)):
        ids = legal[j]
        count = len(ids)
        top = max(logits[at : at + count])
        weights = [math.exp(logits[i] - top) for i in range(at, at + count)]
        total = math.fsum(weights)
        priors: dict[int, float] = {}
        for i in range(count):
            priors[ids[i]] = weights[i] / total
        p = acting[j]
        node.players[p] = Player(priors, values[p])
        at += count
    return node


def outcome(g: GameState) -> list[float]:
    """Every player's result of a finished game: win share plus a little score margin."""
    n = g.n
    totals = scores(g.coll, n)
    share = 1.0 / len(g.winners)
    out: list[float] = []
    for p in range(n):
        margin = totals[p] - max(totals[q] for q in range(n) if q != p)
        win = share if p in g.winners else 0.0
        clipped = -30.0 if margin < -30 else (30.0 if margin > 30 else float(margin))
        out.append(win + MARGIN_WEIGHT * clipped)
    return out


class Run:
    """What one search did: the searching seat's root statistics, iterations, seconds."""

    def __init__(
        self,
        seat: int,
        stats: Player | None,
        iterations: int,
        seconds: float,
        simultaneous: bool,
    ) -> None:
        self.seat = seat
        self.stats = stats
        """The searching seat's statistics at the root (``None``: it had one legal action)."""
        self.iterations = iterations
        self.seconds = seconds
        self.simultaneous = simultaneous


def search(
    det: Determinizer,
    rng: random.Random,
    seat: int,
    expand: Expand,
    *,
    iterations: int | None,
    seconds: float | None,
) -> Run:
    """``iterations`` (or as many as ``seconds`` allow, at least one) of the search."""
    start = time.perf_counter()
    deadline = start + seconds if seconds is not None else math.inf
    limit = iterations if iterations is not None else 1 << 62
    root: Node | None = None
    simultaneous = False
    done = 0
    while done < limit and (done == 0 or time.perf_counter() < deadline):
        if done & 15 == 0:
            poll_signals()  # Ctrl-C works in the compiled build too
        g = det.sample(rng)
        path_stats: list[Player] = []
        path_players: list[int] = []
        path_actions: list[int] = []
        node = root
        parent: Node | None = None
        parent_key: tuple[int, ...] = ()
        values: list[float]
        while True:
            if g.phase is Phase.OVER:
                values = outcome(g)
                break
            acting = rules.to_act(g)
            if node is None:
                if root is None:  # the root, searched once
                    simultaneous = len(acting) > 1
                node, values = expand(g, acting)
                if parent is None:
                    root = node
                else:
                    parent.children[parent_key] = node
                break
            key: list[int] = []
            for p in acting:
                ids = rules.legal_ids(g, p)
                if len(ids) == 1:
                    a = ids[0]
                else:
                    stats = node.players.get(p)
                    if stats is None:
                        stats = Player({}, 0.5)
                        node.players[p] = stats
                    a = stats.select(ids)
                    path_stats.append(stats)
                    path_players.append(p)
                    path_actions.append(a)
                key.append(a)
            for i in range(len(acting)):
                rules.apply_unchecked(g, acting[i], key[i])
            parent = node
            parent_key = tuple(key)
            node = node.children.get(parent_key)
        for i in range(len(path_stats)):
            stats = path_stats[i]
            a = path_actions[i]
            stats.visits[a] = stats.visits.get(a, 0) + 1
            stats.worth[a] = stats.worth.get(a, 0.0) + values[path_players[i]]
            stats.total += 1
        done += 1
    assert root is not None
    return Run(seat, root.players.get(seat), done, time.perf_counter() - start, simultaneous)
