"""A Gymnasium ``VectorEnv`` of ``num_envs`` games at once, driven by :mod:`gonuts.batch` (JAX).

>>> import gymnasium, gonuts.envs
>>> envs = gymnasium.make_vec(
...     "gonuts/GoNuts-v0", num_envs=8, vectorization_mode="vector_entry_point"
... )
>>> obs, info = envs.reset(seed=0)
>>> obs["observation"].shape, obs["action_mask"].shape
((8, 538), (8, 521))

or directly ``GoNutsVectorEnv(num_envs=8, players=3)``. Each sub-environment is the game of
``gonuts/GoNuts-v0`` (:mod:`gonuts.envs.gymnasium`): the agent plays one seat (``seat``;
``None`` draws one at every reset), the same observation dict (``observation`` and
``action_mask``, seats relative to the agent), the same actions (``Discrete(521)``
environment ids), the same ``reward`` modes, ``illegal_action`` policies and house-rule
``variants`` (names of :data:`gonuts.variants.VARIANTS`). The opponents
are uniformly random players that run on the device inside the same JAX program (they are
the only opponents offered: ``opponents="random"``); every seat sees only its own view.

Auto-reset follows Gymnasium's default ``NEXT_STEP`` mode: the step that ends a game returns
its final observation and reward with ``terminated`` true; the next ``step`` call ignores
that sub-environment's action and returns the first observation of a new game. ``info``
holds ``seat`` (the agent's seat per game), ``action_mask`` and ``illegal_action``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Final

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from gonuts.batch import core, functional
from gonuts.batch.core import State
from gonuts.batch.play import random_actions
from gonuts.cards import canonical_deck
from gonuts.envs._core import (
    SEED_BOUND,
    IllegalEnvActionError,
    IllegalPolicy,
    check_options,
    observation_space,
)
from gonuts.envs.encoding import NUM_ENV_ACTIONS, describe_env_action
from gonuts.variants import check_variants, ordered

__all__ = ["GoNutsVectorEnv"]

REWARD_MODES: Final = ("win_share", "score_diff")


def _advance(s: State, seat: jax.Array, key: jax.Array) -> State:
    """Let the random opponents play until ``seat`` must act or the game is over."""

    def waiting(carry: tuple[State, jax.Array]) -> jax.Array:
        st = carry[0]
        return (st.phase != core.OVER) & ~core.to_act(st)[seat]

    def body(carry: tuple[State, jax.Array]) -> tuple[State, jax.Array]:
        st, k = carry
        k, sub = jax.random.split(k)
        return core.step(st, random_actions(sub, st)), k

    return jax.lax.while_loop(waiting, body, (s, key))[0]


def _deal(
    players: int, fixed_seat: int, key: jax.Array, variants: int = 0
) -> tuple[State, jax.Array]:
    deal_key, seat_key, play_key = jax.random.split(key, 3)
    deck = jax.random.permutation(deal_key, jnp.asarray(canonical_deck(players), jnp.int32))
    drawn = jax.random.randint(seat_key, (), 0, players)
    seat = jnp.asarray(fixed_seat if fixed_seat >= 0 else drawn, jnp.int32)
    return _advance(core.initial(deck, players, variants), seat, play_key), seat


def _outputs(s: State, seat: jax.Array, reward: str) -> tuple[jax.Array, jax.Array, jax.Array]:
    n = core.num_players(s)
    row = jnp.where(jnp.arange(n)[:, None] == seat, core.legal(s), False).any(axis=0)
    mask = functional.env_mask(row, seat, n).astype(jnp.int8)
    rewards = functional.rewards(s, reward)
    return core.observe(s, seat), mask, jnp.where(jnp.arange(n) == seat, rewards, 0.0).sum()


@partial(jax.jit, static_argnums=(0, 1, 2, 4))
def _reset_all(
    players: int, fixed_seat: int, reward: str, keys: jax.Array, variants: int = 0
) -> tuple[State, jax.Array, jax.Array, jax.Array]:
    state, seat = jax.vmap(lambda k: _deal(players, fixed_seat, k, variants))(keys)
    obs, mask, _ = jax.vmap(lambda s, p: _outputs(s, p, reward))(state, seat)
    return state, seat, obs, mask


@partial(jax.jit, static_argnums=(0, 1, 2, 8))
def _step_all(  # noqa: PLR0917 - a jitted function takes its arrays positionally
    players: int,
    fixed_seat: int,
    reward: str,
    state: State,
    seat: jax.Array,
    env_actions: jax.Array,
    restart: jax.Array,
    keys: jax.Array,
    variants: int = 0,
) -> tuple[State, jax.Array, jax.Array, jax.Array, jax.Array, jax.Array, jax.Array]:
    def one(
        s: State, me: jax.Array, action: jax.Array, again: jax.Array, key: jax.Array
    ) -> tuple[State, jax.Array, jax.Array, jax.Array, jax.Array, jax.Array, jax.Array]:
        deal_key, opp_key, run_key = jax.random.split(key, 3)
        n = players
        legal = core.legal(s)
        row = jnp.where(jnp.arange(n)[:, None] == me, legal, False).any(axis=0)
        mask = functional.env_mask(row, me, n)
        ok = (
            (action >= 0)
            & (action < NUM_ENV_ACTIONS)
            & mask[jnp.clip(action, 0, NUM_ENV_ACTIONS - 1)]
        )
        chosen = jnp.where(ok, action, jnp.argmax(mask))
        engine = functional.engine_action(chosen, me, n)
        others = random_actions(opp_key, s)
        actions = jnp.where(jnp.arange(n) == me, engine, others)
        played = _advance(core.step(s, actions), me, run_key)
        fresh, fresh_seat = _deal(players, fixed_seat, deal_key, variants)
        out = jax.tree.map(lambda f, p: jnp.where(again, f, p), fresh, played)
        seat_out = jnp.where(again, fresh_seat, me)
        obs, out_mask, rew = _outputs(out, seat_out, reward)
        over = out.phase == core.OVER
        return out, seat_out, obs, out_mask, jnp.where(again, 0.0, rew), over & ~again, ~ok & ~again

    return jax.vmap(one)(state, seat, env_actions, restart, keys)


class GoNutsVectorEnv(gymnasium.vector.VectorEnv[Any, Any, Any]):
    """``num_envs`` games of ``gonuts/GoNuts-v0`` as one JAX program (module docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - Gymnasium declares it an instance attribute
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 1,
        *,
        players: int = 3,
        seat: int | None = None,
        opponents: str = "random",
        reward: str = "win_share",
        illegal_action: IllegalPolicy = "raise",
        render_mode: str | None = None,
        variants: Sequence[str] = (),
    ) -> None:
        check_options(players, reward, illegal_action)
        self.variants = ordered(check_variants(variants))
        self._variant_bits = core.variant_mask(self.variants)
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"no seat {seat} in a {players}-player game")
        if opponents != "random":
            raise ValueError(
                f"the vector environment plays against random opponents on the device, "
                f"not {opponents!r} (use gonuts/GoNuts-v0 for bots)"
            )
        if render_mode is not None:
            raise ValueError("the vector environment does not render")
        self.num_envs = num_envs
        self.players = players
        self.fixed_seat = -1 if seat is None else seat
        self.reward_mode = reward
        self.illegal_action: IllegalPolicy = illegal_action
        self.render_mode = None
        self.single_observation_space = observation_space()
        self.single_action_space = spaces.Discrete(NUM_ENV_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._key = jax.random.key(0)
        self._state: State | None = None
        self._seat = jnp.zeros((num_envs,), jnp.int32)
        self._mask = np.zeros((num_envs, NUM_ENV_ACTIONS), np.int8)
        self._restart = np.zeros((num_envs,), bool)

    def _keys(self) -> jax.Array:
        self._key, sub = jax.random.split(self._key)
        return jax.random.split(sub, self.num_envs)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray[Any, Any]], dict[str, Any]]:
        if isinstance(seed, list):
            seed = seed[0]
        if seed is not None:
            self._key = jax.random.key(seed)
        elif self._state is None:
            self._key = jax.random.key(int(np.random.default_rng().integers(SEED_BOUND)))
        state, seat, obs, mask = _reset_all(
            self.players, self.fixed_seat, self.reward_mode, self._keys(), self._variant_bits
        )
        self._state, self._seat = state, seat
        self._restart = np.zeros((self.num_envs,), bool)
        return self._obs(obs, mask), self._info(np.zeros((self.num_envs,), bool))

    def step(
        self, actions: Any
    ) -> tuple[
        dict[str, np.ndarray[Any, Any]],
        np.ndarray[Any, Any],
        np.ndarray[Any, Any],
        np.ndarray[Any, Any],
        dict[str, Any],
    ]:
        if self._state is None:
            raise RuntimeError("step() before reset()")
        given = np.asarray(actions)
        if given.size != self.num_envs:
            raise ValueError(f"step() takes {self.num_envs} actions, not {given.size}")
        whole = given.dtype.kind in "iu"
        if self.illegal_action == "raise":
            if not whole:
                raise IllegalEnvActionError(
                    f"actions must be integers (environment ids), not {given.dtype}: {actions!r}"
                )
            for i, a in enumerate(given.reshape(self.num_envs)):
                if self._restart[i]:
                    continue
                if not (0 <= a < NUM_ENV_ACTIONS and self._mask[i, a]):
                    legal = np.flatnonzero(self._mask[i]).tolist()
                    raise IllegalEnvActionError(
                        f"environment {i}: action {int(a)} is not legal now; legal actions: "
                        f"{', '.join(map(str, legal))} (illegal_action='substitute' plays the "
                        "lowest legal action instead)"
                    )
        acts = (
            given.astype(np.int64).reshape(self.num_envs)
            if whole
            else np.full(self.num_envs, -1, np.int64)
        )
        state, seat, obs, mask, reward, over, illegal = _step_all(
            self.players,
            self.fixed_seat,
            self.reward_mode,
            self._state,
            self._seat,
            jnp.asarray(np.clip(acts, -1, NUM_ENV_ACTIONS), jnp.int32),
            jnp.asarray(self._restart),
            self._keys(),
            self._variant_bits,
        )
        self._state, self._seat = state, seat
        terminated = np.asarray(over)
        self._restart = terminated.copy()
        truncated = np.zeros((self.num_envs,), bool)
        rewards = np.asarray(reward, dtype=np.float64)
        return self._obs(obs, mask), rewards, terminated, truncated, self._info(np.asarray(illegal))

    def action_masks(self) -> np.ndarray[Any, Any]:
        """``int8 [num_envs, 521]``: the legal-action masks now (``MaskablePPO`` convention)."""
        return self._mask.copy()

    def describe_action(self, env_id: int) -> str:
        return describe_env_action(env_id)

    def _obs(self, obs: jax.Array, mask: jax.Array) -> dict[str, np.ndarray[Any, Any]]:
        self._mask = np.asarray(mask)
        return {"observation": np.asarray(obs), "action_mask": self._mask.copy()}

    def _info(self, illegal: np.ndarray[Any, Any]) -> dict[str, Any]:
        return {
            "seat": np.asarray(self._seat),
            "action_mask": self._mask.copy(),
            "illegal_action": illegal,
        }
