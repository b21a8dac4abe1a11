"""The ★ powers as array code: one named power per card, read from a static table.

As :mod:`gonuts.powers` has one class per card, this module has one entry per card in
:data:`POWERS`, each made of up to three pure functions of one game:

* ``start`` — what the power does the moment its card is taken, before any decision
  (:class:`Start`: Chocolate Frosted draws, Éclair takes the pile's top, Cinnamon Twist / Milk
  / Raspberry Frosted may discard themselves instead);
* ``choices`` — the actor's legal choices in the power's phase, as a mask over the compact
  slots (``seat * K + part``, the last slot ``stop``: :func:`gonuts.batch.state.width`);
* ``act`` — what one legal choice does (:class:`Effect`: which seat loses a card, which
  gains one, which kind, onto or out of the pile, which row position empties, whether the
  power is over), decoded from the action id with :func:`gonuts.choices.split`, the decoder
  :mod:`gonuts.powers` uses too.

A power that waits for nothing has no ``choices`` and no ``act``; a power whose card is
simply kept with nothing to do at once has no ``start``. The Cinnamon Twist's choices are
every seat's at once (:func:`pass_legal`) and its passes move in the simultaneous step of
:mod:`gonuts.batch.transition`.

:func:`start`, :func:`choices` and :func:`effect` pick the entry of the card or phase at hand.
Under ``vmap`` every entry is computed and the one that applies is selected field by field
(``lax.select_n`` over scalars), so a power costs a few scalar operations, not a branch.

>>> [C.KIND_IDS[p.kind] for p in POWERS if p.act is None]
['chocolate_frosted', 'eclair', 'cinnamon_twist']
>>> POWER_PHASE_OF_KIND[C.BEAR_CLAW] == BEAR_CLAW, POWER_PHASE_OF_KIND[C.GLAZED]
(True, -1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, NamedTuple, TypeVar

import jax.numpy as jnp
from jax import lax

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts import cards as C  # noqa: N812 - kind indexes by name
from gonuts.batch.state import (
    BEAR_CLAW,
    CINNAMON_TWIST,
    DAY_OLD,
    DAY_OLD_TAKES,
    DOUBLE_CHOCOLATE,
    FRENCH_CRULLER,
    MILK,
    MILK_ANY,
    MILK_DISCARDS,
    PHASES,
    RASPBERRY_FROSTED,
    RED_VELVET,
    RESOLVE,
    SPRINKLED,
    SPRINKLED_ANY,
    STRAWBERRY_GLAZED,
    TWIST_ANY,
    Array,
    K,
    State,
    at,
    deck_card,
    deck_size,
    flat,
    has,
    i32,
    num_players,
    onehot,
    row_of,
    stop_slot,
    width,
)
from gonuts.choices import CHOICE_BASE, split

# -- what a power does ----------------------------------------------------------------------------


class Taking(NamedTuple):
    """A card just taken from the row by a single taker: what a power's ``start`` reads."""

    s: State
    taker: Array
    gain: Array
    """``[n, K]`` the card taken, at (taker, card)."""
    owned: Array
    """The taker's cards, this one included."""


class Start(NamedTuple):
    """What a power does the moment its card is taken (scalars, bool)."""

    discards_itself: Array
    """The card goes onto the pile instead of into the collection; nothing else happens."""
    draws: Array
    """The taker gains the deck's top card."""
    takes_pile_top: Array
    """The taker gains the discard pile's top card."""


class Effect(NamedTuple):
    """What the actor's legal choice does in a one-player power phase (scalars)."""

    frm: Array
    """Seat that loses a card (``-1``: none)."""
    to: Array
    """Seat that gains it (``-1``: none)."""
    kind: Array
    push: Array
    """The card goes onto the discard pile."""
    pull: Array
    """The card comes out of the discard pile."""
    clear: Array
    """Row position emptied (``-1``: none)."""
    keeps: Array
    """Double Chocolate: ``kind`` is kept, the other drawn card put back (:func:`put_back`)."""
    counted: Array
    """One more Day-Old take or Milk discard."""
    finished: Array
    """The power is over (as ``Power.apply``)."""


def _start(
    *,
    discards_itself: Array | bool = False,
    draws: Array | bool = False,
    takes_pile_top: Array | bool = False,
) -> Start:
    return Start(
        discards_itself=jnp.asarray(discards_itself, bool),
        draws=jnp.asarray(draws, bool),
        takes_pile_top=jnp.asarray(takes_pile_top, bool),
    )


