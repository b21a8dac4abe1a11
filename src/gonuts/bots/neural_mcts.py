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
* descents go eight at a time (:data:`BATCH`): each choice counts at once as a visit worth
  nothing (a virtual loss, so the batch spreads), and the network reads the batch's new leaves
  in one forward pass;
* the new leaf's values (or the true result, win share plus a little margin, at the end of a
  game) are backed up to every player's statistics on the path.

The root decision is the most visited action. Strength is set by iterations or by time.
"""

from __future__ import annotations

import os
import random
from typing import Final

import numpy as np

from gonuts.actions import ACTIONS, Action
from gonuts.bots import puct
from gonuts.bots.budget import parse_budget
from gonuts.bots.determinize import Determinizer
from gonuts.bots.mcts import ActionEstimate, SearchResult
from gonuts.bots.neural import WEIGHTS_ENV, FloatArray, Network, NeuralBot, shipped_network
from gonuts.bots.observe import encode_states, leaf_rows, legal_rows
from gonuts.envs.encoding import NUM_ENV_ACTIONS, OBS_SIZE
from gonuts.errors import NotYourTurnError
from gonuts.state import GameState
from gonuts.view import PlayerView

C_PUCT: Final = puct.C_PUCT
MARGIN_WEIGHT: Final = puct.MARGIN_WEIGHT
"""As in training (:data:`gonuts.train.ppo.MARGIN_WEIGHT`): the value's score-margin share."""
BATCH: Final = 8
"""Leaves the search reads in one forward pass (:func:`gonuts.bots.puct.search`): the
network's second layer is a product of the rows by a 256×256 matrix, whose cost on a CPU is
mostly reading the matrix, once per call however many rows (docs/bots.md, "Batched leaves")."""


class Expander:
    """Makes the search's new nodes: one forward pass of the network over every seat's
    observation of the sampled states (encoded from the state, :mod:`gonuts.bots.observe`, into
    a buffer kept between leaves; the sparse way, a whole batch of leaves in one pass,
    :meth:`many`), priors by a softmax over each acting player's legal logits.

    Two ways to the same numbers, up to float32 rounding:

    * **sparse** (the default): an observation has a few dozen nonzero entries of 538, so the
      first layer multiplies only the columns some seat uses (the input scale folded into the
      weights, :attr:`Network.scaled_first`), and the policy head computes only the acting
      players' legal logits (a handful of 521). About half the CPU of a leaf, and the search's
      time is mostly leaves (docs/bots.md, "hard and the compiled build").
    * **exact** (``exact=True``): :meth:`Network.forward`'s operations on arrays of the same
      shapes and dtypes into kept buffers, so priors and values are bit for bit those of the
      search before it was compiled (``tests/bots/test_neural_mcts_identity.py`` proves the
      tree that way). A network whose class has its own ``forward`` is always read this way.

    The sparse path's priors and values differ from the exact path's in the last bits of
    float32 (``tests/bots/test_neural_mcts.py`` bounds them), so a search can now and then
    break a near-tie the other way.
    """

    def __init__(self, net: Network, players: int, *, exact: bool = False, batch: int = 1) -> None:
        self.net = net
        self.players = players
        self.own = type(net).forward is Network.forward
        """Whether :meth:`forward` may stand in for the network's (not a subclass's own)."""
        self.sparse = self.own and not exact
        rows = players * (batch if self.sparse else 1)
        self.batch_obs = np.zeros((rows, OBS_SIZE), np.float32)
        """The sparse leaves' observations: a batch of leaves, one row a seat."""
        self.obs = self.batch_obs[:players]
        self.flat = self.batch_obs.reshape(-1)
        layers = net.layers if self.own else []
        self.scaled = np.empty_like(self.obs)
        self.hidden = [np.empty((players, w.shape[1]), np.float32) for w, _ in layers]
        width = net.policy[0].shape[1] if self.own else NUM_ENV_ACTIONS
        self.logits = np.empty((players, width), np.float32)
        self.values = np.empty((players, 1), np.float32)

    def forward(self) -> tuple[FloatArray, FloatArray]:
        """:meth:`Network.forward` of :attr:`obs`, the same operations into kept buffers."""
        net = self.net
        h = np.multiply(self.obs, net.scale, out=self.scaled)
        for (w, b), out in zip(net.layers, self.hidden, strict=True):
            np.matmul(h, w, out=out)
            np.add(out, b, out=out)
            h = np.maximum(out, 0.0, out=out)
        np.matmul(h, net.policy[0], out=self.logits)
        np.add(self.logits, net.policy[1], out=self.logits)
        np.matmul(h, net.value_head[0], out=self.values)
        np.add(self.values, net.value_head[1], out=self.values)
        return self.logits, self.values[:, 0]

    def __call__(self, g: GameState, acting: list[int]) -> tuple[puct.Node, list[float]]:
        """The new node of one leaf and every player's value."""
        if self.sparse:
            return self._sparse([g], [acting])[0]
        idx: list[int] = []
        val: list[float] = []
        encode_states(g, idx, val)
        self.obs.fill(0.0)
        self.flat[idx] = val
        logits, values = self.forward() if self.own else self.net.forward(self.obs)
        vals: list[float] = values.tolist()
        legal, where, source = legal_rows(g, acting, NUM_ENV_ACTIONS)
        rows = np.full((len(acting), NUM_ENV_ACTIONS), -np.inf, np.float32)
        rows.reshape(-1)[where] = logits.reshape(-1)[source]
        z = np.exp(rows - rows.max(axis=1, keepdims=True))
        z /= z.sum(axis=1, keepdims=True)
        probs: list[float] = z.reshape(-1)[where].tolist()
        node = puct.Node()
        at = 0
        for p, ids in zip(acting, legal, strict=True):
            priors = dict(zip(ids, probs[at : at + len(ids)], strict=True))
            node.players[p] = puct.Player(priors, vals[p])
            at += len(ids)
        return node, vals

    def many(
        self, states: list[GameState], actings: list[list[int]]
    ) -> list[tuple[puct.Node, list[float]]]:
        """:meth:`__call__` of each leaf; the sparse way, all of them in one forward pass (at
        most the ``batch`` the expander was made for)."""
        if self.sparse:
            return self._sparse(states, actings)
        return [self(g, acting) for g, acting in zip(states, actings, strict=True)]

    def _sparse(
        self, states: list[GameState], actings: list[list[int]]
    ) -> list[tuple[puct.Node, list[float]]]:
        net = self.net
        n = self.players
        idx: list[int] = []
        val: list[float] = []
        for leaf, g in enumerate(states):
            encode_states(g, idx, val, leaf * n * OBS_SIZE)
        obs = self.batch_obs[: len(states) * n]
        obs.fill(0.0)
        self.flat[idx] = val
        h = net.last_hidden(obs)
        vals: list[float] = net.values_of(h).tolist()
        legal, source = leaf_rows(states, actings, NUM_ENV_ACTIONS)
        rows, actions = np.divmod(np.asarray(source, np.intp), NUM_ENV_ACTIONS)
        logits: list[float] = net.logits_at(h, rows, actions).tolist()
        return puct.make_nodes(actings, legal, logits, vals, n)


