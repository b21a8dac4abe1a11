"""The whole game as one JAX program: B games at once, exact to the rules engine.

Install the ``batch`` extra (JAX). Every function takes and returns a :class:`State` whose
arrays carry a leading batch axis ``B``; the number of players is a static shape, so each
player count compiles once (per batch size). Action ids are those of :mod:`gonuts.actions`
(absolute seats); the observation is the one of :mod:`gonuts.envs.encoding`.

>>> import jax
>>> from gonuts import batch
>>> s = batch.new(3, key=jax.random.key(0), size=4)
>>> batch.legal(s).shape
(4, 3, 521)

* :func:`new` deals games; :func:`legal` lists legal actions; :func:`step` applies one
  decision per seat (``-1``: none) and runs every game to its next real decision, applying
  forced decisions (a single legal action) itself, as the rules engine does;
* :func:`done`, :func:`scores`, :func:`winners`, :func:`observe`, :func:`summary` read it.

See ``docs/batch.md`` for the state layout and the phase machine (:mod:`gonuts.batch.core`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gonuts.actions import ACTIONS, NUM_ACTIONS
from gonuts.batch import core
from gonuts.batch.core import State
from gonuts.cards import KIND_IDS, canonical_deck, check_player_count
from gonuts.envs.encoding import OBS_SIZE

__all__ = [
    "NUM_ACTIONS",
    "OBS_SIZE",
    "State",
    "done",
    "legal",
    "new",
    "observe",
    "scores",
    "step",
    "summary",
    "winners",
]


@partial(jax.jit, static_argnums=0)
def _new_from_decks(players: int, decks: jax.Array, variants: jax.Array) -> State:
    return jax.vmap(lambda d: core.initial(d, players, variants))(decks)


@partial(jax.jit, static_argnums=(0, 2))
def _new_random(players: int, key: jax.Array, size: int, variants: jax.Array) -> State:
    deck = jnp.asarray(canonical_deck(players), jnp.int32)
    keys = jax.random.split(key, size)
    decks = jax.vmap(lambda k: jax.random.permutation(k, deck))(keys)
    return jax.vmap(lambda d: core.initial(d, players, variants))(decks)


def new(
    players: int,
    decks: Any = None,
    *,
    key: jax.Array | None = None,
    size: int | None = None,
    variants: Iterable[str] = (),
) -> State:
    """Deal games: from ``decks`` (int ``[B, deck_len]``, kind ids top first) or, with
    ``key`` and ``size``, from ``size`` random shuffles.

    ``variants`` names house rules of RULES.md (:data:`gonuts.variants.VARIANTS`) played in
    every game dealt, as ``Game.new(..., variants=...)`` plays them; an unknown name raises
    :class:`gonuts.variants.UnknownVariantError`. They are data, not a shape: the default game
    and every variant share one compiled program."""
    check_player_count(players)
    bits = jnp.asarray(core.variant_mask(variants), jnp.int32)
    length = len(canonical_deck(players))
    if decks is not None:
        host = np.asarray(decks)
        if host.ndim != 2 or host.shape[1] != length or host.shape[0] < 1:
            raise ValueError(f"decks must be [B, {length}] for {players} players")
        want = np.asarray(canonical_deck(players))
        bad = np.flatnonzero((np.sort(host, axis=1) != want).any(axis=1))
        if bad.size:
            raise ValueError(f"deck {int(bad[0])} is not the deck for {players} players")
        arr = jnp.asarray(host, jnp.int32)
        dealt: State = _new_from_decks(players, arr, bits)
        return dealt
    if key is None or size is None or size < 1:
        raise ValueError("give decks, or a key and a size of at least 1")
    shuffled: State = _new_random(players, key, size, bits)
    return shuffled


legal = jax.jit(jax.vmap(core.legal))
"""``[B, players, NUM_ACTIONS]`` bool: each seat's legal actions (engine ids)."""

step = jax.jit(jax.vmap(core.step))
"""Apply ``actions`` (int ``[B, players]``, ``-1`` for a seat that does not act; an action
that is not legal is ignored like ``-1``) and run each game to its next decision.

In a simultaneous phase (selection, Cinnamon Twist passes) the seats may act in one step or
over several; the phase is carried out once the last choice arrives."""

done = jax.jit(jax.vmap(lambda s: s.phase == core.OVER))
"""``[B]`` bool: the game is over."""

scores = jax.jit(jax.vmap(lambda s: core.scores(s.coll)))
"""``[B, players]`` end-game scores of the collections as they are now."""

winners = jax.jit(jax.vmap(lambda s: s.winners))
"""``[B, players]`` bool: the winners (all false until the game is over)."""

_observe = jax.jit(jax.vmap(core.observe))


def observe(state: State, seat: Any) -> jax.Array:
    """``[B, OBS_SIZE]`` float32: each game's observation from ``seat`` (an int, or int
    ``[B]`` for one seat per game), as :func:`gonuts.envs.encoding.encode_observation`."""
    size = state.phase.shape[0]
    players = state.picks.shape[-1]
    if isinstance(seat, int) and not 0 <= seat < players:
        raise ValueError(f"no seat {seat} in a {players}-player game")
    seats = jnp.broadcast_to(jnp.asarray(seat, jnp.int32), (size,))
    obs: jax.Array = _observe(state, seats)
    return obs


def summary(state: State, b: int, players: Sequence[str] | None = None) -> dict[str, Any]:
    """Game ``b`` as the object ``gonuts replay --json`` prints (RECORD.md), exactly.

    ``players`` names the seats (default: the rules engine's ``Player 0``, … names).
    """
    if not 0 <= b < state.phase.shape[0]:
        raise IndexError(f"no game {b} in a batch of {state.phase.shape[0]}")
    # one game to the host (slicing device arrays field by field costs a dispatch each),
    # and its legal mask and scores alone, not the whole batch's
    one = jax.tree.map(lambda x: np.asarray(x)[b], state)
    game = jax.tree.map(jnp.asarray, one)
    return summary_from_arrays(
        one, np.asarray(_legal_one(game)), np.asarray(_scores_one(game)), players
    )


_legal_one = jax.jit(core.legal)
_scores_one = jax.jit(lambda s: core.scores(s.coll))


def summary_from_arrays(
    s: State,
    mask: np.ndarray[Any, Any],
    totals: np.ndarray[Any, Any],
    players: Sequence[str] | None = None,
) -> dict[str, Any]:
    """:func:`summary` of one game on the host: numpy fields without the batch axis, its
    legal mask ``[players, NUM_ACTIONS]`` and its scores."""
    n = int(s.picks.shape[0])
    names = [f"Player {i}" for i in range(n)] if players is None else list(players)
    if len(names) != n:
        raise ValueError(f"{len(names)} names for {n} players")
    over = int(s.phase) == core.OVER
    coll = s.coll.tolist()
    return {
        "players": names,
        "round": int(s.round),
        "over": over,
        "row": [KIND_IDS[c] if c >= 0 else None for c in s.row.tolist()],
        "deck_size": int(s.deck.shape[0] - s.top),
        "discard": [KIND_IDS[c] for c in s.pile[: int(s.pile_len)].tolist()],
        "collections": [{KIND_IDS[k]: c for k, c in enumerate(row) if c} for row in coll],
        "scores": [int(x) for x in totals],
        "winners": [p for p in range(n) if s.winners[p]] if over else [],
        # a seat must act exactly when it has a legal action
        "to_act": [
            {"player": p, "legal": sorted(ACTIONS[i].notation for i in np.flatnonzero(mask[p]))}
            for p in range(n)
            if mask[p].any()
        ],
    }