def _effect(
    kind: Array,
    *,
    frm: Array | int = -1,
    to: Array | int = -1,
    push: Array | bool = False,
    pull: Array | bool = False,
    clear: Array | int = -1,
    keeps: Array | bool = False,
    counted: Array | bool = False,
    finished: Array | bool = True,
) -> Effect:
    return Effect(
        frm=jnp.asarray(frm, jnp.int32),
        to=jnp.asarray(to, jnp.int32),
        kind=jnp.asarray(kind, jnp.int32),
        push=jnp.asarray(push, bool),
        pull=jnp.asarray(pull, bool),
        clear=jnp.asarray(clear, jnp.int32),
        keeps=jnp.asarray(keeps, bool),
        counted=jnp.asarray(counted, bool),
        finished=jnp.asarray(finished, bool),
    )


def _mine(s: State) -> Array:
    """``[K]`` the actor's collection."""
    return row_of(s, s.actor)


def _opponents_cards(s: State) -> Array:
    """``[width]`` the cards the actor's opponents own, by ``seat * K + kind``."""
    seats = jnp.arange(num_players(s))
    return flat((s.coll > 0) & (seats != s.actor)[:, None], num_players(s))


def _is_stop(a: Array) -> Array:
    return a == A.STOP_ID


# -- the powers, in the order of the cards --------------------------------------------------------


def _chocolate_frosted_start(t: Taking) -> Start:
    """Draw the top card of the deck; an empty deck: nothing."""
    return _start(draws=deck_size(t.s) > 0)


def _eclair_start(t: Taking) -> Start:
    """Take the top card of the discard pile; an empty pile: nothing."""
    return _start(takes_pile_top=t.s.pile_len > 0)


def _french_cruller_choices(s: State) -> Array:
    """Any row position no player selected this round, or stop (when there is one)."""
    n = num_players(s)
    picked = (s.picks[None, :] == jnp.arange(n + 1)[:, None]).any(axis=1)
    eligible = (s.row >= 0) & ~picked
    return flat(eligible, n) | (stop_slot(n) & eligible.any())


def _french_cruller(s: State, a: Array) -> Effect:
    """Discard the chosen row card; the power goes on until ``stop``."""
    stop = _is_stop(a)
    _, position = split(a, CHOICE_BASE[PHASES[FRENCH_CRULLER]])
    return _effect(
        at(s.row, position), push=~stop, clear=jnp.where(stop, -1, position), finished=stop
    )


def _double_chocolate_choices(s: State) -> Array:
    """Keep one of the deck's two top cards (the only one, with one card left)."""
    size = deck_size(s)
    kinds = jnp.arange(K)
    keep = (size > 0) & ((kinds == deck_card(s, 0)) | ((kinds == deck_card(s, 1)) & (size >= 2)))
    return flat(keep, num_players(s))


def _double_chocolate(s: State, a: Array) -> Effect:
    _, kept = split(a, CHOICE_BASE[PHASES[DOUBLE_CHOCOLATE]])
    return _effect(kept, to=s.actor, keeps=True)


def put_back(s: State, kept: Array) -> tuple[Array, Array, Array]:
    """Double Chocolate once ``kept`` is chosen: the deck (the other drawn card put back on
    top; the top moves one card on) and every seat's knowledge of the top card (``deck,
    known_len, known_kind``)."""
    n = num_players(s)
    size = deck_size(s)
    first = deck_card(s, 0)
    second = (first != kept) & (size >= 2)
    deck = jnp.where(second & (jnp.arange(s.deck.shape[0]) == s.top + 1), first, s.deck)
    # Another seat that knew one of the two drawn cards may deduce the one put back.
    other = (jnp.arange(n) != s.actor) & (s.known_len > 0)
    hit = other & ((s.known_len == size) | (s.known_len == size - 1))
    known_len = jnp.where(hit, jnp.where(s.known_kind != kept, size - 1, 0), s.known_len)
    known_len = jnp.where(known_len > size - 1, 0, known_len)
    me = (jnp.arange(n) == s.actor) & (size >= 2)
    return (
        deck,
        jnp.where(me, size - 1, known_len),
        jnp.where(me, at(deck, s.top + 1), s.known_kind),
    )


def _red_velvet_choices(s: State) -> Array:
    """Any kind in the discard pile."""
    return flat(s.pile_count > 0, num_players(s))


def _red_velvet(s: State, a: Array) -> Effect:
    _, kind = split(a, CHOICE_BASE[PHASES[RED_VELVET]])
    return _effect(kind, to=s.actor, pull=True)


