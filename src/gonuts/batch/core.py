"""The rules of :mod:`gonuts.rules` and :mod:`gonuts.powers` as array code for one game.

Every function here works on one game's :class:`State` (no batch axis) and is pure, so
:mod:`gonuts.batch` can ``vmap`` and ``jit`` it. The number of players is not a field: it is
the length of ``picks``, a static shape, so each player count compiles to its own program.

The phase machine
-----------------
The rules engine resolves a round with Python control flow (a loop over row positions that
stops at a pending decision and resumes later). Here that loop is data: an internal phase
``RESOLVE`` means "resolve the picked positions from ``pos`` on", and :func:`settle` runs a
``lax.while_loop`` of *micro-steps* until the game waits for a real decision. Each micro-step
does exactly one of: resolve the next picked position (take or discard its card and start
the card's power), refill the row or end the game, apply a forced one-player decision (or end
the power when nothing is left to choose), or apply forced Cinnamon Twist passes. Card moves
are a few generic primitives (add to or remove from a collection, push onto or pull from the
discard pile), chosen by the phase with scalar selects, so a batched step costs the same
whatever the phase.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts import cards as C  # noqa: N812 - kind indexes by name
from gonuts import scoring
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
"""Internal: resolving picked positions from ``pos`` on. Never seen outside :func:`settle`."""

MILK_DISCARDS: Final = 3
DAY_OLD_TAKES: Final = 3

VARIANT_BITS: Final = {name: 1 << i for i, name in enumerate(VARIANTS)}
"""The bit of each house-rule variant (:mod:`gonuts.variants`) in :attr:`State.variants`."""
_SPRINKLED_ANY: Final = VARIANT_BITS["sprinkled_any_card"]
_MILK_ANY: Final = VARIANT_BITS["milk_any_three"]
_TWIST_ANY: Final = VARIANT_BITS["twist_pass_any"]


def variant_mask(names: Iterable[str] = ()) -> int:
    """The :attr:`State.variants` bits of the variant ``names`` (checked: an unknown name
    raises :class:`gonuts.variants.UnknownVariantError`)."""
    chosen = check_variants(names)
    return sum(VARIANT_BITS[name] for name in chosen)


# The phase a card's power waits in once started (-1: no decision phase).
_POWER_PHASE: Final = (
    (C.FRENCH_CRULLER, FRENCH_CRULLER),
    (C.DOUBLE_CHOCOLATE, DOUBLE_CHOCOLATE),
    (C.RED_VELVET, RED_VELVET),
    (C.SPRINKLED, SPRINKLED),
    (C.BEAR_CLAW, BEAR_CLAW),
    (C.CINNAMON_TWIST, CINNAMON_TWIST),
    (C.DAY_OLD, DAY_OLD),
    (C.MILK, MILK),
    (C.RASPBERRY_FROSTED, RASPBERRY_FROSTED),
    (C.STRAWBERRY_GLAZED, STRAWBERRY_GLAZED),
)
POWER_PHASE_OF_KIND: Final = tuple(
    next((ph for k, ph in _POWER_PHASE if k == kind), -1) for kind in range(K)
)

# Scoring tables as arrays (read from gonuts.scoring, the one source of the numbers).
_FIXED: Final = tuple(scoring.FIXED_POINTS.get(k, 0) for k in range(K))
_HOLES: Final = scoring.SET_TABLES[C.DONUT_HOLES]
_JELLY: Final = scoring.SET_TABLES[C.JELLY_FILLED]
_BOSTON: Final = scoring.SET_TABLES[C.BOSTON_CREAM]


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
    """A :class:`gonuts.state.Phase` index (``RESOLVE`` only inside :func:`settle`)."""
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


def _has(s: State, bit: int) -> Array:
    """Whether the variant ``bit`` is in play."""
    return (s.variants & bit) != 0


def _i(x: int) -> Array:
    return jnp.asarray(x, jnp.int32)


def initial(deck: Array, n: int, variants: int | Array = 0) -> State:
    """A dealt game for ``n`` players from ``deck`` (kind ids, top first), playing the
    variants ``variants`` (:func:`variant_mask`)."""
    d = deck.shape[0]
    deck = deck.astype(jnp.int32)
    minus = jnp.full((n,), -1, jnp.int32)
    return State(
        deck=deck,
        top=_i(n + 1),
        row=deck[: n + 1],
        pile=jnp.full((d,), -1, jnp.int32),
        pile_len=_i(0),
        pile_count=jnp.zeros((K,), jnp.int32),
        coll=jnp.zeros((n, K), jnp.int32),
        round=_i(1),
        phase=_i(SELECT),
        pos=_i(0),
        actor=_i(-1),
        step=_i(0),
        picks=minus,
        passes=minus,
        known_len=jnp.zeros((n,), jnp.int32),
        known_kind=minus,
        winners=jnp.zeros((n,), bool),
        variants=jnp.asarray(variants, jnp.int32),
    )


# -- card-moving primitives ---------------------------------------------------------------------


def _onehot(n: int, seat: Array, kind: Array) -> Array:
    """``[n, K]`` 1 at (seat, kind); all zeros for seat ``-1``."""
    return (jnp.arange(n)[:, None] == seat) & (jnp.arange(K)[None, :] == kind)


def _at(x: Array, i: Array) -> Array:
    """``x[i]`` for a 1-d ``x`` as a masked sum (0 when ``i`` is out of range).

    Under ``vmap`` an index with a batch axis becomes a gather, slow on CPU; a compare and a
    sum over a few dozen elements vectorise well.
    """
    return jnp.where(jnp.arange(x.shape[0]) == i, x, 0).sum()


def _set_points(table: tuple[int, ...], count: Array) -> Array:
    return jnp.asarray(table, jnp.int32)[jnp.minimum(count, len(table) - 1)]


def deck_size(s: State) -> Array:
    return s.deck.shape[-1] - s.top


def _deck_card(s: State, i: Array) -> Array:
    return _at(s.deck, s.top + i)


# -- legal actions ------------------------------------------------------------------------------


def _one_player_phase(phase: Array) -> Array:
    return (phase != SELECT) & (phase != CINNAMON_TWIST) & (phase < OVER)


def width(n: int) -> int:
    """Slots of the compact action layout for ``n`` players (see :func:`compact_legal`)."""
    return n * K + 1


# Where each phase's choices start in the action ids: slot c of the compact layout is action
# ``_BASE[phase] + c``; the last slot is ``stop``.
_BASE: Final = tuple(
    {
        SELECT: A.PICK_BASE,
        FRENCH_CRULLER: A.DISCARD_POSITION_BASE,
        DOUBLE_CHOCOLATE: A.KEEP_BASE,
        RED_VELVET: A.TAKE_BASE,
        SPRINKLED: A.GIVE_BASE,
        BEAR_CLAW: A.TAKE_FROM_BASE,
        CINNAMON_TWIST: A.PASS_BASE,
        DAY_OLD: A.TAKE_BASE,
        MILK: A.DISCARD_BASE,
        RASPBERRY_FROSTED: A.DISCARD_BASE,
        STRAWBERRY_GLAZED: A.DISCARD_FROM_BASE,
    }.get(ph, 0)
    for ph in range(RESOLVE + 1)
)


def _flat(x: Array, n: int) -> Array:
    """A ``[K]`` or ``[n, K]`` slot mask → ``[width(n)]`` (stop slot false)."""
    flat = x.reshape(-1)
    return jnp.pad(flat, (0, width(n) - flat.shape[0]))


def _row_of(s: State, seat: Array) -> Array:
    """``coll[seat]`` as a one-hot sum (a dense op, cheaper than a batched gather)."""
    return jnp.where((jnp.arange(s.coll.shape[0]) == seat)[:, None], s.coll, 0).sum(axis=0)


def actor_legal(s: State) -> Array:
    """``[width(n)]`` bool: the actor's choices in a one-player power phase, compact layout.

    Every phase's choices lie in one block of the action ids, so a choice is a slot ``c``:
    ``pick``/``discard P`` by position, ``keep``/``take``/``pass``/``discard KIND`` by kind,
    ``take … from``/``give … to``/``discard … from`` by ``seat * K + kind``; the last slot is
    ``stop``. (Searching ``n * K + 1`` slots is much cheaper than all 521 action ids.)
    """
    n = num_players(s)
    ph = s.phase
    kinds = jnp.arange(K)
    seats = jnp.arange(n)
    mine = _row_of(s, s.actor)
    opp_owned = (s.coll > 0) & (seats != s.actor)[:, None]
    picked = (s.picks[None, :] == jnp.arange(n + 1)[:, None]).any(axis=1)
    eligible = (s.row >= 0) & ~picked
    size = deck_size(s)
    t0, t1 = _deck_card(s, _i(0)), _deck_card(s, _i(1))
    keep = (size > 0) & ((kinds == t0) | ((kinds == t1) & (size >= 2)))
    day_old_open = (s.step < DAY_OLD_TAKES) & (s.pile_len > 0)
    taking = s.pile_count > 0
    give_kinds = (mine - (kinds == C.SPRINKLED)) > 0
    give_kinds = jnp.where(give_kinds.any(), give_kinds, kinds == C.SPRINKLED)
    give_kinds = jnp.where(_has(s, _SPRINKLED_ANY), mine > 0, give_kinds)
    give = (seats != s.actor)[:, None] & give_kinds[None, :]
    milk = ((mine > 0) & (kinds != C.MILK)) | ((kinds == C.MILK) & (s.step == 0))
    milk = jnp.where(_has(s, _MILK_ANY), mine > 0, milk)
    rasp = (mine - (kinds == C.RASPBERRY_FROSTED)) > 0
    stop_slot = jnp.arange(width(n)) == width(n) - 1
    no = jnp.zeros((width(n),), bool)
    return jnp.select(
        [
            ph == FRENCH_CRULLER,
            ph == DOUBLE_CHOCOLATE,
            ph == RED_VELVET,
            ph == SPRINKLED,
            (ph == BEAR_CLAW) | (ph == STRAWBERRY_GLAZED),
            ph == DAY_OLD,
            ph == MILK,
            ph == RASPBERRY_FROSTED,
        ],
        [
            _flat(eligible, n) | (stop_slot & eligible.any()),
            _flat(keep, n),
            _flat(taking, n),
            _flat(give, n),
            _flat(opp_owned, n),
            (_flat(taking, n) | stop_slot) & day_old_open,
            _flat(milk, n),
            _flat(rasp, n),
        ],
        no,
    )


def pass_legal(s: State) -> Array:
    """``[n, K]`` bool: the kinds each seat may still pass in a Cinnamon Twist."""
    n = num_players(s)
    twist = (jnp.arange(n) == s.actor)[:, None] & (jnp.arange(K) == C.CINNAMON_TWIST)[None, :]
    twist &= ~_has(s, _TWIST_ANY)
    waiting = (s.phase == CINNAMON_TWIST) & (s.passes < 0)
    return ((s.coll - twist) > 0) & waiting[:, None]


def compact_legal(s: State) -> Array:
    """``[n, width(n)]`` bool: every seat's legal choices in the compact layout."""
    n = num_players(s)
    acting = (jnp.arange(n) == s.actor) & _one_player_phase(s.phase)
    rows = acting[:, None] & actor_legal(s)[None, :]
    choosing = (s.phase == SELECT) & (s.picks < 0)
    picks = choosing[:, None] & (jnp.arange(width(n)) < n + 1)[None, :]
    passes = jnp.pad(pass_legal(s), ((0, 0), (0, width(n) - K)))
    return rows | picks | passes


