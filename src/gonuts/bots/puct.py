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


Expand = Callable[[list[GameState], list[list[int]]], list[tuple[Node, list[float]]]]
"""New nodes for sampled states and their acting players, with every player's values: one
call for a whole batch of leaves (:func:`search`'s ``batch``), so the network can read them
in one forward pass."""


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


def make_nodes(
    actings: Sequence[Sequence[int]],
    legals: Sequence[Sequence[Sequence[int]]],
    logits: list[float],
    values: list[float],
    players: int,
) -> list[tuple[Node, list[float]]]:
    """:func:`make_node` for a batch of leaves: ``logits`` holds their legal logits leaf after
    leaf, ``values`` their seats' values (``players`` a leaf); each node with its values."""
    out: list[tuple[Node, list[float]]] = []
    at = 0
    for leaf in range(len(actings)):
        legal = legals[leaf]
        count = 0
        for ids in legal:
            count += len(ids)
        mine = values[leaf * players : (leaf + 1) * players]
        out.append((make_node(actings[leaf], legal, logits[at : at + count], mine), mine))
        at += count
    return out


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


class Descent:
    """One iteration on its way down: the statistics it passed through and where it stopped
    (a new node to make under ``parent``, or the end of the game and its ``values``)."""

    def __init__(self) -> None:
        self.stats: list[Player] = []
        self.players: list[int] = []
        self.actions: list[int] = []
        self.parent: Node | None = None
        self.key: tuple[int, ...] = ()
        self.leaf: GameState | None = None
        self.acting: list[int] = []
        self.values: list[float] = []


def descend(g: GameState, root: Node | None) -> Descent:
    """Walk the sampled state ``g`` down the tree by PUCT until a node is missing or the game
    ends. Each choice counts at once as a visit worth nothing (a *virtual loss*); the backup
    adds the worth. One descent at a time, that is the plain search; several before one backup
    (a batch) steer the later ones away from the paths the earlier ones took."""
    d = Descent()
    node = root
    while True:
        if g.phase is Phase.OVER:
            d.values = outcome(g)
            return d
        acting = rules.to_act(g)
        if node is None:
            d.leaf = g
            d.acting = acting
            return d
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
                stats.visits[a] = stats.visits.get(a, 0) + 1
                stats.worth[a] = stats.worth.get(a, 0.0)
                stats.total += 1
                d.stats.append(stats)
                d.players.append(p)
                d.actions.append(a)
            key.append(a)
        for i in range(len(acting)):
            rules.apply_unchecked(g, acting[i], key[i])
        d.parent = node
        d.key = tuple(key)
        node = node.children.get(d.key)


def search(
    det: Determinizer,
    rng: random.Random,
    seat: int,
    expand: Expand,
    *,
    iterations: int | None,
    seconds: float | None,
    batch: int = 1,
) -> Run:
    """``iterations`` (or as many as ``seconds`` allow, at least one) of the search, ``batch``
    descents at a time (the first alone: it makes the root) whose new leaves ``expand`` reads
    together. ``batch=1`` is the plain sequential search."""
    start = time.perf_counter()
    deadline = start + seconds if seconds is not None else math.inf
    limit = iterations if iterations is not None else 1 << 62
    root: Node | None = None
    simultaneous = False
    done = 0
    while done < limit and (done == 0 or time.perf_counter() < deadline):
        size = 1 if root is None else min(batch, limit - done)
        descents: list[Descent] = []
        states: list[GameState] = []
        actings: list[list[int]] = []
        for _ in range(size):
            if done & 15 == 0:
                poll_signals()  # Ctrl-C works in the compiled build too
            d = descend(det.sample(rng), root)
            if d.leaf is not None:
                states.append(d.leaf)
                actings.append(d.acting)
            descents.append(d)
            done += 1
        made = expand(states, actings) if states else []
        at = 0
        for d in descents:
            if d.leaf is not None:
                node, d.values = made[at]
                at += 1
                parent = d.parent
                if parent is None:
                    if root is None:  # the root, searched once
                        root = node
                        simultaneous = len(d.acting) > 1
                elif d.key not in parent.children:  # (two descents of a batch can meet)
                    parent.children[d.key] = node
            values = d.values
            for i in range(len(d.stats)):
                stats = d.stats[i]
                a = d.actions[i]
                stats.worth[a] += values[d.players[i]]
    assert root is not None
    return Run(seat, root.players.get(seat), done, time.perf_counter() - start, simultaneous)
