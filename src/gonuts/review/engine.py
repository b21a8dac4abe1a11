"""The analyser: every legal action of one decision, judged from the deciding seat's own view.

A decision is judged on the seat's :class:`~gonuts.view.PlayerView` at that moment, never on
the game state: the deck order and the picks or passes other players made in secret are
unknown to it, so the analyser samples them, as the bots do
(:class:`~gonuts.bots.determinize.Determinizer`).

The ``neural:N`` analyser is a paired one-step look-ahead with the shipped network
(:func:`gonuts.bots.neural.shipped_network`):

1. draw N states consistent with the view (the unseen deck shuffled, the others' secret choices
   pending again);
2. in each, the other players who choose at the same time (the picks, Cinnamon Twist) choose
   once, sampled from the network's policy on their own view of that state — the *same* choice
   for every action the seat could take (common random numbers: the actions are compared on
   the same samples, so their difference has far less noise than each value);
3. for every legal action of the seat, play it, let everyone play the network's most likely
   action until the round is over (the powers resolved, the row refilled), and read the seat's
   value from the network's value head on the seat's own view of the state reached (at the end
   of the game: the true reward);
4. the action's value is the mean over the N samples, on the network's reward scale (win share
   plus a hundredth of the score margin); the loss is measured on it, and the value clipped to
   [0, 1] is the reported (uncalibrated) win probability.

The default analyser, ``neural-mixed:512``, is ``neural:512`` with half of the others'
simultaneous picks made as ``greedy`` (the ``medium`` bot) makes them (:func:`greedy_choices`):
over 200 four-player games of one seat per level it orders the levels' accuracies hard >
medium > easy > random, each step apart within games, and two reviews with different seeds
agree on 91 % of the labels at 512 samples (docs/review.md, "Validity, measured",
"Stability"). The other judges tried for validity: ``neural-greedy:N`` (all the others' picks
as ``greedy``'s), ``neural2:N`` (two rounds ahead), ``rollout:N`` (to the end of the game) and
``search:N`` (:mod:`gonuts.review.search`).

``mcts:N`` and ``neural-mcts:N`` use the bots' own searches instead
(:func:`gonuts.bots.hint.hint`, N iterations): their best action is the search's recommendation
and each action's win probability is the search's estimate for it (fewer simulations for the
actions the search liked less, so noisier; see docs/review.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import random
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

import numpy as np

from gonuts import rules
from gonuts.actions import PICK_BASE, Action
from gonuts.bots.determinize import Determinizer
from gonuts.bots.greedy import SELF_TEMPERATURE, selection_scores
from gonuts.bots.heuristics import make_context
from gonuts.bots.hint import HintBot, hint
from gonuts.bots.neural import Network, shipped_network
from gonuts.bots.observe import encode_state, env_ids
from gonuts.cards import NUM_KINDS, kind_index
from gonuts.envs.encoding import OBS_SIZE, encode_observation
from gonuts.review.search import search_estimates
from gonuts.scoring import scores
from gonuts.state import GameState, Phase
from gonuts.view import PlayerView

AnalyserKind = Literal[
    "neural", "neural-greedy", "neural-mixed", "neural2", "rollout", "search", "mcts", "neural-mcts"
]
ANALYSER_KINDS: Final[tuple[AnalyserKind, ...]] = (
    "neural",
    "neural-greedy",
    "neural-mixed",
    "neural2",
    "rollout",
    "search",
    "mcts",
    "neural-mcts",
)
DEFAULT_BUDGETS: Final[dict[AnalyserKind, int]] = {
    "neural": 128,
    "neural-greedy": 128,
    "neural-mixed": 512,
    "neural2": 64,
    "rollout": 16,
    "search": 32,
    "mcts": 1000,
    "neural-mcts": 400,
}
"""Samples per decision (``neural``, ``neural2``: the look-ahead over two rounds, ``rollout``:
to the end of the game, valued by the result alone), descents per
action (``search``, :mod:`gonuts.review.search`) or search iterations (``mcts``,
``neural-mcts``)."""
MAX_BUDGET: Final = 1_000_000
ROUNDS_AHEAD: Final = {
    "neural": 1,
    "neural-greedy": 1,
    "neural-mixed": 1,
    "neural2": 2,
    "rollout": 1_000,
}
"""How many rounds the network plays out after the action before its value head is read
(``rollout``: every round left, so the value is the game's true result)."""
GREEDY_SHARE: Final = {"neural-greedy": 1.0, "neural-mixed": 0.5}
"""The share of the others' simultaneous picks modelled as ``greedy`` makes them."""
LOCKSTEP_LEAVES: Final = 256
"""How many leaves :func:`neural_estimates` plays out together (the samples drawn so far)."""
GreedyKey = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]
"""A player and the public cards its ``greedy`` scores read: the row, collections, discards."""
MARGIN_WEIGHT: Final = 0.01
MARGIN_CLIP: Final = 30.0
"""As the network's training reward (:mod:`gonuts.train.ppo`)."""


