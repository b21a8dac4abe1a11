"""The whole game as array code for one game: the public face of :mod:`gonuts.batch`'s rules,
and the loop that runs a game from one decision to the next.

The rules live in one module per concern, read in this order:

* :mod:`gonuts.batch.state` — :class:`State` (a game as fixed-shape int arrays), the phase
  ids and the array helpers;
* :mod:`gonuts.batch.powers` — one named power per ★ card, from a static table: what it does
  when its card is taken, its choices, what a choice does;
* :mod:`gonuts.batch.legal` — every seat's legal actions (a compact layout, and the 521 ids);
* :mod:`gonuts.batch.transition` — one change of a game, in four steps (simultaneous choices,
  a power's decision, resolving a position, refilling the row);
* :mod:`gonuts.batch.scoring`, :mod:`gonuts.batch.observe` — scores, winners, and what one
  seat sees.

This module re-exports their public names (``core.State``, ``core.transition``,
``core.legal``, …) and adds :func:`step`: one ``lax.while_loop`` around one
:func:`transition`, whose first iteration applies the seats' actions and whose following ones
apply what needs no decision (resolving, refilling, forced choices) until the game waits for
a real decision — so the compiled program holds a single copy of the rules.

>>> import jax.numpy as jnp
>>> from gonuts.cards import canonical_deck
>>> s = initial(jnp.asarray(canonical_deck(2)), 2)
>>> s = step(s, jnp.asarray([0, 1], jnp.int32))  # both pick: the round resolves
>>> int(s.phase) == SELECT, int(s.round)
(True, 2)
>>> s.coll.sum(axis=1).tolist()  # an unshuffled deck: two Chocolate Frosted, each draws
[2, 2]
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts.batch.legal import (
    action_of,
    actor_legal,
    compact_legal,
    legal,
    pass_legal,
    slot_of,
    to_act,
)
from gonuts.batch.observe import observe
from gonuts.batch.powers import POWER_PHASE_OF_KIND, POWERS
from gonuts.batch.scoring import scores, winners
from gonuts.batch.state import (
    BEAR_CLAW,
    CINNAMON_TWIST,
    DAY_OLD,
    DAY_OLD_TAKES,
    DOUBLE_CHOCOLATE,
    FRENCH_CRULLER,
    MAX_PLAYERS,
    MAX_POSITIONS,
    MILK,
    MILK_DISCARDS,
    NUM_ACTIONS,
    OVER,
    PHASES,
    RASPBERRY_FROSTED,
    RED_VELVET,
    RESOLVE,
    SELECT,
    SPRINKLED,
    STRAWBERRY_GLAZED,
    VARIANT_BITS,
    Array,
    K,
    State,
    deck_size,
    i32,
    initial,
    num_players,
    one_player_phase,
    variant_mask,
    width,
)
from gonuts.batch.transition import transition

__all__ = [
    "BEAR_CLAW",
    "CINNAMON_TWIST",
    "DAY_OLD",
    "DAY_OLD_TAKES",
    "DOUBLE_CHOCOLATE",
    "FRENCH_CRULLER",
    "MAX_PLAYERS",
    "MAX_POSITIONS",
    "MILK",
    "MILK_DISCARDS",
    "NUM_ACTIONS",
    "OVER",
    "PHASES",
    "POWERS",
    "POWER_PHASE_OF_KIND",
    "RASPBERRY_FROSTED",
    "RED_VELVET",
    "RESOLVE",
    "SELECT",
    "SPRINKLED",
    "STRAWBERRY_GLAZED",
    "VARIANT_BITS",
    "Array",
    "K",
    "State",
    "action_of",
    "actor_legal",
    "apply_actions",
    "compact_legal",
    "deck_size",
    "initial",
    "legal",
    "num_players",
    "observe",
    "one_player_phase",
    "pass_legal",
    "scores",
    "settle",
    "slot_of",
    "step",
    "to_act",
    "transition",
    "variant_mask",
    "width",
    "winners",
]


def _decoded(s: State, actions: Array, compact: Array | None) -> tuple[Array, Array, Array]:
    """The :func:`transition` inputs (``picks, passes, slot``) of the seats' ``actions``;
    ``-1`` or an action that is not legal is no action. ``compact`` is :func:`compact_legal`
    of ``s``; ``None`` trusts that every action ``>= 0`` is legal."""
    n = num_players(s)
    ph = s.phase
    if compact is None:
        valid = actions >= 0
    else:
        slots = slot_of(ph, actions, n)
        valid = (compact & (jnp.arange(width(n))[None, :] == slots[:, None])).any(axis=1)
    own = jnp.where(valid & (jnp.arange(n) == s.actor), actions, -1).max()
    return (
        jnp.where(valid, actions - A.PICK_BASE, -1),
        jnp.where(valid, actions - A.PASS_BASE, -1),
        jnp.where(own >= 0, slot_of(ph, own, n), -1),
    )


def apply_actions(s: State, actions: Array, compact: Array | None) -> State:
    """Record every seat's legal action (``-1`` or an illegal id: no action) and carry out
    what is complete: a full selection is revealed, a full set of passes moves, a one-player
    decision is applied. :func:`settle` then runs the game to its next decision.

    ``compact`` is :func:`compact_legal` of ``s``; ``None`` trusts that every action
    ``>= 0`` is legal.
    """
    picks, passes, slot = _decoded(s, actions, compact)
    # a power waiting for a decision does not end without one: count 2
    return transition(s, picks, passes, slot, i32(2))


# -- running forward to the next decision -------------------------------------------------------


def _busy(s: State, count: Array, passable: Array) -> Array:
    """Whether the game can move on without a decision."""
    one_player = one_player_phase(s.phase) & (count < 2)
    waiting = s.passes < 0
    twist = (s.phase == CINNAMON_TWIST) & (
        (waiting & (passable.sum(axis=1) == 1)).any() | ~waiting.any()
    )
    return (s.phase == RESOLVE) | one_player | twist


_Carry = tuple[State, Array, Array, Array, Array]
"""The loop of :func:`_run`: state, actor's mask, passable kinds, whether to go on, first."""


