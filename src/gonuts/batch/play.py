"""Uniformly random play on the device: the policy and whole games as one loop.

:func:`random_games` is the benchmark's workload. Its loop is *flat*: in every iteration each
game takes one :func:`gonuts.batch.core.transition` — a micro-step of
:func:`gonuts.batch.core.settle` or its seats' random decisions (a forced decision is a random
choice among one) — so no game waits for the slowest game of the batch to settle. Per game,
the sequence of rule operations is exactly the one of :func:`gonuts.batch.step`.

The dice are cheap integer hashes (:func:`uniforms`), turned into a choice among a row's true
entries by :func:`choose`:

>>> import jax.numpy as jnp
>>> mask = jnp.asarray([[True, False, True, True], [False, False, False, False]])
>>> prefix_sum(mask).tolist()
[[1, 1, 2, 3], [0, 0, 0, 0]]
>>> choose(jnp.asarray([0.5, 0.5]), mask).tolist()  # the 2nd of 3 entries; -1: none
[2, -1]
>>> u = uniforms(jnp.uint32(7), jnp.int32(0), (2, 3))
>>> u.shape, bool(((u >= 0) & (u < 1)).all())
((2, 3), True)
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
            core.one_player_phase(ph) & (seats == s.actor) & (own >= 0),
        ],
        [
            jnp.where(s.picks < 0, picks, -1),
            jnp.where(passes >= 0, passes + A.PASS_BASE, -1),
            core.action_of(ph, own, n),
        ],
        -1,
    ).astype(jnp.int32)


def _tick(s: State, u: jax.Array) -> tuple[State, jax.Array]:
    """One game, one iteration of the flat loop: one :func:`gonuts.batch.core.transition`
    with uniformly random choices drawn with ``u`` ([3, n] uniform numbers: the picks, the
    passes, the actor's choice).

    A choice among one (a forced decision) is that one, so forced and real decisions are the
    same draw; only choices among two or more count as decisions (``step`` applies the
    others itself).
    """
    n = core.num_players(s)
    mask = core.actor_legal(s)
    passable = core.pass_legal(s)
    count = mask.sum()
    picks = jnp.where(s.picks < 0, jnp.minimum((u[0] * (n + 1)).astype(jnp.int32), n), -1)
    passes = choose(u[1], passable)
    slot = choose(u[2, 0], mask)
    out = core.transition(s, picks, passes, slot, count, set_winners=False)
    ph = s.phase
    decisions = jnp.select(
        [ph == core.SELECT, ph == core.CINNAMON_TWIST, core.one_player_phase(ph)],
        [(picks >= 0).sum(), (passable.sum(axis=1) >= 2).sum(), (count >= 2).astype(jnp.int32)],
        0,
    )
    return out, decisions


def _hash(x: jax.Array) -> jax.Array:
    """A 32-bit integer hash (``lowbias32``): well-mixed bits from a counter."""
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def uniforms(seed: jax.Array, counter: jax.Array, shape: tuple[int, ...]) -> jax.Array:
    """float32 numbers in [0, 1) of ``shape``, a counter-based hash of ``seed`` (uint32),
    ``counter`` and each element's index.

    The random player's dice: a few integer operations per number, where JAX's threefry
    costs as much per iteration as the rules themselves on a CPU.
    """
    size = 1
    for d in shape:
        size *= d
    index = lax.iota(jnp.uint32, size).reshape(shape)
    x = _hash(index * jnp.uint32(0x9E3779B9) + _hash(seed ^ _hash(counter.astype(jnp.uint32))))
    return (x >> 8).astype(jnp.float32) * (1.0 / (1 << 24))


@partial(jax.jit, static_argnums=(0, 2))
def random_games(
    players: int, key: jax.Array, size: int, variants: jax.Array | int = 0
) -> tuple[State, jax.Array, jax.Array]:
    """Deal ``size`` random games (playing the ``variants`` bits, :func:`~gonuts.batch.core.
    variant_mask`) and play them to the end with uniformly random actions.

    Returns the final states, the decisions taken (all games) and the loop's iterations.
    """
    deal_key, play_key = jax.random.split(key)
    deck = jnp.asarray(canonical_deck(players), jnp.int32)
    decks = jax.vmap(lambda k: jax.random.permutation(k, deck))(jax.random.split(deal_key, size))
    state = jax.vmap(lambda d: core.initial(d, players, variants))(decks)
    tick = jax.vmap(_tick)
    seed = jax.random.bits(play_key, (), jnp.uint32)

    def running(carry: tuple[State, jax.Array, jax.Array]) -> jax.Array:
        return ~(carry[0].phase == core.OVER).all()

    def body(carry: tuple[State, jax.Array, jax.Array]) -> tuple[State, jax.Array, jax.Array]:
        s, decisions, ticks = carry
        s, taken = tick(s, uniforms(seed, ticks, (size, 3, players)))
        return s, decisions + taken.sum(), ticks + 1

    zero = jnp.zeros((), jnp.int32)
    final, decisions, ticks = lax.while_loop(running, body, (state, zero, zero))
    # the winners once, from the final collections (the loop does not set them)
    final = final._replace(winners=jax.vmap(core.winners)(final.coll))
    return final, decisions, ticks
