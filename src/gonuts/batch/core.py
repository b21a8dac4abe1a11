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

from typing import Final, NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts import cards as C  # noqa: N812 - kind indexes by name
from gonuts import scoring
from gonuts.state import Phase

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


def num_players(s: State) -> int:
    """Players of a state (static: a shape)."""
    return int(s.picks.shape[-1])


def _i(x: int) -> Array:
    return jnp.asarray(x, jnp.int32)


def initial(deck: Array, n: int) -> State:
    """A dealt game for ``n`` players from ``deck`` (kind ids, top first)."""
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
    )


# -- card-moving primitives ---------------------------------------------------------------------


def _onehot(n: int, seat: Array, kind: Array) -> Array:
    """``[n, K]`` 1 at (seat, kind); all zeros for seat ``-1``."""
    return (jnp.arange(n)[:, None] == seat) & (jnp.arange(K)[None, :] == kind)


def _move(s: State, frm: Array, to: Array, kind: Array) -> State:
    """One card of ``kind`` leaves seat ``frm`` and joins seat ``to`` (``-1``: nowhere)."""
    n = num_players(s)
    delta = _onehot(n, to, kind).astype(jnp.int32) - _onehot(n, frm, kind).astype(jnp.int32)
    return s._replace(coll=s.coll + delta)


def _push(s: State, kind: Array, cond: Array) -> State:
    """If ``cond``: put a card of ``kind`` on top of the discard pile."""
    slot = jnp.arange(s.pile.shape[0]) == s.pile_len
    return s._replace(
        pile=jnp.where(slot & cond, kind, s.pile),
        pile_len=s.pile_len + cond,
        pile_count=s.pile_count + ((jnp.arange(K) == kind) & cond),
    )


def _pull(s: State, kind: Array, cond: Array) -> State:
    """If ``cond``: remove the topmost card of ``kind`` from the discard pile."""
    j = jnp.arange(s.pile.shape[0])
    idx = jnp.max(jnp.where((s.pile == kind) & (j < s.pile_len), j, -1))
    shifted = jnp.concatenate([s.pile[1:], jnp.full((1,), -1, jnp.int32)])
    return s._replace(
        pile=jnp.where(cond & (j >= idx), shifted, s.pile),
        pile_len=s.pile_len - cond,
        pile_count=s.pile_count - ((jnp.arange(K) == kind) & cond),
    )


def _at(x: Array, i: Array) -> Array:
    """``x[i]`` for a 1-d ``x`` as a masked sum (0 when ``i`` is out of range).

    Under ``vmap`` an index with a batch axis becomes a gather, slow on CPU; a compare and a
    sum over a few dozen elements vectorise well.
    """
    return jnp.where(jnp.arange(x.shape[0]) == i, x, 0).sum()


def _set_points(table: tuple[int, ...], count: Array) -> Array:
    return jnp.asarray(table, jnp.int32)[jnp.minimum(count, len(table) - 1)]


def _choose(cond: Array, new: State, old: State) -> State:
    """``new`` where ``cond``, else ``old``, field by field (a branch as a select)."""
    out: State = jax.tree.map(lambda x, y: jnp.where(cond, x, y), new, old)
    return out


def deck_size(s: State) -> Array:
    return s.deck.shape[-1] - s.top


def _forget(s: State) -> State:
    """Drop Double Chocolate knowledge of cards that have left the deck."""
    return s._replace(known_len=jnp.where(s.known_len > deck_size(s), 0, s.known_len))


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
    give = (seats != s.actor)[:, None] & give_kinds[None, :]
    milk = ((mine > 0) & (kinds != C.MILK)) | ((kinds == C.MILK) & (s.step == 0))
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


# -- decisions ----------------------------------------------------------------------------------


def apply_power(s: State, a: Array) -> tuple[State, Array]:
    """Carry out the actor's legal action ``a`` in a one-player power phase.

    Returns the new state and whether the power is finished (as ``Power.apply``).
    """
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
    fc_card = _at(s.row, row_pos)
    kind = jnp.select(
        [is_fc, is_dc, (ph == RED_VELVET) | is_do, ph == SPRINKLED, ph == BEAR_CLAW, self_discard],
        [fc_card, kind_keep, kind_take, kind_g, kind_tf, kind_d],
        kind_df,
    )
    s = _move(s, frm, to, kind)
    push = (is_fc & ~stop) | self_discard | (ph == STRAWBERRY_GLAZED)
    s = _push(s, kind, push)
    s = _pull(s, kind, ((ph == RED_VELVET) | is_do) & ~stop)
    clear = is_fc & ~stop & (jnp.arange(s.row.shape[0]) == row_pos)
    s = s._replace(row=jnp.where(clear, -1, s.row))
    s = _choose(is_dc, _keep(s, kind_keep), s)
    milk_done = (kind_d == C.MILK) | (s.step + 1 >= MILK_DISCARDS)
    counted = (is_do & ~stop) | ((ph == MILK) & (kind_d != C.MILK))
    s = s._replace(step=s.step + counted)
    finished = jnp.select([is_fc | is_do, ph == MILK], [stop, milk_done], jnp.bool_(True))
    return s, finished


