"""Uniformly random play on the device: the policy and whole games as one loop.

:func:`random_games` is the benchmark's workload. Its loop is *flat*: in every iteration each
game either takes one micro-step of :func:`gonuts.batch.core.settle` (if it can move on by
itself) or draws its seats' random decisions and applies them, so no game waits for the
slowest game of the batch to settle. Per game, the sequence of rule operations is exactly the
one of :func:`gonuts.batch.step`.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts.batch import core
from gonuts.batch.core import State
from gonuts.cards import canonical_deck


def prefix_sum(x: jax.Array) -> jax.Array:
    """Inclusive prefix sums along the last axis, in log2(width) shifted adds.

    (XLA's cumsum on CPU is a reduce-window, far slower for these small rows.)
    """
    x = x.astype(jnp.int32)
    width = x.shape[-1]
    shift = 1
    while shift < width:
        pad = [(0, 0)] * (x.ndim - 1) + [(shift, 0)]
        x = x + jnp.pad(x, pad)[..., :width]
        shift *= 2
    return x


def random_choice(key: jax.Array, mask: jax.Array) -> jax.Array:
    """Per row of ``mask`` (``[..., W]`` bool), the index of a uniformly random true entry
    (``-1`` for a row with none)."""
    return choose(jax.random.uniform(key, mask.shape[:-1]), mask)


def choose(u: jax.Array, mask: jax.Array) -> jax.Array:
    """:func:`random_choice` with the uniform numbers ``u`` (``[...]`` in [0, 1)) given: the
    k-th true entry of each row, k = floor(u * count)."""
    count = mask.sum(axis=-1)
    k = jnp.minimum((u * count).astype(jnp.int32), count - 1)
    hit = mask & (prefix_sum(mask) - 1 == k[..., None])
    return jnp.where(count > 0, jnp.argmax(hit, axis=-1), -1).astype(jnp.int32)


def random_actions(key: jax.Array, s: State) -> jax.Array:
    """One game: a uniformly random legal action id per seat (``-1``: nothing to decide)."""
    u = jax.random.uniform(key, (3, core.num_players(s)))
    return _random_actions(u, s, core.actor_legal(s), core.pass_legal(s))


def _random_actions(u: jax.Array, s: State, mask: jax.Array, passable: jax.Array) -> jax.Array:
    # Only the rows that can hold a choice are searched: a selection is any of the n + 1
    # positions, a Cinnamon Twist pass one of K kinds, a power's choice a slot of the actor.
    # ``u`` is [3, n] uniform numbers: for the picks, the passes and the actor's choice.
    n = core.num_players(s)
    seats = jnp.arange(n)
    picks = jnp.minimum((u[0] * (n + 1)).astype(jnp.int32), n)
    passes = choose(u[1], passable)
    own = choose(u[2, 0], mask)
    ph = s.phase
    return jnp.select(
        [
            ph == core.SELECT,
            ph == core.CINNAMON_TWIST,
            core._one_player_phase(ph) & (seats == s.actor) & (own >= 0),
        ],
        [
            jnp.where(s.picks < 0, picks, -1),
            jnp.where(passes >= 0, passes + A.PASS_BASE, -1),
            core.action_of(ph, own, n),
        ],
        -1,
    ).astype(jnp.int32)


def _tick(s: State, u: jax.Array) -> tuple[State, jax.Array]:
    """One game, one iteration of the flat loop: a micro-step, or random decisions drawn
    with the uniform numbers ``u`` ([3, n])."""
    mask = core.actor_legal(s)
    passable = core.pass_legal(s)
    busy = core._busy(s, mask, passable)
    actions = _random_actions(u, s, mask, passable)
    decided = core.apply_actions(s, actions, None)
    moved = core._micro(s, mask, passable)
    out = core._choose(busy, moved, decided)
    return out, jnp.where(busy, 0, (actions >= 0).sum())


@partial(jax.jit, static_argnums=(0, 2))
def random_games(players: int, key: jax.Array, size: int) -> tuple[State, jax.Array, jax.Array]:
    """Deal ``size`` random games and play them to the end with uniformly random actions.

    Returns the final states, the decisions taken (all games) and the loop's iterations.
    """
    deal_key, play_key = jax.random.split(key)
    deck = jnp.asarray(canonical_deck(players), jnp.int32)
    decks = jax.vmap(lambda k: jax.random.permutation(k, deck))(jax.random.split(deal_key, size))
    state = jax.vmap(lambda d: core.initial(d, players))(decks)
    tick = jax.vmap(_tick)

    def running(carry: tuple[State, jax.Array, jax.Array, jax.Array]) -> jax.Array:
        return ~(carry[0].phase == core.OVER).all()

    def body(
        carry: tuple[State, jax.Array, jax.Array, jax.Array],
    ) -> tuple[State, jax.Array, jax.Array, jax.Array]:
        s, k, decisions, ticks = carry
        k, sub = jax.random.split(k)
        # one draw for the whole batch (a key per game per iteration costs more than the rules)
        s, taken = tick(s, jax.random.uniform(sub, (size, 3, players)))
        return s, k, decisions + taken.sum(), ticks + 1

    zero = jnp.zeros((), jnp.int32)
    final, _, decisions, ticks = lax.while_loop(running, body, (state, play_key, zero, zero))
    return final, decisions, ticks