@dataclass(frozen=True, slots=True)
class Analyser:
    """Which analyser judges the decisions and with how much work per decision."""

    kind: AnalyserKind = "neural"
    budget: int = DEFAULT_BUDGETS["neural"]

    @property
    def spec(self) -> str:
        """The name ``--bot`` takes, e.g. ``neural:128``."""
        return f"{self.kind}:{self.budget}"


DEFAULT_ANALYSER: Final = Analyser("neural-mixed", DEFAULT_BUDGETS["neural-mixed"])
"""``gonuts review``'s analyser: the judge whose accuracies order the bots' levels, at the
budget whose labels are stable (90 % or more agree between two seeds); about 16 s of CPU for a
4-player game on the development machine (docs/review.md, "Speed")."""


def parse_analyser(spec: str) -> Analyser:
    """``neural``, ``neural:N``, ``mcts:N``, ``neural-mcts:N`` (N ≥ 1; the kind alone takes its
    default budget). ``ValueError`` with a one-line reason otherwise."""
    kind, colon, budget = spec.partition(":")
    if kind not in ANALYSER_KINDS:
        raise ValueError(
            f"unknown analyser {spec!r}: use one of "
            + ", ".join(f"{known}:N" for known in ANALYSER_KINDS)
        )
    if not colon:
        return Analyser(kind, DEFAULT_BUDGETS[kind])
    try:
        value = int(budget)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_BUDGET:
        raise ValueError(
            f"bad budget {budget!r} in {spec!r}: a whole number from 1 to {MAX_BUDGET}"
        )
    return Analyser(kind, value)


@dataclass(frozen=True, slots=True)
class Judgement:
    """The analyser's estimate of every legal action of one decision."""

    actions: tuple[Action, ...]
    """The legal actions, in notation order."""
    win_probabilities: tuple[float, ...]
    """One per action: the seat's estimated chance of winning after it (0 … 1)."""
    best: Action
    values: tuple[float, ...] = ()
    """One per action: what the loss is measured on (``neural``: the network's reward, win
    share plus a hundredth of the score margin, unclipped; the search's estimate otherwise)."""

    def value(self, action: Action) -> float:
        values = self.values or self.win_probabilities
        return values[self.actions.index(action)]

    def win_probability(self, action: Action) -> float:
        return self.win_probabilities[self.actions.index(action)]

    @property
    def best_win_probability(self) -> float:
        return self.win_probability(self.best)


def judge(view: PlayerView, analyser: Analyser, rng: random.Random) -> Judgement:
    """Every legal action of ``view.seat`` now, judged by ``analyser`` from ``view`` alone.

    ``ValueError`` for a spectator's view or a seat with no decision to take."""
    if view.seat is None or not view.legal:
        raise ValueError("only a seat with a decision to take can be judged")
    with one_blas_thread():
        return _judge(view, analyser, rng)


def _judge(view: PlayerView, analyser: Analyser, rng: random.Random) -> Judgement:
    if analyser.kind in ROUNDS_AHEAD or analyser.kind == "search":
        if analyser.kind == "search":
            values = search_estimates(view, analyser.budget, rng)
        else:
            rounds = ROUNDS_AHEAD[analyser.kind]
            values = neural_estimates(
                view,
                analyser.budget,
                rng,
                rounds=rounds,
                greedy_share=GREEDY_SHARE.get(analyser.kind, 0.0),
            )
        best = max(range(len(values)), key=lambda i: (values[i], -i))
        shown = tuple(min(1.0, max(0.0, v)) for v in values)
        return Judgement(view.legal, shown, view.legal[best], tuple(values))
    bot: HintBot = "mcts" if analyser.kind == "mcts" else "neural-mcts"
    result = hint(view, iterations=analyser.budget, seed=rng.getrandbits(32), bot=bot)
    by_action = {e.action: e.win_probability for e in result.estimates}
    probabilities = tuple(min(1.0, max(0.0, by_action[a])) for a in view.legal)
    return Judgement(view.legal, probabilities, result.recommended)


# -- one BLAS thread --------------------------------------------------------------------------