def _keep(s: State, kept: Array) -> State:
    """Double Chocolate deck bookkeeping once ``kept`` (already in the collection) is chosen."""
    size = deck_size(s)
    first = _deck_card(s, _i(0))
    second = (first != kept) & (size >= 2)
    deck = jnp.where(second & (jnp.arange(s.deck.shape[0]) == s.top + 1), first, s.deck)
    s = s._replace(deck=deck, top=s.top + 1)
    # Another seat that knew one of the two drawn cards may deduce the one put back.
    n = num_players(s)
    other = (jnp.arange(n) != s.actor) & (s.known_len > 0)
    hit = other & ((s.known_len == size) | (s.known_len == size - 1))
    known_len = jnp.where(hit, jnp.where(s.known_kind != kept, size - 1, 0), s.known_len)
    s = _forget(s._replace(known_len=known_len))
    me = (jnp.arange(n) == s.actor) & (size >= 2)
    return s._replace(
        known_len=jnp.where(me, size - 1, s.known_len),
        known_kind=jnp.where(me, _deck_card(s, _i(0)), s.known_kind),
    )


def _pass_all(s: State) -> State:
    oh = (s.passes[:, None] == jnp.arange(K)[None, :]).astype(jnp.int32)
    return s._replace(coll=s.coll - oh + jnp.roll(oh, 1, axis=0))


def _power_done(s: State, done: Array) -> State:
    return s._replace(
        phase=jnp.where(done, RESOLVE, s.phase), pos=jnp.where(done, s.pos + 1, s.pos)
    )


def apply_actions(s: State, actions: Array, compact: Array | None) -> State:
    """Record every seat's legal action (``-1`` or an illegal id: no action) and carry out
    what is complete: a full selection is revealed, a full set of passes moves, a one-player
    decision is applied. :func:`settle` then runs the game to its next decision.

    ``compact`` is :func:`compact_legal` of ``s``; ``None`` trusts that every action
    ``>= 0`` is legal (the random player, which draws from the legal actions).
    """
    n = num_players(s)
    if compact is None:
        valid = actions >= 0
    else:
        slots = slot_of(s.phase, actions, n)
        valid = (compact & (jnp.arange(width(n))[None, :] == slots[:, None])).any(axis=1)
    ph = s.phase
    picks = jnp.where(valid & (ph == SELECT), actions - A.PICK_BASE, s.picks)
    passes = jnp.where(valid & (ph == CINNAMON_TWIST), actions - A.PASS_BASE, s.passes)
    s = s._replace(picks=picks, passes=passes)
    revealed = (ph == SELECT) & (picks >= 0).all()
    s = s._replace(phase=jnp.where(revealed, RESOLVE, s.phase), pos=jnp.where(revealed, 0, s.pos))
    twisted = (ph == CINNAMON_TWIST) & (passes >= 0).all()
    s = _choose(twisted, _pass_all(s), s)
    s = _power_done(s, twisted)
    mine = jnp.arange(n) == s.actor
    acted = _one_player_phase(ph) & (valid & mine).any()
    after, finished = apply_power(s, jnp.where(mine, actions, 0).sum())
    s = _choose(acted, after, s)
    return _power_done(s, acted & finished)


# -- running forward to the next decision -------------------------------------------------------


