"""What one seat sees: the observation vector of :mod:`gonuts.envs.encoding`, built from the
arrays of one game and from nothing that seat may not know.

>>> import jax.numpy as jnp
>>> from gonuts.batch.state import initial
>>> from gonuts.cards import canonical_deck
>>> from gonuts.envs.encoding import OBS_SIZE
>>> s = initial(jnp.asarray(canonical_deck(3)), 3)
>>> observe(s, jnp.int32(0)).shape == (OBS_SIZE,)
True
"""

from __future__ import annotations

import jax.numpy as jnp

from gonuts import cards as C  # noqa: N812 - kind indexes by name
from gonuts.batch.legal import legal, to_act
from gonuts.batch.scoring import scores
from gonuts.batch.state import (
    CINNAMON_TWIST,
    DAY_OLD,
    DOUBLE_CHOCOLATE,
    MAX_PLAYERS,
    MAX_POSITIONS,
    MILK,
    OVER,
    PHASES,
    SELECT,
    Array,
    K,
    State,
    deck_card,
    deck_size,
    i32,
    num_players,
)


def _onehot_vec(index: Array, size: int, on: Array) -> Array:
    return ((jnp.arange(size) == index) & on).astype(jnp.float32)


def _seats(x: Array, me: Array) -> Array:
    """Seat-major ``x`` ([n] or [n, m]) with seats relative to ``me``, padded to 6 seats."""
    rel = jnp.roll(x, -me, axis=0)
    pad = [(0, MAX_PLAYERS - x.shape[0])] + [(0, 0)] * (x.ndim - 1)
    return jnp.pad(rel, pad).astype(jnp.float32).reshape(-1)


def observe(s: State, seat: Array) -> Array:
    """The observation vector of :func:`gonuts.envs.encoding.encode_observation` for ``seat``.

    Built only from what ``seat`` may know: the deck order is read only for the cards this
    seat drew with Double Chocolate or put back itself.
    """
    n = num_players(s)
    me = jnp.asarray(seat, jnp.int32)
    ph = s.phase
    power = (ph != SELECT) & (ph < OVER)
    waiting = to_act(s)
    size = deck_size(s)
    row_slots = jnp.where(s.row >= 0, s.row, K)
    row = (row_slots[:, None] == jnp.arange(K + 1)[None, :]).astype(jnp.float32)
    row = jnp.pad(row, ((0, MAX_POSITIONS - n - 1), (0, 0))).reshape(-1)
    seats = jnp.arange(n)
    shown = (s.picks >= 0) & ((ph != SELECT) | (seats == me))
    selections = (s.picks[:, None] == jnp.arange(MAX_POSITIONS)[None, :]) & shown[:, None]
    kinds = jnp.arange(K)
    top = s.pile[jnp.maximum(s.pile_len - 1, 0)]
    drawing = (ph == DOUBLE_CHOCOLATE) & (s.actor == me)
    t0, t1 = deck_card(s, 0), deck_card(s, 1)
    drawn = (drawing & (size > 0) & (kinds == t0)).astype(jnp.float32) + (
        drawing & (size > 1) & (kinds == t1)
    ).astype(jnp.float32)
    known = (s.known_len[me] == size) & (s.known_len[me] > 0)
    known_top = _onehot_vec(s.known_kind[me], K, known)
    seen = s.row[:, None] == kinds[None, :]
    full = jnp.asarray(C.deck_counts(n), jnp.float32)
    unseen = (
        full
        - seen.sum(axis=0)
        - s.pile_count
        - s.coll.sum(axis=0)
        - drawn
        - jnp.where(drawing, 0.0, known_top)
    )
    my_pass = _onehot_vec(s.passes[me], K, (ph == CINNAMON_TWIST) & (s.passes[me] >= 0))
    return jnp.concatenate(
        [
            _onehot_vec(i32(n - C.MIN_PLAYERS), MAX_PLAYERS - C.MIN_PLAYERS + 1, jnp.bool_(True)),
            _onehot_vec(ph, len(PHASES), jnp.bool_(True)),
            legal(s)[me].any()[None].astype(jnp.float32),
            _seats(waiting, me),
            _onehot_vec((s.actor - me) % n, MAX_PLAYERS, power),
            _onehot_vec(s.pos, MAX_POSITIONS, power),
            jnp.where((ph == DAY_OLD) | (ph == MILK), s.step, 0)[None].astype(jnp.float32),
            s.round[None].astype(jnp.float32),
            size[None].astype(jnp.float32),
            row,
            _seats(selections, me),
            _seats(s.coll, me),
            _seats(s.coll.sum(axis=1), me),
            _seats(scores(s.coll), me),
            s.pile_count.astype(jnp.float32),
            _onehot_vec(top, K, s.pile_len > 0),
            drawn,
            known_top,
            my_pass,
            unseen.astype(jnp.float32),
        ]
    )