def search(
    view: PlayerView,
    rng: random.Random,
    net: Network,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    exact: bool = False,
    batch: int = BATCH,
) -> dict[int, int]:
    """Root visit counts (engine action id → visits) of ``view.seat``'s legal actions;
    ``exact`` evaluates the leaves with 0.3.0's arithmetic (:class:`Expander`), one at a time;
    otherwise ``batch`` leaves at a time (:func:`gonuts.bots.puct.search`)."""
    mine = _search(view, rng, net, iterations, seconds, exact=exact, batch=batch).stats
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
    stats = run.stats if run.stats is not None else puct.Player({}, 0.0)

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


def _search(
    view: PlayerView,
    rng: random.Random,
    net: Network,
    iterations: int | None,
    seconds: float | None,
    *,
    exact: bool = False,
    batch: int = BATCH,
) -> puct.Run:
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator's view has no decision to search")
    if iterations is None and seconds is None:
        iterations = 400
    if exact:
        batch = 1  # 0.3.0's search: one leaf at a time
    expand = Expander(net, view.num_players, exact=exact, batch=batch)
    return puct.search(
        Determinizer(view),
        rng,
        seat,
        expand.many,
        iterations=iterations,
        seconds=seconds,
        batch=batch,
    )


class NeuralMCTSBot:
    """The network-guided search; ``iterations`` and/or ``seconds`` per decision.

    ``exact=True`` (the bot ``neural-mcts-exact:N``) evaluates the leaves with 0.3.0's network
    arithmetic instead of the sparse default: the same search, slower, kept so that the two can
    be matched in the arena (docs/bots.md, "``hard`` and the compiled build")."""

    name = "neural-mcts"

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        name: str | None = None,
        network: Network | None = None,
        exact: bool = False,
        batch: int = BATCH,
    ) -> None:
        if iterations is None and seconds is None:
            seconds = 1.0
        self.iterations = iterations
        self.seconds = seconds
        self.exact = exact
        self.batch = batch
        """Leaves a forward pass reads (1: the plain sequential search; ``exact`` is always 1)."""
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
        visits = search(
            view,
            self.rng,
            network,
            iterations=self.iterations,
            seconds=self.seconds,
            exact=self.exact,
            batch=self.batch,
        )
        if not visits:
            return legal[0]
        return ACTIONS[max(visits, key=lambda a: visits[a])]


def make_neural(
    base: str, budget: str | None, seed: int | None, name: str
) -> NeuralBot | NeuralMCTSBot:
    """``neural``, ``neural-mcts`` (1 s per decision), ``neural-mcts:N`` / ``:Xs``, or
    ``neural-mcts-exact[:N | :Xs]`` (the leaves in 0.3.0's arithmetic) for
    :func:`gonuts.bots.base.make_bot`."""
    if os.environ.get(WEIGHTS_ENV):
        shipped_network()  # a bad GONUTS_NEURAL_WEIGHTS is a ValueError now, not at the first move
    if base == "neural":
        return NeuralBot(seed)
    exact = base == "neural-mcts-exact"
    if budget is None:
        return NeuralMCTSBot(seed, seconds=1.0, name=name, exact=exact)
    iterations, seconds = parse_budget(budget)
    return NeuralMCTSBot(seed, iterations=iterations, seconds=seconds, name=name, exact=exact)
