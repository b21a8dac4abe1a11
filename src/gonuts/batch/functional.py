"""A pgx-style functional environment over :mod:`gonuts.batch.core`: pure functions of one
game that JAX RL code can ``jit`` and ``vmap`` end to end.

>>> import jax
>>> from gonuts.batch import functional as F
>>> state = F.init(jax.random.key(0), 3)
>>> int(F.current_player(state)), int(F.legal_action_mask(state).sum())
(0, 4)

The game is played one decision at a time: :func:`current_player` is the lowest seat that
must act, and :func:`step` applies its action. In a simultaneous phase (selection, Cinnamon
Twist) the seats thus choose one after the other, but an observation never shows another
seat's pending choice, so nobody learns anything from going later. Actions are the
environment ids of :mod:`gonuts.envs.encoding` (seats relative to the actor); an action that is
not legal is replaced by the lowest legal id, as the Gymnasium environments do.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import jax
import jax.numpy as jnp

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts.batch import core
from gonuts.batch.core import State
from gonuts.cards import MAX_PLAYERS, NUM_KINDS, canonical_deck

K: Final = NUM_KINDS
_SEATED: Final = (A.TAKE_FROM_BASE, A.GIVE_BASE, A.DISCARD_FROM_BASE)


def init(key: jax.Array, players: int, variants: Iterable[str] = ()) -> State:
    """A new game for ``players`` (static) with a deck shuffled by ``key``, playing the
    house-rule ``variants`` (names of :data:`gonuts.variants.VARIANTS`)."""
    deck = jax.random.permutation(key, jnp.asarray(canonical_deck(players), jnp.int32))
    return core.initial(deck, players, core.variant_mask(variants))


def current_player(state: State) -> jax.Array:
    """The seat to act (lowest of those who must act); ``-1`` when the game is over."""
    waiting = core.to_act(state)
    return jnp.where(waiting.any(), jnp.argmax(waiting), -1).astype(jnp.int32)


def terminated(state: State) -> jax.Array:
    return state.phase == core.OVER


def env_mask(legal_row: jax.Array, seat: jax.Array, players: int) -> jax.Array:
    """A seat's engine legal row ``[NUM_ACTIONS]`` → its environment ids (relative seats)."""
    out = legal_row
    for base in _SEATED:
        block = legal_row[base : base + MAX_PLAYERS * K].reshape(MAX_PLAYERS, K)[:players]
        rel = jnp.roll(block, -seat, axis=0)
        rel = jnp.pad(rel, ((0, MAX_PLAYERS - players), (0, 0))).reshape(-1)
        out = out.at[base : base + MAX_PLAYERS * K].set(rel)
    return out


def engine_action(env_id: jax.Array, seat: jax.Array, players: int) -> jax.Array:
    """Environment id → engine action id for ``seat`` (seated verbs made absolute)."""
    out = env_id
    for base in _SEATED:
        rel, kind = jnp.divmod(env_id - base, K)
        inside = (env_id >= base) & (env_id < base + MAX_PLAYERS * K)
        out = jnp.where(inside, base + ((rel + seat) % players) * K + kind, out)
    return out.astype(jnp.int32)


def legal_action_mask(state: State) -> jax.Array:
    """``[NUM_ACTIONS]`` bool over environment ids: the current player's legal actions."""
    seat = jnp.maximum(current_player(state), 0)
    n = core.num_players(state)
    row = jnp.where(jnp.arange(n)[:, None] == seat, core.legal(state), False).any(axis=0)
    return env_mask(row, seat, n) & ~terminated(state)


def observe(state: State, player: jax.Array) -> jax.Array:
    """``float32[OBS_SIZE]``: the observation of ``player`` (as :mod:`gonuts.envs.encoding`)."""
    return core.observe(state, player)


def step(state: State, action: jax.Array) -> State:
    """The current player takes ``action`` (an environment id); the game runs to the next
    decision. A finished game is returned unchanged."""
    n = core.num_players(state)
    seat = current_player(state)
    mask = legal_action_mask(state)
    chosen = jnp.where(mask[jnp.clip(action, 0, A.NUM_ACTIONS - 1)] & (action >= 0), action, -1)
    chosen = jnp.where(chosen >= 0, chosen, jnp.argmax(mask))
    engine = engine_action(chosen, jnp.maximum(seat, 0), n)
    actions = jnp.where(jnp.arange(n) == seat, engine, -1).astype(jnp.int32)
    return core.step(state, actions)


def rewards(state: State, mode: str = "win_share") -> jax.Array:
    """``float32[players]``: 0 until the end, then ``win_share`` (1 split among the winners)
    or ``score_diff`` (own score minus the best other score), as
    :func:`gonuts.envs.encoding.terminal_rewards`."""
    over = terminated(state)
    if mode == "win_share":
        share = state.winners / jnp.maximum(state.winners.sum(), 1)
        return jnp.where(over, share, 0.0).astype(jnp.float32)
    if mode == "score_diff":
        totals = core.scores(state.coll)
        n = totals.shape[0]
        others = jnp.where(jnp.eye(n, dtype=bool), -(2**31), totals[None, :])
        return jnp.where(over, totals - others.max(axis=1), 0).astype(jnp.float32)
    raise ValueError(f"unknown reward mode {mode!r} (choose from: win_share, score_diff)")