def action_of(phase: Array, slot: Array, n: int) -> Array:
    """The action id of compact ``slot`` in ``phase``."""
    base = _at(jnp.asarray(_BASE, jnp.int32), phase)
    return jnp.where(slot == width(n) - 1, A.STOP_ID, base + slot).astype(jnp.int32)


def slot_of(phase: Array, action: Array, n: int) -> Array:
    """The compact slot of action id ``action`` in ``phase`` (``-1``: none)."""
    c = action - _at(jnp.asarray(_BASE, jnp.int32), phase)
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


# -- scoring ------------------------------------------------------------------------------------


def scores(coll: Array) -> Array:
    """``[n, K]`` collections → ``[n]`` end-game scores (as :func:`gonuts.scoring.scores`)."""
    sizes = coll.sum(axis=1)
    plain = coll[:, C.PLAIN]
    most = plain.max()
    tied = (plain == most).sum()
    bonus = jnp.where(
        (most > 0) & (plain == most),
        jnp.where(tied == 1, scoring.PLAIN_MAJORITY_BONUS, scoring.PLAIN_TIE_BONUS),
        0,
    )
    total = plain + bonus + (coll * jnp.asarray(_FIXED, jnp.int32)).sum(axis=1)
    total += _set_points(_HOLES, coll[:, C.DONUT_HOLES])
    total += _set_points(_JELLY, coll[:, C.JELLY_FILLED])
    total += _set_points(_BOSTON, coll[:, C.BOSTON_CREAM])
    kinds = (coll > 0).sum(axis=1)
    total += jnp.where(
        kinds >= scoring.MAPLE_BAR_MIN_KINDS, scoring.MAPLE_BAR_POINTS * coll[:, C.MAPLE_BAR], 0
    )
    total += jnp.where(
        kinds <= scoring.MUCHO_MATCHA_MAX_KINDS,
        scoring.MUCHO_MATCHA_POINTS * coll[:, C.MUCHO_MATCHA],
        0,
    )
    total += jnp.where(
        sizes <= scoring.OLD_FASHIONED_MAX_CARDS,
        scoring.OLD_FASHIONED_POINTS * coll[:, C.OLD_FASHIONED],
        0,
    )
    total += jnp.where(
        sizes == sizes.min(), scoring.MAPLE_FROSTED_POINTS * coll[:, C.MAPLE_FROSTED], 0
    )
    negatives = coll[:, jnp.asarray(C.NEGATIVE_KINDS)].sum(axis=1)
    return total + coll[:, C.COFFEE] * negatives