def _sprinkled_choices(s: State) -> Array:
    """Give one of your other cards (this Sprinkled when you own no other) to an opponent;
    ``sprinkled_any_card``: any card you own."""
    kinds = jnp.arange(K)
    mine = _mine(s)
    others = (mine - (kinds == C.SPRINKLED)) > 0
    kinds_given = jnp.where(others.any(), others, kinds == C.SPRINKLED)
    kinds_given = jnp.where(has(s, SPRINKLED_ANY), mine > 0, kinds_given)
    seats = jnp.arange(num_players(s))
    return flat((seats != s.actor)[:, None] & kinds_given[None, :], num_players(s))


def _sprinkled(s: State, a: Array) -> Effect:
    seat, kind = split(a, CHOICE_BASE[PHASES[SPRINKLED]])
    return _effect(kind, frm=s.actor, to=seat)


def _bear_claw(s: State, a: Array) -> Effect:
    """Take the chosen card from the chosen opponent."""
    seat, kind = split(a, CHOICE_BASE[PHASES[BEAR_CLAW]])
    return _effect(kind, frm=seat, to=s.actor)


def _cinnamon_twist_start(t: Taking) -> Start:
    """Discard this Twist if some seat (its taker included) has no card it may pass."""
    s = t.s
    twist = onehot(num_players(s), t.taker, i32(C.CINNAMON_TWIST)) & ~has(s, TWIST_ANY)
    can_pass = ((s.coll + t.gain - twist) > 0).any(axis=1).all()
    return _start(discards_itself=~can_pass)


def pass_legal(s: State) -> Array:
    """``[n, K]`` bool: the kinds each seat may still pass in a Cinnamon Twist (its taker
    not the Twist, unless ``twist_pass_any``)."""
    n = num_players(s)
    twist = onehot(n, s.actor, i32(C.CINNAMON_TWIST)) & ~has(s, TWIST_ANY)
    waiting = (s.phase == CINNAMON_TWIST) & (s.passes < 0)
    return ((s.coll - twist) > 0) & waiting[:, None]


def _day_old_choices(s: State) -> Array:
    """Any kind in the discard pile, or stop, for up to three takes."""
    open_ = (s.step < DAY_OLD_TAKES) & (s.pile_len > 0)
    return (flat(s.pile_count > 0, num_players(s)) | stop_slot(num_players(s))) & open_


def _day_old(s: State, a: Array) -> Effect:
    stop = _is_stop(a)
    _, kind = split(a, CHOICE_BASE[PHASES[DAY_OLD]])
    return _effect(kind, to=jnp.where(stop, -1, s.actor), pull=~stop, counted=~stop, finished=stop)


def _milk_start(t: Taking) -> Start:
    """With fewer than three other cards (``milk_any_three``: cards) the Milk is discarded."""
    others = t.owned - jnp.where(has(t.s, MILK_ANY), 0, 1)
    return _start(discards_itself=others < MILK_DISCARDS)


def _milk_choices(s: State) -> Array:
    """Any other card you own, or this Milk as the first choice; ``milk_any_three``: any."""
    kinds = jnp.arange(K)
    mine = _mine(s)
    milk = ((mine > 0) & (kinds != C.MILK)) | ((kinds == C.MILK) & (s.step == 0))
    return flat(jnp.where(has(s, MILK_ANY), mine > 0, milk), num_players(s))


def _milk(s: State, a: Array) -> Effect:
    _, kind = split(a, CHOICE_BASE[PHASES[MILK]])
    # discarding the Milk itself first is the alternative that ends the power; only
    # milk_any_three lets a Milk be a later discard, which counts as one of the three
    alone = (kind == C.MILK) & (s.step == 0)
    done = alone | (s.step + 1 >= MILK_DISCARDS)
    return _effect(kind, frm=s.actor, push=True, counted=~alone, finished=done)


def _raspberry_frosted_start(t: Taking) -> Start:
    """With no other card, this Raspberry Frosted is discarded."""
    return _start(discards_itself=t.owned == 1)


def _raspberry_frosted_choices(s: State) -> Array:
    """One of your other cards."""
    kinds = jnp.arange(K)
    return flat((_mine(s) - (kinds == C.RASPBERRY_FROSTED)) > 0, num_players(s))


def _raspberry_frosted(s: State, a: Array) -> Effect:
    _, kind = split(a, CHOICE_BASE[PHASES[RASPBERRY_FROSTED]])
    return _effect(kind, frm=s.actor, push=True)