def _status(s: State, first: Array) -> _Carry:
    mask = actor_legal(s)
    passable = pass_legal(s)
    return s, mask, passable, first | _busy(s, mask.sum(), passable), first


def _run(carry: _Carry, decision: tuple[Array, Array, Array]) -> State:
    """A ``lax.while_loop`` of transitions: the first applies ``decision`` (``picks, passes,
    slot``) if the carry says *first*; the others apply forced choices (a power with at most
    one choice; Cinnamon Twist seats with one possible card), resolve and refill, until the
    game waits for a real decision. One transition in the program, not two."""
    picks, passes, slot = decision

    def body(c: _Carry) -> _Carry:
        st, mask, passable, _, first = c
        count = mask.sum()
        forced_slot = jnp.where(count == 1, jnp.argmax(mask), -1).astype(jnp.int32)
        alone = passable.sum(axis=1) == 1
        forced_passes = jnp.where(alone, jnp.argmax(passable, axis=1), -1).astype(jnp.int32)
        st = transition(
            st,
            jnp.where(first, picks, -1),
            jnp.where(first, passes, forced_passes),
            jnp.where(first, slot, forced_slot),
            jnp.where(first, 2, count),  # a decision step never ends a power by itself
        )
        return _status(st, jnp.bool_(False))

    return lax.while_loop(lambda c: c[3], body, carry)[0]


def settle(s: State) -> State:
    """Run the game forward (resolving, refilling, forced decisions) to its next decision."""
    n = num_players(s)
    none = jnp.full((n,), -1, jnp.int32)
    return _run(_status(s, jnp.bool_(False)), (none, none, i32(-1)))


def step(s: State, actions: Array) -> State:
    """One decision step of one game (see :func:`gonuts.batch.step`): the seats' legal
    actions, then everything up to the next decision, in one loop."""
    n = num_players(s)
    decision = _decoded(s, actions.astype(jnp.int32), compact_legal(s))
    start = (
        s,
        jnp.zeros((width(n),), bool),
        jnp.zeros((n, K), bool),
        jnp.bool_(True),
        jnp.bool_(True),
    )
    return _run(start, decision)