def winners(coll: Array) -> Array:
    """``[n]`` bool: highest total, then most cards; still tied, all share the victory."""
    totals = scores(coll)
    sizes = coll.sum(axis=1)
    tied = totals == totals.max()
    most = jnp.where(tied, sizes, -1).max()
    return tied & (sizes == most)


# -- one transition -----------------------------------------------------------------------------
#
# Every change of a game is one call of :func:`transition`: record a selection, record Cinnamon
# Twist passes, carry out a one-player decision, resolve the next picked position, or refill
# the row. Under ``vmap`` a ``lax.switch`` over these would compute every branch and select
# whole states; instead each kind of change computes only scalars (which seat, which kind,
# which position) and the few array operations — one collection update, one push, one pull,
# one row update — run once per transition with the arguments of whichever branch applies.


class _Power(NamedTuple):
    """What the actor's action does in a one-player power phase (scalars)."""

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
    keep: Array
    """Double Chocolate: the kind kept."""
    counted: Array
    """One more Day-Old take or Milk discard."""
    finished: Array
    """The power is over (as ``Power.apply``)."""


def _power(s: State, a: Array) -> _Power:
    """The effect of the actor's legal action ``a`` in a one-player power phase."""
    ph = s.phase
    actor = s.actor
    none = _i(-1)
    stop = a == A.STOP_ID
    seat_tf, kind_tf = jnp.divmod(a - A.TAKE_FROM_BASE, K)
    seat_g, kind_g = jnp.divmod(a - A.GIVE_BASE, K)
    seat_df, kind_df = jnp.divmod(a - A.DISCARD_FROM_BASE, K)
    kind_take = a - A.TAKE_BASE
    kind_keep = a - A.KEEP_BASE
    kind_d = a - A.DISCARD_BASE
    row_pos = a - A.DISCARD_POSITION_BASE
    is_fc = ph == FRENCH_CRULLER
    is_dc = ph == DOUBLE_CHOCOLATE
    is_do = ph == DAY_OLD
    self_discard = (ph == MILK) | (ph == RASPBERRY_FROSTED)
    frm = jnp.select(
        [ph == SPRINKLED, ph == BEAR_CLAW, self_discard, ph == STRAWBERRY_GLAZED],
        [actor, seat_tf, actor, seat_df],
        none,
    )
    to = jnp.select(
        [is_dc | (ph == RED_VELVET) | (ph == BEAR_CLAW) | (is_do & ~stop), ph == SPRINKLED],
        [actor, seat_g],
        none,
    )
    kind = jnp.select(
        [is_fc, is_dc, (ph == RED_VELVET) | is_do, ph == SPRINKLED, ph == BEAR_CLAW, self_discard],
        [_at(s.row, row_pos), kind_keep, kind_take, kind_g, kind_tf, kind_d],
        kind_df,
    )
    # discarding the Milk itself first is the alternative that ends the power; only
    # milk_any_three lets a Milk be a later discard, which counts as one of the three
    milk_alone = (kind_d == C.MILK) & (s.step == 0)
    milk_done = milk_alone | (s.step + 1 >= MILK_DISCARDS)
    return _Power(
        frm=frm,
        to=to,
        kind=kind,
        push=(is_fc & ~stop) | self_discard | (ph == STRAWBERRY_GLAZED),
        pull=((ph == RED_VELVET) | is_do) & ~stop,
        clear=jnp.where(is_fc & ~stop, row_pos, none),
        keep=kind_keep,
        counted=(is_do & ~stop) | ((ph == MILK) & ~milk_alone),
        finished=jnp.select([is_fc | is_do, ph == MILK], [stop, milk_done], jnp.bool_(True)),
    )


