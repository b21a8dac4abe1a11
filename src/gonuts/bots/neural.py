"""``neural``: the policy network trained by self-play (:mod:`gonuts.train`), one forward pass.

The weights ship in the package (``weights/neural.npz``) and are read with NumPy alone: JAX
is needed only to train. The bot encodes its seat's view with
:func:`gonuts.envs.encoding.encode_observation` (the same vector :mod:`gonuts.batch` trained
on), masks the illegal actions and plays the most likely legal one. The value head (the
expected win share, plus a little score margin, of the seat from this view) serves
``neural-mcts`` (:mod:`gonuts.bots.neural_mcts`) at the leaves of its search.
"""

from __future__ import annotations

import ctypes
import json
import os
import random
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from gonuts.actions import ACTIONS, Action
from gonuts.envs.encoding import action_mask, encode_observation, from_env_action
from gonuts.errors import NotYourTurnError
from gonuts.view import PlayerView

WEIGHTS: Final = Path(__file__).with_name("weights") / "neural.npz"
HEADS_UP_WEIGHTS: Final = Path(__file__).with_name("weights") / "neural-2p.npz"
"""The heads-up network, where one ships: fine-tuned from :data:`WEIGHTS` with more two-player
games, it beats ``greedy`` heads-up more often but lost strength at 4 players, so it plays
only two-player tables (see docs/bots.md)."""
WEIGHTS_ENV: Final = "GONUTS_NEURAL_WEIGHTS"
"""An environment variable naming a weight file (``.npz`` from ``gonuts train``) that every
``neural`` and ``neural-mcts`` bot of the process plays instead of the shipped networks, at every
table size: to try a checkpoint in ``gonuts arena``, ``play`` or ``hint`` without copying it
into the package (worker processes inherit it)."""
FloatArray = np.ndarray[Any, np.dtype[np.float32]]
IntArray = np.ndarray[Any, np.dtype[np.intp]]


_BLAS_THREAD_SETTERS: Final = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
"""What OpenBLAS (NumPy's wheels bundle it, renamed) calls its thread-count setter."""


def _loaded_blas() -> list[str]:
    """Paths of the OpenBLAS libraries this process has loaded (Linux: ``/proc/self/maps``;
    elsewhere the ones NumPy's wheel ships beside it)."""
    try:
        with open("/proc/self/maps") as maps:
            found = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        found = set()
    if not found:
        here = Path(np.__file__).parent
        for folder in (here.with_name("numpy.libs"), here / ".dylibs"):
            if folder.is_dir():
                found |= {str(f) for f in folder.iterdir() if "openblas" in f.name.lower()}
    return sorted(p for p in found if p.startswith("/") or sys.platform != "linux")


@cache
def single_threaded_blas() -> bool:
    """Make NumPy's OpenBLAS run on the calling process's one thread; True if it could.

    The network multiplies at most six rows at a time: a threaded matrix product only adds
    hand-offs between threads (on two busy cores a 4-player ``neural-mcts`` decision took
    tens of seconds of CPU instead of one), and its result depends on the number of threads,
    hence on the machine. With one thread the bots' decisions are the same on every machine
    and under ``taskset``. Process-wide (the thread count is OpenBLAS's only setting); the
    process does no large products with NumPy. A no-op where NumPy uses another BLAS.
    """
    np.zeros((2, 2), np.float32) @ np.zeros((2, 2), np.float32)  # OpenBLAS loaded by now
    for path in _loaded_blas():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _BLAS_THREAD_SETTERS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(1)
                return True
    return False