@functools.cache
def _openblas_threads() -> tuple[Callable[[int], None], Callable[[], int]] | None:
    """OpenBLAS's setter and getter of its thread count, from the library NumPy loaded (as
    threadpoolctl finds it); ``None`` where there is none to find."""
    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(libs.glob("*openblas*")):
        try:
            lib = ctypes.CDLL(str(path))
        except OSError:
            continue
        for prefix in ("scipy_openblas_", "openblas_"):
            for suffix in ("64_", ""):
                setter = getattr(lib, f"{prefix}set_num_threads{suffix}", None)
                getter = getattr(lib, f"{prefix}get_num_threads{suffix}", None)
                if setter is not None and getter is not None:
                    setter.argtypes = [ctypes.c_int]
                    getter.restype = ctypes.c_int
                    return setter, getter
    return None


_BLAS_LOCK = threading.Lock()
_BLAS_USERS = [0, 0]
"""Reviews running in this process, and the thread count to restore after the last."""


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the network's matrix products on one OpenBLAS thread (restored afterwards).

    Its products are tiny (a few rows of 538 × 256): spread over the threads of a busy machine
    they were 20–40 times slower, and the review's speed budget assumes one core."""
    found = _openblas_threads()
    if found is None:
        yield
        return
    setter, getter = found
    with _BLAS_LOCK:
        if _BLAS_USERS[0] == 0:
            _BLAS_USERS[1] = getter()
            setter(1)
        _BLAS_USERS[0] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_USERS[0] -= 1
            if _BLAS_USERS[0] == 0:
                setter(_BLAS_USERS[1])


# -- the network's one-step look-ahead ---------------------------------------------------------


def neural_estimates(
    view: PlayerView,
    samples: int,
    rng: random.Random,
    *,
    rounds: int = 1,
    greedy_share: float = 0.0,
) -> list[float]:
    """The ``neural:N`` value (module docstring) of each of ``view.legal``, in that order
    (unclipped); ``rounds=2`` (``neural2:N``) plays on to the end of the next round too, and
    ``rollout:N`` to the end of the game. ``greedy_share`` (``neural-greedy:N``: 1,
    ``neural-mixed:N``: ½): the share of the others' simultaneous picks that come from
    ``greedy``'s choice (:func:`greedy_choices`, each other player in each sample drawn apart)
    instead of the network's policy."""
    seat = view.seat
    assert seat is not None
    net = shipped_network(view.num_players)
    det = Determinizer(view)
    ids = [a.id for a in view.legal]
    totals = [0.0] * len(ids)
    start_round = view.round
    greedy_scores: dict[GreedyKey, list[float]] = {}  # the samples share the public cards
    # Stratified draws for the others' simultaneous choices: sample k of player p reads the
    # policy's quantile (strata[p][k] + u) / N, so that over the N samples every player's
    # choices follow its policy closely (less noise than N independent draws).
    strata = []
    for _ in range(view.num_players):
        order = list(range(samples))
        rng.shuffle(order)
        strata.append(order)
    # neural-mixed: which of the others pick as greedy, stratified too — sample k takes the
    # players of the bits of mixes[k], every combination as often as the others (not N coin
    # tosses apiece; the other judges draw no mixes, so their samples are unchanged).
    mixes = [k % (1 << view.num_players) for k in range(samples)]
    if greedy_share == 0.5:
        rng.shuffle(mixes)
    drawn: list[tuple[GameState, list[tuple[int, int]], list[int], list[float]]] = []
    for k in range(samples):
        g = det.sample(rng)
        others = [p for p in rules.to_act(g) if p != seat]
        quantiles = [(strata[p][k] + rng.random()) / samples for p in others]
        fixed: list[tuple[int, int]] = []
        if greedy_share > 0.0 and g.phase is Phase.SELECT:
            if greedy_share == 0.5:
                greedy = [p for p in others if mixes[k] >> p & 1]
            else:
                greedy = [p for p in others if greedy_share >= 1.0 or rng.random() < greedy_share]
            fixed = greedy_choices(
                view,
                g,
                greedy,
                [q for p, q in zip(others, quantiles, strict=True) if p in greedy],
                known=greedy_scores,
            )
            quantiles = [q for p, q in zip(others, quantiles, strict=True) if p not in greedy]
            others = [p for p in others if p not in greedy]
        drawn.append((g, fixed, others, quantiles))
        if len(drawn) * len(ids) < LOCKSTEP_LEAVES and k < samples - 1:
            continue
        # The samples drawn so far, together: the others' choices from the network's policy in
        # one forward pass, then every action of the seat on each, played out in lockstep.
        states = [d[0] for d in drawn]
        chosen = _policy_draws(net, states, [(d[2], d[3]) for d in drawn])
        leaves: list[GameState] = []
        for (g, fixed, _, _), by_network in zip(drawn, chosen, strict=True):
            for a in ids:
                h = g.copy(events=False)
                for p, b in fixed + by_network:
                    rules.apply_unchecked(h, p, b)
                rules.apply_unchecked(h, seat, a)
                leaves.append(h)
        _finish_rounds(net, leaves, [start_round] * len(leaves))
        for _ in range(1, rounds):
            going = [h for h in leaves if h.phase is not Phase.OVER]
            if not going:
                break
            _finish_rounds(net, going, [h.round for h in going])
        values = _values(net, leaves, seat)
        for at in range(0, len(values), len(ids)):
            for i in range(len(ids)):
                totals[i] += values[at + i]
        drawn = []
    return [t / samples for t in totals]


