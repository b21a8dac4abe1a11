"""One change of one game, whatever its phase: :func:`transition`, in four steps.

The rules engine resolves a round with Python control flow (a loop over row positions that
stops at a pending decision and resumes when it is answered). Here that loop is data: an
internal phase ``RESOLVE`` means "resolve the picked positions from ``pos`` on", and every
change of a game is one :func:`transition`, which takes exactly one of four steps:

* :func:`simultaneous` — selection records the given picks (all picked: ``RESOLVE`` from
  position 0); Cinnamon Twist records the given passes (all chosen: the cards move, the
  power ends);
* :func:`power` — a one-player power carries out the actor's choice (the ``act`` of its
  entry in :data:`gonuts.batch.powers.POWERS`) or, with no choice at all, ends;
* :func:`resolve` — the lowest picked position at or after ``pos`` resolves: a contested card
  goes to the pile, a single taker gets it and its power starts (its ``start``, then its
  decision phase if it has one);
* :func:`refill` — no picked position left: the row refills, or the game ends when the deck
  runs short.

Under ``vmap`` a ``lax.switch`` over these would compute every branch and select whole
states. Instead each step computes only scalars — a :class:`Change`: which seat loses a card,
which gains one, which kind, onto or out of the pile, which row position empties, and the
counters as they become — and :func:`apply` carries the one that applies out with the few
array operations once: one update of the collections, one push and one pull on the pile, one
row update, one deck write.

>>> import jax.numpy as jnp
>>> from gonuts.batch.state import RESOLVE, initial
>>> from gonuts.cards import canonical_deck
>>> s = initial(jnp.asarray(canonical_deck(2)), 2)
>>> none = jnp.full((2,), -1, jnp.int32)
>>> s = transition(s, jnp.asarray([0, 2], jnp.int32), none, jnp.int32(-1), jnp.int32(0))
>>> s.picks.tolist(), int(s.phase) == RESOLVE
([0, 2], True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

import jax.numpy as jnp

from gonuts.batch import powers
from gonuts.batch.legal import action_of
from gonuts.batch.scoring import winners
from gonuts.batch.state import (
    CINNAMON_TWIST,
    DAY_OLD,
    MILK,
    OVER,
    RESOLVE,
    SELECT,
    Array,
    K,
    State,
    at,
    deck_card,
    deck_size,
    i32,
    num_players,
    one_player_phase,
    onehot,
    row_of,
)

_POWER_PHASE_OF_KIND: Final = powers.POWER_PHASE_OF_KIND


class Change(NamedTuple):
    """What one transition does (scalars, and the ``[n]`` picks and passes as they become)."""

    to: Array
    """Seat that gains a card of ``kind`` (``-1``: none)."""
    frm: Array
    """Seat that loses a card of ``kind`` (``-1``: none)."""
    kind: Array
    extra: Array
    """Seat that gains ``gained`` besides (a draw, Éclair's take; ``-1``: none)."""
    gained: Array
    twist: Array
    """The Cinnamon Twist's passes move (``passes``)."""
    push: Array
    """A card of ``kind`` goes onto the discard pile."""
    pull: Array
    """The topmost card of ``pull_kind`` leaves the discard pile."""
    pull_kind: Array
    clear: Array
    """Row position emptied (``-1``: none)."""
    refill: Array
    """The row's gaps fill from the deck."""
    advance: Array
    """Cards leaving the top of the deck."""
    keeps: Array
    """Double Chocolate: ``kind`` kept, the other drawn card put back."""
    ending: Array
    """The game ends (the winners are set)."""
    phase: Array
    pos: Array
    actor: Array
    step: Array
    round: Array
    picks: Array
    passes: Array


def unchanged(s: State) -> Change:
    """The change that changes nothing."""
    none, no = i32(-1), jnp.bool_(False)
    return Change(
        to=none,
        frm=none,
        kind=none,
        extra=none,
        gained=none,
        twist=no,
        push=no,
        pull=no,
        pull_kind=none,
        clear=none,
        refill=no,
        advance=i32(0),
        keeps=no,
        ending=no,
        phase=s.phase,
        pos=s.pos,
        actor=s.actor,
        step=s.step,
        round=s.round,
        picks=s.picks,
        passes=s.passes,
    )


# -- the four steps -------------------------------------------------------------------------------


def simultaneous(s: State, base: Change, picks: Array, passes: Array) -> Change:
    """Selection or Cinnamon Twist: record the seats' ``picks`` / ``passes`` (``-1``: not
    now); once every seat has chosen, reveal the picks or move the passed cards."""
    ph = s.phase
    picks = jnp.where((ph == SELECT) & (picks >= 0), picks, s.picks)
    passes = jnp.where((ph == CINNAMON_TWIST) & (passes >= 0), passes, s.passes)
    revealed = (ph == SELECT) & (picks >= 0).all()
    twisted = (ph == CINNAMON_TWIST) & (passes >= 0).all()
    return base._replace(
        picks=picks,
        passes=passes,
        twist=twisted,
        phase=jnp.where(revealed | twisted, RESOLVE, ph),
        pos=jnp.select([revealed, twisted], [0, s.pos + 1], s.pos),
    )


def power(s: State, base: Change, slot: Array, count: Array) -> Change:
    """A one-player power: the actor's choice ``slot`` (compact layout), or, with ``slot``
    ``-1`` and no choice at all (``count`` 0), the end of the power."""
    acted = slot >= 0
    e = powers.effect(s, action_of(s.phase, jnp.maximum(slot, 0), num_players(s)))
    over = (acted & e.finished) | (~acted & (count == 0))
    keeps = acted & e.keeps
    return base._replace(
        to=jnp.where(acted, e.to, -1),
        frm=jnp.where(acted, e.frm, -1),
        kind=e.kind,
        push=acted & e.push,
        pull=acted & e.pull,
        pull_kind=e.kind,
        clear=jnp.where(acted, e.clear, -1),
        advance=keeps.astype(jnp.int32),
        keeps=keeps,
        phase=jnp.where(over, RESOLVE, s.phase),
        pos=jnp.where(over, s.pos + 1, s.pos),
        step=jnp.where(acted, s.step + e.counted, s.step),
    )


def resolve(s: State, base: Change) -> Change:
    """The lowest picked position at or after ``pos``: contested, its card goes to the pile;
    else its taker gets it and the card's power starts."""
    n = num_players(s)
    q = jnp.min(jnp.where(s.picks >= s.pos, s.picks, n + 1))
    choosers = s.picks == q
    single = choosers.sum() == 1
    taker = jnp.argmax(choosers).astype(jnp.int32)
    card = at(s.row, q)
    owned = row_of(s, taker).sum() + 1  # the taker's cards, this one included
    start = powers.start(powers.Taking(s, taker, onehot(n, taker, card), owned), card)
    drop = single & start.discards_itself
    draw = single & start.draws
    eclair = single & start.takes_pile_top
    pile_top = at(s.pile, s.pile_len - 1)
    power_phase = at(jnp.asarray(_POWER_PHASE_OF_KIND, jnp.int32), card)
    waits = single & ~drop & (power_phase >= 0)
    counting = (power_phase == DAY_OLD) | (power_phase == MILK)
    return base._replace(
        to=jnp.where(single & ~drop, taker, -1),
        kind=card,
        extra=jnp.where(draw | eclair, taker, -1),
        gained=jnp.where(draw, deck_card(s, 0), pile_top),
        push=~single | drop,
        pull=eclair,
        pull_kind=pile_top,
        clear=q,
        advance=draw.astype(jnp.int32),
        phase=jnp.where(waits, power_phase, RESOLVE),
        pos=jnp.where(waits, q, q + 1),
        actor=jnp.where(single, taker, s.actor),
        step=jnp.where(waits & counting, 0, s.step),
        passes=jnp.where(waits & (power_phase == CINNAMON_TWIST), -1, s.passes),
    )


def refill(s: State, base: Change) -> Change:
    """Every picked position resolved: refill the row for the next round, or end the game
    when the deck cannot fill it."""
    need = (s.row < 0).sum()
    fills = deck_size(s) >= need
    return base._replace(
        refill=fills,
        advance=jnp.where(fills, need, 0),
        ending=~fills,
        round=s.round + fills,
        phase=jnp.where(fills, SELECT, OVER),
        pos=jnp.where(fills, 0, s.pos),
        picks=jnp.where(fills, -1, s.picks),
    )


def merge(base: Change, steps: Sequence[tuple[Array, Change]]) -> Change:
    """Field by field, the value of the step whose condition holds (they exclude each other;
    none holds: ``base``). A field a step leaves as ``base`` has costs nothing for it."""
    fields = []
    for i, same in enumerate(base):
        out = same
        for holds, change in steps:
            if change[i] is not same:
                out = jnp.where(holds, change[i], out)
        fields.append(out)
    return Change(*fields)


# -- carrying a change out ------------------------------------------------------------------------


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


def apply(s: State, c: Change, *, set_winners: bool = True) -> State:
    """Carry out ``c``: each array of the state is written once."""
    n = num_players(s)
    kinds = jnp.arange(K)
    passed = ((c.passes[:, None] == kinds[None, :]) & c.twist).astype(jnp.int32)
    coll = (
        s.coll
        + onehot(n, c.to, c.kind).astype(jnp.int32)
        - onehot(n, c.frm, c.kind).astype(jnp.int32)
        + onehot(n, c.extra, c.gained).astype(jnp.int32)
        - passed
        + jnp.roll(passed, 1, axis=0)
    )
    pile, pile_len, pile_count = _pile_ops(s, c.kind, c.push, c.pull_kind, c.pull)
    empty = s.row < 0
    fill = s.deck[jnp.clip(s.top + jnp.cumsum(empty) - 1, 0, s.deck.shape[0] - 1)]
    row = jnp.where(jnp.arange(n + 1) == c.clear, -1, s.row)
    row = jnp.where(c.refill & empty, fill, row)
    # the deck and what seats know of its top
    kept_deck, kept_len, kept_kind = powers.put_back(s, c.kind)
    top = s.top + c.advance
    known_len = jnp.where(c.keeps, kept_len, s.known_len)
    known_len = jnp.where(known_len > s.deck.shape[0] - top, 0, known_len)
    return s._replace(
        deck=jnp.where(c.keeps, kept_deck, s.deck),
        top=top,
        row=row,
        pile=pile,
        pile_len=pile_len,
        pile_count=pile_count,
        coll=coll,
        round=c.round,
        phase=c.phase,
        pos=c.pos,
        actor=c.actor,
        step=c.step,
        picks=c.picks,
        passes=c.passes,
        known_len=known_len,
        known_kind=jnp.where(c.keeps, kept_kind, s.known_kind),
        winners=jnp.where(c.ending, winners(s.coll), s.winners) if set_winners else s.winners,
    )


def transition(
    s: State,
    picks: Array,
    passes: Array,
    slot: Array,
    count: Array,
    *,
    set_winners: bool = True,
) -> State:
    """One change of one game, whatever its phase (the step its phase calls for).

    * selection: record ``picks`` (``[n]``, positions, ``-1``: this seat does not pick now);
      all picked, the round resolves;
    * Cinnamon Twist: record ``passes`` (``[n]``, kinds, ``-1``: none); all chosen, the cards
      move and the power ends;
    * a one-player power: carry out the actor's choice ``slot`` (compact layout,
      :func:`gonuts.batch.legal.actor_legal`); with ``slot`` ``-1`` and ``count`` (the
      actor's number of choices) 0, the power ends;
    * resolving: resolve the lowest picked position at or after ``pos``; none left, refill
      the row, or end the game when the deck runs short (and, if ``set_winners``, set the
      winners).
    """
    ph = s.phase
    base = unchanged(s)
    resolving = ph == RESOLVE
    pending = resolving & (s.picks >= s.pos).any()
    change = merge(
        base,
        [
            ((ph == SELECT) | (ph == CINNAMON_TWIST), simultaneous(s, base, picks, passes)),
            (one_player_phase(ph), power(s, base, slot, count)),
            (pending, resolve(s, base)),
            (resolving & ~pending, refill(s, base)),
        ],
    )
    return apply(s, change, set_winners=set_winners)
