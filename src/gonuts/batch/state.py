"""One game as fixed-shape int arrays: :class:`State`, its constants, and the small array
helpers every rule of :mod:`gonuts.batch` is written with.

Every function of the batch modules works on one game (no batch axis) and is pure, so
:mod:`gonuts.batch` can ``vmap`` and ``jit`` it. The number of players is not a field: it is
the length of ``picks``, a static shape, so each player count compiles to its own program.

>>> import jax.numpy as jnp
>>> from gonuts.cards import canonical_deck
>>> s = initial(jnp.asarray(canonical_deck(3)), 3)
>>> num_players(s), s.row.shape, int(deck_size(s)), int(s.phase) == SELECT
(3, (4,), 46, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

import jax
import jax.numpy as jnp

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts import cards as C  # noqa: N812 - kind indexes by name
from gonuts.choices import CHOICE_BASE
from gonuts.state import Phase
from gonuts.variants import VARIANTS, check_variants

Array = jax.Array

K: Final = C.NUM_KINDS
NUM_ACTIONS: Final = A.NUM_ACTIONS
MAX_PLAYERS: Final = C.MAX_PLAYERS
MAX_POSITIONS: Final = A.MAX_POSITIONS

PHASES: Final[tuple[Phase, ...]] = tuple(Phase)
"""Phase ids: the index in :class:`gonuts.state.Phase` (the order the observation uses)."""
SELECT: Final = PHASES.index(Phase.SELECT)
FRENCH_CRULLER: Final = PHASES.index(Phase.FRENCH_CRULLER)
DOUBLE_CHOCOLATE: Final = PHASES.index(Phase.DOUBLE_CHOCOLATE)
RED_VELVET: Final = PHASES.index(Phase.RED_VELVET)
SPRINKLED: Final = PHASES.index(Phase.SPRINKLED)
BEAR_CLAW: Final = PHASES.index(Phase.BEAR_CLAW)
CINNAMON_TWIST: Final = PHASES.index(Phase.CINNAMON_TWIST)
DAY_OLD: Final = PHASES.index(Phase.DAY_OLD)
MILK: Final = PHASES.index(Phase.MILK)
RASPBERRY_FROSTED: Final = PHASES.index(Phase.RASPBERRY_FROSTED)
STRAWBERRY_GLAZED: Final = PHASES.index(Phase.STRAWBERRY_GLAZED)
OVER: Final = PHASES.index(Phase.OVER)
RESOLVE: Final = len(PHASES)
"""Internal: resolving picked positions from ``pos`` on. Never seen outside ``step``."""

MILK_DISCARDS: Final = 3
DAY_OLD_TAKES: Final = 3

VARIANT_BITS: Final = {name: 1 << i for i, name in enumerate(VARIANTS)}
"""The bit of each house-rule variant (:mod:`gonuts.variants`) in :attr:`State.variants`."""
SPRINKLED_ANY: Final = VARIANT_BITS["sprinkled_any_card"]
MILK_ANY: Final = VARIANT_BITS["milk_any_three"]
TWIST_ANY: Final = VARIANT_BITS["twist_pass_any"]

BASE: Final = (*(CHOICE_BASE.get(ph, 0) for ph in PHASES), 0)
"""Where each phase's choices start among the action ids (:data:`gonuts.choices.CHOICE_BASE`,
by phase id; 0 for ``OVER`` and ``RESOLVE``): compact slot ``c`` is action ``BASE[phase] + c``."""


def variant_mask(names: Iterable[str] = ()) -> int:
    """The :attr:`State.variants` bits of the variant ``names`` (checked: an unknown name
    raises :class:`gonuts.variants.UnknownVariantError`).

    >>> variant_mask(["milk_any_three"]) == VARIANT_BITS["milk_any_three"]
    True
    """
    chosen = check_variants(names)
    return sum(VARIANT_BITS[name] for name in chosen)


class State(NamedTuple):
    """One game (or, with a leading batch axis, B games) as fixed-shape int arrays.

    ``n`` players, ``D`` = the deck length for ``n``. Card kinds are indexes of
    :data:`gonuts.cards.KINDS`; ``-1`` marks an empty slot everywhere.
    """

    deck: Array
    """``[D]`` the deck as dealt, top first; cards before ``top`` have left it."""
    top: Array
    """``[]`` index of the deck's top card in ``deck`` (the deck holds ``D - top`` cards)."""
    row: Array
    """``[n+1]`` row positions, ``-1`` where empty."""
    pile: Array
    """``[D]`` the discard pile, bottom first; ``-1`` past ``pile_len``."""
    pile_len: Array
    pile_count: Array
    """``[K]`` count of each kind in the discard pile."""
    coll: Array
    """``[n, K]`` collections."""
    round: Array
    phase: Array
    """A :class:`gonuts.state.Phase` index (``RESOLVE`` only inside ``step``)."""
    pos: Array
    """Row position (0-based) being resolved."""
    actor: Array
    """Seat resolving a power (``-1`` before the first power)."""
    step: Array
    """Day-Old takes / Milk discards so far."""
    picks: Array
    """``[n]`` this round's selections (0-based), ``-1`` until chosen."""
    passes: Array
    """``[n]`` Cinnamon Twist: kind each seat passes, ``-1`` until chosen."""
    known_len: Array
    """``[n]`` Double Chocolate knowledge: seat knows the card that is top when the deck
    holds ``known_len`` cards (0: knows nothing)."""
    known_kind: Array
    """``[n]`` the kind that seat knows."""
    winners: Array
    """``[n]`` bool, set when the game ends."""
    variants: Array
    """``[]`` the house-rule variants in play, as :data:`VARIANT_BITS` (0: the default game).
    A value, not a shape: games with different variants share one compiled program."""