def _policy_draws(
    net: Network,
    states: Sequence[GameState],
    asks: Sequence[tuple[Sequence[int], Sequence[float]]],
) -> list[list[tuple[int, int]]]:
    """In each of ``states``, each of its ``asks`` players chooses once from the network's
    policy on its own view: the action at the given quantile (0 … 1) of its policy (legal
    actions in id order). One forward pass for all the states."""
    deciding: list[tuple[int, int, Sequence[int]]] = []
    for i, (players, _) in enumerate(asks):
        for p in players:
            ids = rules.legal_ids(states[i], p)
            if len(ids) > 1:
                deciding.append((i, p, ids))
    logits = _batch_logits(net, states, deciding) if deciding else []
    where: dict[tuple[int, int], int] = {}
    at = 0
    for i, p, ids in deciding:
        where[i, p] = at
        at += len(ids)
    out: list[list[tuple[int, int]]] = []
    for i, (players, quantiles) in enumerate(asks):
        choices: list[tuple[int, int]] = []
        for p, q in zip(players, quantiles, strict=True):
            ids = rules.legal_ids(states[i], p)
            start = where.get((i, p))
            if start is None:
                choices.append((p, ids[0]))
                continue
            z = logits[start : start + len(ids)]
            top = max(z)
            weights = [math.exp(x - top) for x in z]
            x = q * sum(weights)
            choice = ids[-1]
            for a, w in zip(ids, weights, strict=True):
                x -= w
                if x < 0.0:
                    choice = a
                    break
            choices.append((p, choice))
        out.append(choices)
    return out


def greedy_choices(
    view: PlayerView,
    g: GameState,
    players: Sequence[int],
    quantiles: Sequence[float],
    *,
    known: dict[GreedyKey, list[float]] | None = None,
) -> list[tuple[int, int]]:
    """Each of ``players`` picks a row position as ``greedy`` (``medium``) does: a softmax at
    its own low temperature over its expected gain of each position, which counts the chance
    that another picks the same card (then nobody gets it) — read at the given quantile.

    The opponent model of ``neural-greedy:N``: the network's policy spreads its picks, greedy
    players go for the card that is obviously best, and two who do get nothing; a judge whose
    others pick by the network does not see that collision coming.

    ``known``: the scores already computed, kept by player and the public cards they read (the
    row, the collections, the discards), which every sample of one view shares: the greedy
    heuristic is the costly part of a sample, and computed once per view it is the same."""
    unseen = [0] * NUM_KINDS
    for kind, count in view.unseen.items():
        unseen[kind_index(kind)] = count
    ctx = make_context(g.n, view.deck_size, g.row, unseen)
    out: list[tuple[int, int]] = []
    for p, q in zip(players, quantiles, strict=True):
        if known is None:
            scores = selection_scores(g, ctx, p)
        else:
            key = (p, tuple(g.row), tuple(g.coll), tuple(g.discard))
            cached = known.get(key)
            if cached is None:
                cached = known[key] = selection_scores(g, ctx, p)
            scores = cached
        top = max(scores)
        weights = [math.exp((v - top) / SELF_TEMPERATURE) for v in scores]
        x = q * sum(weights)
        choice = max(range(len(scores)), key=lambda i: scores[i])
        for i, w in enumerate(weights):
            x -= w
            if w > 0.0 and x < 0.0:
                choice = i
                break
        out.append((p, PICK_BASE + choice))
    return out


