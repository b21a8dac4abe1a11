"""Legal actions: every seat's choices in the compact layout, and as the 521 action ids.

Every phase's choices lie in one block of the action ids (:data:`gonuts.choices.CHOICE_BASE`),
so a choice is a slot ``c`` of ``width(n) = n * K + 1``: ``pick``/``discard P`` by position,
``keep``/``take``/``pass``/``discard KIND`` by kind, ``take … from``/``give … to``/``discard
… from`` by ``seat * K + kind``, the last slot ``stop``; its action id is ``BASE[phase] + c``.
The rules only need the actor's compact row (its count, and its argmax when the choice is
forced; searching ``n * K + 1`` slots is much cheaper than 521 ids); :func:`legal` expands the
compact rows into the ids.

>>> import jax.numpy as jnp
>>> from gonuts.batch.state import initial
>>> from gonuts.cards import canonical_deck
>>> s = initial(jnp.asarray(canonical_deck(2)), 2)
>>> compact_legal(s).shape, legal(s).shape
((2, 47), (2, 521))
>>> int(action_of(s.phase, jnp.int32(2), 2))  # slot 2 of the selection: ``pick 3``
2
"""

from __future__ import annotations

import jax.numpy as jnp

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts.batch import powers
from gonuts.batch.state import (
    BASE,
    BEAR_CLAW,
    CINNAMON_TWIST,
    DAY_OLD,
    DOUBLE_CHOCOLATE,
    FRENCH_CRULLER,
    MAX_PLAYERS,
    MAX_POSITIONS,
    MILK,
    RASPBERRY_FROSTED,
    RED_VELVET,
    SELECT,
    SPRINKLED,
    STRAWBERRY_GLAZED,
    Array,
    K,
    State,
    at,
    num_players,
    one_player_phase,
    width,
)

pass_legal = powers.pass_legal


def actor_legal(s: State) -> Array:
    """``[width(n)]`` bool: the actor's choices in a one-player power phase, compact layout
    (the ``choices`` of its power, :mod:`gonuts.batch.powers`)."""
    return powers.choices(s)


def compact_legal(s: State) -> Array:
    """``[n, width(n)]`` bool: every seat's legal choices in the compact layout."""
    n = num_players(s)
    acting = (jnp.arange(n) == s.actor) & one_player_phase(s.phase)
    rows = acting[:, None] & actor_legal(s)[None, :]
    choosing = (s.phase == SELECT) & (s.picks < 0)
    picks = choosing[:, None] & (jnp.arange(width(n)) < n + 1)[None, :]
    passes = jnp.pad(pass_legal(s), ((0, 0), (0, width(n) - K)))
    return rows | picks | passes


def action_of(phase: Array, slot: Array, n: int) -> Array:
    """The action id of compact ``slot`` in ``phase``."""
    base = at(jnp.asarray(BASE, jnp.int32), phase)
    return jnp.where(slot == width(n) - 1, A.STOP_ID, base + slot).astype(jnp.int32)


def slot_of(phase: Array, action: Array, n: int) -> Array:
    """The compact slot of action id ``action`` in ``phase`` (``-1``: none)."""
    c = action - at(jnp.asarray(BASE, jnp.int32), phase)
    return jnp.where(
        action == A.STOP_ID, width(n) - 1, jnp.where((c >= 0) & (c < width(n) - 1), c, -1)
    )


def legal(s: State) -> Array:
    """``[n, NUM_ACTIONS]`` bool: every seat's legal actions now (engine action ids)."""
    n = num_players(s)
    ph = s.phase
    c = compact_legal(s)
    kinds = c[:, :K]
    seated = jnp.pad(c[:, : n * K], ((0, 0), (0, (MAX_PLAYERS - n) * K)))
    return jnp.concatenate(
        [
            c[:, :MAX_POSITIONS] & (ph == SELECT),
            c[:, :MAX_POSITIONS] & (ph == FRENCH_CRULLER),
            c[:, -1:],
            kinds & (ph == DOUBLE_CHOCOLATE),
            kinds & ((ph == RED_VELVET) | (ph == DAY_OLD)),
            seated & (ph == BEAR_CLAW),
            seated & (ph == SPRINKLED),
            kinds & (ph == CINNAMON_TWIST),
            kinds & ((ph == MILK) | (ph == RASPBERRY_FROSTED)),
            seated & (ph == STRAWBERRY_GLAZED),
        ],
        axis=1,
    )


def to_act(s: State) -> Array:
    """``[n]`` bool: seats that must act now."""
    n = num_players(s)
    ph = s.phase
    return jnp.select(
        [ph == SELECT, ph == CINNAMON_TWIST, one_player_phase(ph)],
        [s.picks < 0, s.passes < 0, jnp.arange(n) == s.actor],
        jnp.zeros((n,), bool),
    )