def _kept(s: State, kept: Array) -> tuple[Array, Array, Array, Array]:
    """Double Chocolate once ``kept`` is chosen: the deck (the other drawn card put back on
    top), its top, and every seat's knowledge of the top card (``deck, top, known_len,
    known_kind``)."""
    n = num_players(s)
    size = deck_size(s)
    first = _deck_card(s, _i(0))
    second = (first != kept) & (size >= 2)
    deck = jnp.where(second & (jnp.arange(s.deck.shape[0]) == s.top + 1), first, s.deck)
    top = s.top + 1
    # Another seat that knew one of the two drawn cards may deduce the one put back.
    other = (jnp.arange(n) != s.actor) & (s.known_len > 0)
    hit = other & ((s.known_len == size) | (s.known_len == size - 1))
    known_len = jnp.where(hit, jnp.where(s.known_kind != kept, size - 1, 0), s.known_len)
    known_len = jnp.where(known_len > size - 1, 0, known_len)
    me = (jnp.arange(n) == s.actor) & (size >= 2)
    return (
        deck,
        top,
        jnp.where(me, size - 1, known_len),
        jnp.where(me, _at(deck, top), s.known_kind),
    )


def _pile_ops(
    s: State, push_kind: Array, push: Array, pull_kind: Array, pull: Array
) -> tuple[Array, Array, Array]:
    """The discard pile after pushing a card of ``push_kind`` (if ``push``) and then pulling
    the topmost card of ``pull_kind`` (if ``pull``): ``pile, pile_len, pile_count``."""
    j = jnp.arange(s.pile.shape[0])
    kinds = jnp.arange(K)
    pile = jnp.where((j == s.pile_len) & push, push_kind, s.pile)
    length = s.pile_len + push
    idx = jnp.max(jnp.where((pile == pull_kind) & (j < length), j, -1))
    shifted = jnp.concatenate([pile[1:], jnp.full((1,), -1, pile.dtype)])
    pile = jnp.where(pull & (j >= idx), shifted, pile)
    count = s.pile_count + ((kinds == push_kind) & push) - ((kinds == pull_kind) & pull)
    return pile, length - pull, count