def _finish_rounds(net: Network, leaves: Sequence[GameState], rounds: Sequence[int]) -> None:
    """In every leaf, everyone plays the network's most likely action until the leaf's round
    ``rounds[i]`` is over. The leaves go in lockstep, one forward pass per step for all their
    deciding players (the network's products of a row or two cost as much as of a hundred)."""
    live = list(range(len(leaves)))
    while True:
        live = [
            i
            for i in live
            if leaves[i].phase is not Phase.OVER
            and not (leaves[i].phase is Phase.SELECT and leaves[i].round != rounds[i])
        ]
        if not live:
            return
        choices: dict[int, list[tuple[int, int]]] = {}
        deciding: list[tuple[int, int, Sequence[int]]] = []
        for i in live:
            g = leaves[i]
            forced: list[tuple[int, int]] = []
            for p in rules.to_act(g):
                ids = rules.legal_ids(g, p)
                if len(ids) == 1:
                    forced.append((p, ids[0]))
                else:
                    deciding.append((i, p, ids))
            choices[i] = forced
        if deciding:
            logits = _batch_logits(net, leaves, deciding)
            at = 0
            for i, p, ids in deciding:
                best = 0
                for j in range(1, len(ids)):
                    if logits[at + j] > logits[at + best]:
                        best = j
                choices[i].append((p, ids[best]))
                at += len(ids)
        for i in live:
            g = leaves[i]
            for p, a in choices[i]:
                rules.apply_unchecked(g, p, a)


def _batch_logits(
    net: Network, leaves: Sequence[GameState], deciding: Sequence[tuple[int, int, Sequence[int]]]
) -> list[float]:
    """The logits of each (leaf, player, legal ids) in turn, the ids' in order, one pass."""
    obs = np.zeros((len(deciding), OBS_SIZE), np.float32)
    idx: list[int] = []
    val: list[float] = []
    rows: list[int] = []
    actions: list[int] = []
    for row, (i, p, ids) in enumerate(deciding):
        g = leaves[i]
        encode_state(g, p, row * OBS_SIZE, idx, val)
        rows.extend([row] * len(ids))
        actions.extend(env_ids(ids, p, g.n))
    obs.reshape(-1)[idx] = val
    out: list[float] = net.logits_at(net.last_hidden(obs), rows, actions).tolist()
    return out


def _values(net: Network, leaves: Sequence[GameState], seat: int) -> list[float]:
    """The seat's reward at each leaf, as the network learned it: its win share plus a
    hundredth of its score margin (clipped at ±30) at the end of the game, else the network's
    value of the seat's own view of the leaf."""
    out = [math.nan] * len(leaves)
    open_rows: list[int] = []
    for i, h in enumerate(leaves):
        if h.phase is Phase.OVER:
            out[i] = _reward(h, seat)
        else:
            open_rows.append(i)
    if open_rows:
        obs = np.zeros((len(open_rows), OBS_SIZE), np.float32)
        idx: list[int] = []
        val: list[float] = []
        for row, i in enumerate(open_rows):
            encode_state(leaves[i], seat, row * OBS_SIZE, idx, val)
        obs.reshape(-1)[idx] = val
        values: list[float] = net.values_of(net.last_hidden(obs)).tolist()
        for row, i in enumerate(open_rows):
            out[i] = values[row]
    return out


def _reward(g: GameState, seat: int) -> float:
    totals = scores(g.coll, g.n)
    margin = totals[seat] - max(t for p, t in enumerate(totals) if p != seat)
    win = 1.0 / len(g.winners) if seat in g.winners else 0.0
    return win + MARGIN_WEIGHT * max(-MARGIN_CLIP, min(MARGIN_CLIP, margin))


def normalized_values(values: Sequence[float]) -> list[float]:
    """Every seat's network value (clipped at 0) divided by their sum: win probabilities that
    add up to 1. The value head alone is no calibrated probability — at the start of a
    4-player game it gives every seat about 0.8 (it learned against weaker players and counts a
    little of the score margin) — but how the seats' values compare is what it learned."""
    clipped = [max(0.0, v) for v in values]
    total = sum(clipped)
    if total <= 0.0:
        return [1.0 / len(values)] * len(values)
    return [v / total for v in clipped]


def table_win_probabilities(views: Sequence[PlayerView]) -> list[float]:
    """Each seat's chance of winning from its own view (one view per seat, in seat order): the
    network's values, :func:`normalized_values` (the win-probability graph)."""
    net = shipped_network(len(views))
    obs = np.zeros((len(views), OBS_SIZE), np.float32)
    for row, view in enumerate(views):
        encode_observation(view, out=obs[row])
    _, values = net.forward(obs)
    return normalized_values([float(v) for v in values])