def num_players(s: State) -> int:
    """Players of a state (static: a shape)."""
    return int(s.picks.shape[-1])


def i32(x: int) -> Array:
    """A scalar int32 constant."""
    return jnp.asarray(x, jnp.int32)


def initial(deck: Array, n: int, variants: int | Array = 0) -> State:
    """A dealt game for ``n`` players from ``deck`` (kind ids, top first), playing the
    variants ``variants`` (:func:`variant_mask`)."""
    d = deck.shape[0]
    deck = deck.astype(jnp.int32)
    minus = jnp.full((n,), -1, jnp.int32)
    return State(
        deck=deck,
        top=i32(n + 1),
        row=deck[: n + 1],
        pile=jnp.full((d,), -1, jnp.int32),
        pile_len=i32(0),
        pile_count=jnp.zeros((K,), jnp.int32),
        coll=jnp.zeros((n, K), jnp.int32),
        round=i32(1),
        phase=i32(SELECT),
        pos=i32(0),
        actor=i32(-1),
        step=i32(0),
        picks=minus,
        passes=minus,
        known_len=jnp.zeros((n,), jnp.int32),
        known_kind=minus,
        winners=jnp.zeros((n,), bool),
        variants=jnp.asarray(variants, jnp.int32),
    )


# -- array helpers: under vmap a dense compare-and-sum beats a gather on small arrays -------------


def has(s: State, bit: int) -> Array:
    """Whether the variant ``bit`` is in play."""
    return (s.variants & bit) != 0


def at(x: Array, i: Array) -> Array:
    """``x[i]`` for a 1-d ``x`` as a masked sum (0 when ``i`` is out of range).

    Under ``vmap`` an index with a batch axis becomes a gather, slow on CPU; a compare and a
    sum over a few dozen elements vectorise well.
    """
    return jnp.where(jnp.arange(x.shape[0]) == i, x, 0).sum()


def onehot(n: int, seat: Array, kind: Array) -> Array:
    """``[n, K]`` 1 at (seat, kind); all zeros for seat ``-1``."""
    return (jnp.arange(n)[:, None] == seat) & (jnp.arange(K)[None, :] == kind)


def row_of(s: State, seat: Array) -> Array:
    """``coll[seat]`` as a one-hot sum (a dense op, cheaper than a batched gather)."""
    return jnp.where((jnp.arange(s.coll.shape[0]) == seat)[:, None], s.coll, 0).sum(axis=0)


def deck_size(s: State) -> Array:
    return s.deck.shape[-1] - s.top


def deck_card(s: State, i: int) -> Array:
    """The ``i``-th card from the deck's top (0 past its end)."""
    return at(s.deck, s.top + i)


def one_player_phase(phase: Array) -> Array:
    """Whether ``phase`` waits for the actor alone (a power's decision, not the Twist's)."""
    return (phase != SELECT) & (phase != CINNAMON_TWIST) & (phase < OVER)


# -- the compact action layout --------------------------------------------------------------------


def width(n: int) -> int:
    """Slots of the compact action layout for ``n`` players: ``seat * K + part``, and a last
    slot for ``stop`` (see :func:`gonuts.batch.legal.actor_legal`)."""
    return n * K + 1


def flat(x: Array, n: int) -> Array:
    """A ``[K]`` or ``[n, K]`` (or shorter) slot mask → ``[width(n)]`` (stop slot false)."""
    out = x.reshape(-1)
    return jnp.pad(out, (0, width(n) - out.shape[0]))


def stop_slot(n: int) -> Array:
    """``[width(n)]`` bool: the ``stop`` slot alone."""
    return jnp.arange(width(n)) == width(n) - 1