def transition(
    s: State,
    picks: Array,
    passes: Array,
    slot: Array,
    count: Array,
    *,
    set_winners: bool = True,
) -> State:
    """One change of one game, whatever its phase.

    * selection: record ``picks`` (``[n]``, positions, ``-1``: this seat does not pick now);
      all picked, the round resolves;
    * Cinnamon Twist: record ``passes`` (``[n]``, kinds, ``-1``: none); all chosen, the cards
      move and the power ends;
    * a one-player power: carry out the actor's choice ``slot`` (compact layout,
      :func:`actor_legal`); with ``slot`` ``-1`` and ``count`` (the actor's number of
      choices) 0, the power ends;
    * resolving: resolve the lowest picked position at or after ``pos`` (a contested card
      goes to the pile, a single taker gets it and its power starts: Chocolate Frosted
      draws, Éclair takes the pile's top, Cinnamon Twist, Milk and Raspberry Frosted may
      discard themselves, the others enter their phase); none left, refill the row, or end
      the game when the deck runs short (and, if ``set_winners``, set the winners).
    """
    n = num_players(s)
    ph = s.phase
    seats = jnp.arange(n)
    kinds = jnp.arange(K)
    positions = jnp.arange(n + 1)
    is_sel = ph == SELECT
    is_tw = ph == CINNAMON_TWIST
    is_pow = _one_player_phase(ph)
    resolving = ph == RESOLVE
    is_res = resolving & (s.picks >= s.pos).any()
    is_ref = resolving & ~is_res
    size = deck_size(s)

    # resolving: the lowest picked position at or after pos
    q = jnp.min(jnp.where(s.picks >= s.pos, s.picks, n + 1))
    choosers = s.picks == q
    single = choosers.sum() == 1
    taker = jnp.argmax(choosers).astype(jnp.int32)
    card = _at(s.row, q)
    gain = (seats == taker)[:, None] & (kinds == card)[None, :]
    owned = _row_of(s, taker).sum() + 1  # the taker's cards, this one included
    twist_self = (seats == taker)[:, None] & (kinds == C.CINNAMON_TWIST)[None, :]
    twist_self &= ~_has(s, _TWIST_ANY)
    can_pass = ((s.coll + gain - twist_self) > 0).any(axis=1).all()
    milk_others = owned - jnp.where(_has(s, _MILK_ANY), 0, 1)
    drop = single & (
        ((card == C.CINNAMON_TWIST) & ~can_pass)
        | ((card == C.MILK) & (milk_others < MILK_DISCARDS))
        | ((card == C.RASPBERRY_FROSTED) & (owned == 1))
    )
    draw = is_res & single & (card == C.CHOCOLATE_FROSTED) & (size > 0)
    eclair = is_res & single & (card == C.ECLAIR) & (s.pile_len > 0)
    pile_top = _at(s.pile, s.pile_len - 1)
    power_phase = _at(jnp.asarray(POWER_PHASE_OF_KIND, jnp.int32), card)
    waits = is_res & single & ~drop & (power_phase >= 0)

    # a one-player power
    acted = is_pow & (slot >= 0)
    pw = _power(s, action_of(ph, jnp.maximum(slot, 0), n))
    power_over = (acted & pw.finished) | (is_pow & (slot < 0) & (count == 0))
    keeping = acted & (ph == DOUBLE_CHOCOLATE)

    # refilling
    empty = s.row < 0
    need = empty.sum()
    refill = is_ref & (size >= need)
    ending = is_ref & (size < need)

    # the simultaneous choices
    passes = jnp.where(is_tw & (passes >= 0), passes, s.passes)
    twisted = is_tw & (passes >= 0).all()
    picks = jnp.where(is_sel & (picks >= 0), picks, s.picks)
    revealed = is_sel & (picks >= 0).all()

    # collections: at most two single-card moves, or the Cinnamon Twist's passes
    to = jnp.select([is_res & single & ~drop, acted], [taker, pw.to], -1)
    frm = jnp.where(acted, pw.frm, -1)
    kind = jnp.where(is_res, card, pw.kind)
    extra = jnp.where(draw | eclair, taker, -1)
    gained = jnp.where(draw, _deck_card(s, _i(0)), pile_top)
    passed = ((passes[:, None] == kinds[None, :]) & twisted).astype(jnp.int32)
    coll = (
        s.coll
        + _onehot(n, to, kind).astype(jnp.int32)
        - _onehot(n, frm, kind).astype(jnp.int32)
        + _onehot(n, extra, gained).astype(jnp.int32)
        - passed
        + jnp.roll(passed, 1, axis=0)
    )
    # the discard pile: a contested or self-discarded card, or a power's push; Éclair's or a
    # power's pull (never both in one transition)
    pile, pile_len, pile_count = _pile_ops(
        s,
        kind,
        (is_res & (~single | drop)) | (acted & pw.push),
        jnp.where(is_res, pile_top, pw.kind),
        eclair | (acted & pw.pull),
    )
    # the row: a resolved or French Cruller position empties; a refill fills the gaps
    cleared = jnp.select([is_res, acted], [q, pw.clear], -1)
    rank = jnp.cumsum(empty) - 1
    fill = s.deck[jnp.clip(s.top + rank, 0, s.deck.shape[0] - 1)]
    row = jnp.where(positions == cleared, -1, s.row)
    row = jnp.where(refill & empty, fill, row)
    # the deck and what seats know of its top
    kept_deck, _, kept_len, kept_kind = _kept(s, pw.keep)
    top = s.top + jnp.select([draw, keeping, refill], [1, 1, need], 0)
    known_len = jnp.where(keeping, kept_len, s.known_len)
    known_len = jnp.where(known_len > s.deck.shape[0] - top, 0, known_len)
    winners_now = winners(s.coll) if set_winners else s.winners
    return s._replace(
        deck=jnp.where(keeping, kept_deck, s.deck),
        top=top,
        row=row,
        pile=pile,
        pile_len=pile_len,
        pile_count=pile_count,
        coll=coll,
        round=s.round + refill,
        phase=jnp.select(
            [revealed | twisted | power_over, is_res, refill, ending],
            [_i(RESOLVE), jnp.where(waits, power_phase, RESOLVE), _i(SELECT), _i(OVER)],
            ph,
        ),
        pos=jnp.select(
            [revealed | refill, twisted | power_over, is_res],
            [_i(0), s.pos + 1, jnp.where(waits, q, q + 1)],
            s.pos,
        ),
        actor=jnp.where(is_res & single, taker, s.actor),
        step=jnp.select(
            [waits & ((power_phase == DAY_OLD) | (power_phase == MILK)), acted],
            [_i(0), s.step + pw.counted],
            s.step,
        ),
        picks=jnp.where(refill, -1, picks),
        passes=jnp.where(waits & (power_phase == CINNAMON_TWIST), -1, passes),
        known_len=known_len,
        known_kind=jnp.where(keeping, kept_kind, s.known_kind),
        winners=jnp.where(ending, winners_now, s.winners),
    )


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
    return transition(s, picks, passes, slot, _i(2))


# -- running forward to the next decision -------------------------------------------------------


def _busy(s: State, count: Array, passable: Array) -> Array:
    """Whether the game can move on without a decision."""
    one_player = _one_player_phase(s.phase) & (count < 2)
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
    return _run(_status(s, jnp.bool_(False)), (none, none, _i(-1)))


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


# -- what one seat sees ---------------------------------------------------------------------------


def to_act(s: State) -> Array:
    """``[n]`` bool: seats that must act now."""
    n = num_players(s)
    ph = s.phase
    return jnp.select(
        [ph == SELECT, ph == CINNAMON_TWIST, _one_player_phase(ph)],
        [s.picks < 0, s.passes < 0, jnp.arange(n) == s.actor],
        jnp.zeros((n,), bool),
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
    t0, t1 = _deck_card(s, _i(0)), _deck_card(s, _i(1))
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
            _onehot_vec(_i(n - C.MIN_PLAYERS), MAX_PLAYERS - C.MIN_PLAYERS + 1, jnp.bool_(True)),
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