def _strawberry_glazed(s: State, a: Array) -> Effect:
    """Discard the chosen card of the chosen opponent."""
    seat, kind = split(a, CHOICE_BASE[PHASES[STRAWBERRY_GLAZED]])
    return _effect(kind, frm=seat, push=True)


# -- the table ------------------------------------------------------------------------------------


class Power(NamedTuple):
    """One card's power as array code (the counterpart of a :class:`gonuts.powers.Power`)."""

    kind: int
    phase: int
    """The phase it waits in once started (``-1``: it needs no decision)."""
    start: Callable[[Taking], Start] | None = None
    """What happens the moment its card is taken (``None``: nothing but keeping it)."""
    choices: Callable[[State], Array] | None = None
    """The actor's legal slots in ``phase`` (a power with a decision has both this and ``act``)."""
    act: Callable[[State, Array], Effect] | None = None
    """What one legal choice (an action id) does."""


POWERS: Final[tuple[Power, ...]] = (
    Power(C.CHOCOLATE_FROSTED, -1, start=_chocolate_frosted_start),
    Power(C.ECLAIR, -1, start=_eclair_start),
    Power(C.FRENCH_CRULLER, FRENCH_CRULLER, None, _french_cruller_choices, _french_cruller),
    Power(C.DOUBLE_CHOCOLATE, DOUBLE_CHOCOLATE, None, _double_chocolate_choices, _double_chocolate),
    Power(C.RED_VELVET, RED_VELVET, None, _red_velvet_choices, _red_velvet),
    Power(C.SPRINKLED, SPRINKLED, None, _sprinkled_choices, _sprinkled),
    Power(C.BEAR_CLAW, BEAR_CLAW, None, _opponents_cards, _bear_claw),
    Power(C.CINNAMON_TWIST, CINNAMON_TWIST, start=_cinnamon_twist_start),
    Power(C.DAY_OLD, DAY_OLD, None, _day_old_choices, _day_old),
    Power(C.MILK, MILK, _milk_start, _milk_choices, _milk),
    Power(C.RASPBERRY_FROSTED, RASPBERRY_FROSTED, _raspberry_frosted_start,
          _raspberry_frosted_choices, _raspberry_frosted),
    Power(C.STRAWBERRY_GLAZED, STRAWBERRY_GLAZED, None, _opponents_cards, _strawberry_glazed),
)  # fmt: skip
"""Every ★ power, in the order of the cards."""

POWER_PHASE_OF_KIND: Final = tuple(
    next((p.phase for p in POWERS if p.kind == kind), -1) for kind in range(K)
)
"""The phase each kind's power waits in once started (``-1``: none, or no power)."""

_STARTS: Final = tuple(p for p in POWERS if p.start is not None)
_DECISIONS: Final = tuple(p for p in POWERS if p.act is not None)
# the case of each kind's start / each phase's decision in those (0: none)
_START_CASE: Final = tuple(
    next((1 + i for i, p in enumerate(_STARTS) if p.kind == k), 0) for k in range(K)
)
_DECISION_CASE: Final = tuple(
    next((1 + i for i, p in enumerate(_DECISIONS) if p.phase == ph), 0) for ph in range(RESOLVE + 1)
)

_T = TypeVar("_T", Start, Effect)


def _switch(case: Array, default: _T, cases: Sequence[_T]) -> _T:
    """Field by field, ``cases[case - 1]`` (``default`` for case 0)."""
    return type(default)(
        *(lax.select_n(case, *field) for field in zip(default, *cases, strict=True))
    )


def start(t: Taking, card: Array) -> Start:
    """What the power of ``card`` does the moment ``t.taker`` takes it."""
    case = at(jnp.asarray(_START_CASE, jnp.int32), card)
    return _switch(case, _start(), [p.start(t) for p in _STARTS if p.start is not None])


def choices(s: State) -> Array:
    """``[width(n)]`` bool: the actor's choices in the one-player power phase ``s.phase``
    (none in any other phase)."""
    case = at(jnp.asarray(_DECISION_CASE, jnp.int32), s.phase)
    none = jnp.zeros((width(num_players(s)),), bool)
    masks = [p.choices(s) for p in _DECISIONS if p.choices is not None]
    return lax.select_n(case, none, *masks)


def effect(s: State, a: Array) -> Effect:
    """What the actor's legal action ``a`` does in the one-player power phase ``s.phase``."""
    case = at(jnp.asarray(_DECISION_CASE, jnp.int32), s.phase)
    return _switch(case, _effect(i32(-1)), [p.act(s, a) for p in _DECISIONS if p.act is not None])