class Network:
    """The MLP of :class:`gonuts.train.ppo.PolicyValue` in NumPy (float32).

    Building one makes NumPy's BLAS single-threaded (:func:`single_threaded_blas`)."""

    def __init__(self, path: Path = WEIGHTS) -> None:
        try:
            data = np.load(path, allow_pickle=False)
        except FileNotFoundError:
            raise ValueError(f"no network weights at {path} (train with `gonuts train`)") from None
        with data:
            self._set({name: data[name] for name in data.files})

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray[Any, Any]]) -> Network:
        """A network from the arrays of a weight file (e.g. sent to a training worker)."""
        network = cls.__new__(cls)
        network._set(arrays)
        return network

    def _set(self, data: Mapping[str, np.ndarray[Any, Any]]) -> None:
        single_threaded_blas()
        self.scale: FloatArray = data["scale"]
        self.layers = [(data[f"{name}_w"], data[f"{name}_b"]) for name in ("dense0", "dense1")]
        self.policy = (data["policy_w"], data["policy_b"])
        self.value_head = (data["value_w"], data["value_b"])
        self.meta: dict[str, Any] = json.loads(str(data["meta"])) if "meta" in data else {}
        # The search's sparse path (:class:`gonuts.bots.neural_mcts.Expander`): the input scale
        # folded into the first layer, whose rows it gathers for the observation's nonzero
        # columns only; the policy head by action (rows), for the legal actions' logits only.
        w0 = self.layers[0][0]
        self.scaled_first: FloatArray = np.ascontiguousarray(
            self.scale.reshape(-1, 1) * w0, dtype=np.float32
        )
        self.policy_rows: FloatArray = np.ascontiguousarray(self.policy[0].T, dtype=np.float32)
        self.value_column: FloatArray = np.ascontiguousarray(self.value_head[0][:, 0])

    def forward(self, obs: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Logits ``[..., 521]`` and values ``[...]`` of observations ``[..., OBS_SIZE]``."""
        h = obs * self.scale
        for w, b in self.layers:
            h = np.maximum(h @ w + b, 0.0)
        logits = h @ self.policy[0] + self.policy[1]
        value = (h @ self.value_head[0] + self.value_head[1])[..., 0]
        return logits, value

    def last_hidden(self, obs: FloatArray) -> FloatArray:
        """The last hidden layer of observations ``[rows, OBS_SIZE]``, the first layer over the
        columns some row uses only: an observation is a few dozen nonzero entries of 538.
        :meth:`forward`'s numbers up to float32 rounding, in about half the time."""
        used = np.flatnonzero(obs.any(axis=0))
        h: FloatArray = obs[:, used] @ self.scaled_first[used]
        np.add(h, self.layers[0][1], out=h)
        np.maximum(h, 0.0, out=h)
        for w, b in self.layers[1:]:
            h = h @ w
            np.add(h, b, out=h)
            np.maximum(h, 0.0, out=h)
        return h

    def values_of(self, hidden: FloatArray) -> FloatArray:
        """The value head on rows of :meth:`last_hidden`."""
        out: FloatArray = hidden @ self.value_column + self.value_head[1][0]
        return out

    def logits_at(
        self, hidden: FloatArray, rows: Sequence[int] | IntArray, actions: Sequence[int] | IntArray
    ) -> FloatArray:
        """The policy logits of (row of ``hidden``, env action) pairs, only those: a decision
        has a handful of legal actions of 521."""
        at = np.asarray(actions, np.intp)
        out: FloatArray = np.einsum(
            "ij,ij->i", hidden[np.asarray(rows, np.intp)], self.policy_rows[at]
        )
        out += self.policy[1][at]
        return out

    def evaluate(self, view: PlayerView) -> tuple[dict[int, float], float]:
        """For ``view``: the prior of each legal action (engine id → probability) and the value."""
        seat = view.seat
        if seat is None:
            raise ValueError("the network plays a seat's view, not a spectator's")
        logits, value = self.forward(encode_observation(view))
        mask = action_mask(view).astype(bool)
        masked = np.where(mask, logits, -np.inf)
        z = np.exp(masked - masked.max())
        probs = z / z.sum()
        n = view.num_players
        priors = {from_env_action(int(e), seat, n): float(probs[e]) for e in np.flatnonzero(mask)}
        return priors, float(value)


def shipped_network(players: int | None = None) -> Network:
    """The shipped network for a table of ``players``: the heads-up weights at two players
    where they ship, otherwise the network of every table size; the file named by
    :data:`WEIGHTS_ENV` instead, when it is set. Loaded once per process."""
    override = os.environ.get(WEIGHTS_ENV)
    if override:
        path = Path(override)
        if not path.is_file():
            raise ValueError(f"{WEIGHTS_ENV}: no network weights at {path}")
        return _load(path)
    two = players == 2 and HEADS_UP_WEIGHTS.is_file()
    return _load(HEADS_UP_WEIGHTS if two else WEIGHTS)


@cache
def _load(path: Path) -> Network:
    return Network(path)


class NeuralBot:
    """Plays the network's most likely legal action (``temperature`` > 0: samples instead)."""

    name = "neural"

    def __init__(
        self, seed: int | None = None, *, network: Network | None = None, temperature: float = 0.0
    ) -> None:
        self.network = network  # None: the shipped network for the view's table size
        self.temperature = temperature
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal
        if not legal:
            raise NotYourTurnError(f"seat {view.seat} has no decision to take now")
        if len(legal) == 1:
            return legal[0]
        network = self.network or shipped_network(view.num_players)
        priors, _ = network.evaluate(view)
        if self.temperature > 0.0:
            ids = list(priors)
            weights = [p ** (1.0 / self.temperature) for p in priors.values()]
            return ACTIONS[self.rng.choices(ids, weights)[0]]
        best = max(priors, key=lambda a: priors[a])
        return ACTIONS[best]
