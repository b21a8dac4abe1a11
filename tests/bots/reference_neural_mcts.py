"""The ``neural-mcts`` search as it was before it was compiled (0.3.0), kept as the reference.

:mod:`gonuts.bots.neural_mcts` now runs its tree in :mod:`gonuts.bots.puct` (mypyc) and encodes
leaves from the state (:mod:`gonuts.bots.observe`); ``test_neural_mcts_identity`` checks that
it visits exactly what this code visits. Copied unchanged from ``neural_mcts.py`` at a8a6692.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from gonuts import rules
from gonuts.bots.budget import poll_signals
from gonuts.bots.determinize import Determinizer
from gonuts.bots.neural import Network
from gonuts.envs.encoding import OBS_SIZE, encode_observation, mask_from_ids, to_env_action
from gonuts.scoring import scores
from gonuts.state import GameState, Phase
from gonuts.view import PlayerView, make_views

C_PUCT: Final = 1.5
MARGIN_WEIGHT: Final = 0.01


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