def _resolve_next(s: State) -> State:
    """Resolve the lowest picked position at or after ``pos`` (there is one)."""
    n = num_players(s)
    seats = jnp.arange(n)
    q = jnp.min(jnp.where(s.picks >= s.pos, s.picks, n + 1))
    choosers = s.picks == q
    chosen = choosers.sum()
    taker = jnp.argmax(choosers).astype(jnp.int32)
    card = _at(s.row, q)
    s = s._replace(row=jnp.where(jnp.arange(n + 1) == q, -1, s.row))
    single = chosen == 1
    s = _push(s, card, ~single)
    s = _move(s, _i(-1), jnp.where(single, taker, -1), card)
    # the power's start (what needs no decision)
    size = deck_size(s)
    draw = single & (card == C.CHOCOLATE_FROSTED) & (size > 0)
    eclair = single & (card == C.ECLAIR) & (s.pile_len > 0)
    mine = _row_of(s, taker)
    cards_owned = mine.sum()
    twist = (seats == taker)[:, None] & (jnp.arange(K) == C.CINNAMON_TWIST)[None, :]
    can_pass = ((s.coll - twist) > 0).any(axis=1).all()
    drop = single & (
        ((card == C.CINNAMON_TWIST) & ~can_pass)
        | ((card == C.MILK) & (cards_owned - 1 < MILK_DISCARDS))
        | ((card == C.RASPBERRY_FROSTED) & (cards_owned == 1))
    )
    pile_top = _at(s.pile, s.pile_len - 1)
    gained = jnp.where(draw, _deck_card(s, _i(0)), pile_top)
    s = _move(
        s,
        jnp.where(drop, taker, -1),
        jnp.where(draw | eclair, taker, -1),
        jnp.where(drop, card, gained),
    )
    s = _push(s, card, drop)
    s = _pull(s, pile_top, eclair)
    s = _forget(s._replace(top=s.top + draw))
    phase = _at(jnp.asarray(POWER_PHASE_OF_KIND, jnp.int32), card)
    waits = single & ~drop & (phase >= 0)
    return s._replace(
        phase=jnp.where(waits, phase, RESOLVE),
        pos=jnp.where(waits, q, q + 1),
        actor=jnp.where(single, taker, s.actor),
        step=jnp.where(waits & ((phase == DAY_OLD) | (phase == MILK)), 0, s.step),
        passes=jnp.where(waits & (phase == CINNAMON_TWIST), -1, s.passes),
    )


def _refill(s: State) -> State:
    """Fill the empty row positions from the deck, or end the game when it runs short."""
    empty = s.row < 0
    count = empty.sum()
    rank = jnp.cumsum(empty) - 1
    end = deck_size(s) < count
    row = jnp.where(empty, s.deck[jnp.clip(s.top + rank, 0, s.deck.shape[0] - 1)], s.row)
    n = num_players(s)
    refilled = _forget(
        s._replace(
            row=row,
            top=s.top + count,
            round=s.round + 1,
            picks=jnp.full((n,), -1, jnp.int32),
            phase=_i(SELECT),
            pos=_i(0),
        )
    )
    ended = s._replace(phase=_i(OVER), winners=winners(s.coll))
    return _choose(end, ended, refilled)


def _settle_power(s: State, mask: Array) -> State:
    """A one-player power with at most one choice: apply it, or end the power."""
    count = mask.sum()
    choice = action_of(s.phase, jnp.argmax(mask).astype(jnp.int32), num_players(s))
    after, finished = apply_power(s, choice)
    s = _choose(count == 1, after, s)
    return _power_done(s, (count == 0) | finished)


def _settle_twist(s: State, passable: Array) -> State:
    """Cinnamon Twist: seats with one possible card pass it; when all have chosen, pass."""
    forced = (s.passes < 0) & (passable.sum(axis=1) == 1)
    passes = jnp.where(forced, jnp.argmax(passable, axis=1).astype(jnp.int32), s.passes)
    s = s._replace(passes=passes)
    complete = (passes >= 0).all()
    s = _choose(complete, _pass_all(s), s)
    return _power_done(s, complete)


def _busy(s: State, mask: Array, passable: Array) -> Array:
    """Whether the game can move on without a decision."""
    one_player = _one_player_phase(s.phase) & (mask.sum() < 2)
    waiting = s.passes < 0
    twist = (s.phase == CINNAMON_TWIST) & (
        (waiting & (passable.sum(axis=1) == 1)).any() | ~waiting.any()
    )
    return (s.phase == RESOLVE) | one_player | twist


def _micro(s: State, mask: Array, passable: Array) -> State:
    resolving = s.phase == RESOLVE
    pending = (s.picks >= s.pos).any()
    branch = jnp.select([resolving & pending, resolving, s.phase == CINNAMON_TWIST], [0, 1, 3], 2)
    out: State = lax.switch(
        branch,
        [
            lambda: _resolve_next(s),
            lambda: _refill(s),
            lambda: _settle_power(s, mask),
            lambda: _settle_twist(s, passable),
        ],
    )
    return out


def settle(s: State) -> State:
    """Run the game forward (resolving, refilling, forced decisions) to its next decision."""

    def status(st: State) -> tuple[State, Array, Array, Array]:
        mask = actor_legal(st)
        passable = pass_legal(st)
        return st, mask, passable, _busy(st, mask, passable)

    def body(carry: tuple[State, Array, Array, Array]) -> tuple[State, Array, Array, Array]:
        st, mask, passable, _ = carry
        return status(_micro(st, mask, passable))

    return lax.while_loop(lambda c: c[3], body, status(s))[0]


def step(s: State, actions: Array) -> State:
    """One decision step of one game (see :func:`gonuts.batch.step`)."""
    return settle(apply_actions(s, actions.astype(jnp.int32), compact_legal(s)))


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
