"""The ★ powers, one class per card: when it starts, which choices it offers, what each does.

A power runs when, and only when, its card is taken from the row (RULES.md "Powers"). The
round flow in :mod:`gonuts.rules` calls :meth:`Power.start`; if the power needs a decision the
game enters the power's :class:`~gonuts.state.Phase` and :meth:`Power.legal` lists the choices
(action ids). A decision is asked only when there is a real choice: the rules apply a single
legal action by themselves (RECORD.md "Decisions"), so the powers just list what is legal.

Over 600 lines because the twelve powers are one table of small classes read side by side (each
about 40 lines: start, legal, apply, its events); a module per power would scatter the one
place a rules reader checks a power against RULES.md. The repeated "events only when the state
keeps a log" guards are the compiled build's hot path (no event arguments built in playouts).
"""

from __future__ import annotations

from typing import Any, Final

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts.cards import (
    BEAR_CLAW,
    CHOCOLATE_FROSTED,
    CINNAMON_TWIST,
    DAY_OLD,
    DOUBLE_CHOCOLATE,
    ECLAIR,
    FRENCH_CRULLER,
    KIND_IDS,
    MILK,
    NUM_KINDS,
    RASPBERRY_FROSTED,
    RED_VELVET,
    SPRINKLED,
    STRAWBERRY_GLAZED,
)
from gonuts.events import Event, EventType
from gonuts.state import GameState, Phase
from gonuts.variants import MILK_ANY_THREE, SPRINKLED_ANY_CARD, TWIST_PASS_ANY

K: Final = NUM_KINDS
MILK_DISCARDS: Final = 3
DAY_OLD_TAKES: Final = 3

# The action-id table's bases as this module's own Finals: compiled, these are C statics (an
# ``A.NAME`` would be a module attribute lookup, ``actions`` being interpreted).
DISCARD_POSITION_BASE: Final = A.DISCARD_POSITION_BASE
STOP_ID: Final = A.STOP_ID
KEEP_BASE: Final = A.KEEP_BASE
TAKE_BASE: Final = A.TAKE_BASE
TAKE_FROM_BASE: Final = A.TAKE_FROM_BASE
GIVE_BASE: Final = A.GIVE_BASE
PASS_BASE: Final = A.PASS_BASE
DISCARD_BASE: Final = A.DISCARD_BASE
DISCARD_FROM_BASE: Final = A.DISCARD_FROM_BASE


# -- small moves shared by the powers ------------------------------------------------------------


def seat_kind(action_id: int, base: int) -> tuple[int, int]:
    """``(seat, kind)`` of a seated choice: :func:`gonuts.choices.split` on plain ints (a C
    function when compiled; ``split`` is generic over arrays, so an interpreted call)."""
    offset = action_id - base
    seat = offset // K
    return seat, offset - seat * K


def emit(g: GameState, type_: EventType, **fields: Any) -> None:
    """Log an event, unless this state keeps no log (search copies)."""
    if g.events is not None:
        g.events.append(Event(type_, **fields))


def take_from_discard(g: GameState, player: int, kind: int) -> None:
    """Move the topmost card of ``kind`` from the discard pile to ``player``."""
    pile = g.discard
    i = len(pile) - 1
    while pile[i] != kind:
        i -= 1
    del pile[i]
    g.coll[player * K + kind] += 1


def discard_owned(g: GameState, owner: int, kind: int) -> None:
    g.coll[owner * K + kind] -= 1
    g.discard.append(kind)


def move_card(g: GameState, giver: int, receiver: int, kind: int) -> None:
    g.coll[giver * K + kind] -= 1
    g.coll[receiver * K + kind] += 1


def forget_drawn(g: GameState) -> None:
    """Drop private deck knowledge about cards that have left the deck."""
    size = len(g.deck)
    for player, (length, _) in list(g.known.items()):
        if length > size:
            del g.known[player]


def owned_kinds(g: GameState, player: int, excluding: int = -1) -> list[int]:
    """Kinds ``player`` owns, ascending; ``excluding`` discounts one card of that kind."""
    base = player * K
    coll = g.coll
    return [k for k in range(K) if coll[base + k] > (1 if k == excluding else 0)]


def owns_more_than(g: GameState, player: int, excluding: int = -1) -> bool:
    """Whether :func:`owned_kinds` is not empty (no list built: the hot path's question)."""
    base = player * K
    coll = g.coll
    return any(coll[base + k] > (1 if k == excluding else 0) for k in range(K))


def an_opponent_owns_a_card(g: GameState, player: int) -> bool:
    coll = g.coll
    for s in range(g.n):
        if s != player:
            base = s * K
            for k in range(K):
                if coll[base + k] > 0:
                    return True
    return False


def opponents(g: GameState, player: int) -> list[int]:
    return [s for s in range(g.n) if s != player]


# -- the powers ------------------------------------------------------------------------------------


class Power:
    """One card's power. Subclasses override what they need."""

    # Set once per subclass; plain attributes (not ClassVar) so compiled code reads a C field.
    kind: int
    phase: Phase

    def start(self, g: GameState, taker: int) -> bool:
        """Resolve what needs no decision. True: a decision phase follows (``g.actor`` acts)."""
        return True

    def legal(self, g: GameState, player: int) -> list[int]:
        """The action ids ``player`` may take now (empty: the power is finished)."""
        return []

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        """Carry out a legal action. True: the power is finished."""
        raise NotImplementedError

    def to_act(self, g: GameState) -> list[int]:
        return [g.actor]

    def settle(self, g: GameState) -> bool:
        """Apply forced choices. True: a real decision is pending; False: the power is done."""
        while True:
            legal = self.legal(g, g.actor)
            if len(legal) > 1:
                return True
            if not legal or self.apply(g, g.actor, legal[0]):
                return False

    def fizzle(self, g: GameState, taker: int) -> bool:
        if g.events is not None:
            emit(g, EventType.POWER_FIZZLED, player=taker, source=KIND_IDS[self.kind])
        return False


class ChocolateFrosted(Power):
    """Draw the top card of the deck into your collection. Empty deck: nothing."""

    kind = CHOCOLATE_FROSTED
    phase = Phase.SELECT  # never waits for a decision

    def start(self, g: GameState, taker: int) -> bool:
        if not g.deck:
            return self.fizzle(g, taker)
        card = g.deck.pop()
        g.coll[taker * K + card] += 1
        if g.known:
            forget_drawn(g)
        if g.events is not None:
            emit(
                g,
                EventType.CARD_DRAWN,
                player=taker,
                card=KIND_IDS[card],
                source="chocolate_frosted",
            )
        return False


class Eclair(Power):
    """Take the top card of the discard pile. Empty pile: nothing."""

    kind = ECLAIR
    phase = Phase.SELECT

    def start(self, g: GameState, taker: int) -> bool:
        if not g.discard:
            return self.fizzle(g, taker)
        card = g.discard.pop()
        g.coll[taker * K + card] += 1
        if g.events is not None:
            emit(g, EventType.TOOK_FROM_DISCARD, player=taker, card=KIND_IDS[card], source="eclair")
        return False


class FrenchCruller(Power):
    """Discard any number of row cards at positions no player selected this round.

    Ruling: a position someone selected is never eligible, resolved or not; discarded
    positions stay empty until the refill.
    """

    kind = FRENCH_CRULLER
    phase = Phase.FRENCH_CRULLER

    def legal(self, g: GameState, player: int) -> list[int]:
        picks = g.picks
        row = g.row
        out = [DISCARD_POSITION_BASE + i for i in range(g.n + 1) if row[i] >= 0 and i not in picks]
        if out:
            out.append(STOP_ID)
        return out

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        if action_id == STOP_ID:
            return True
        position = action_id - DISCARD_POSITION_BASE
        card = g.row[position]
        g.row[position] = -1
        g.discard.append(card)
        if g.events is not None:
            emit(
                g,
                EventType.ROW_CARD_DISCARDED,
                player=player,
                card=KIND_IDS[card],
                position=position + 1,
                source="french_cruller",
            )
        return False


class DoubleChocolate(Power):
    """Draw two cards, keep one, put the other back on top (known to you alone).

    Ruling: with one card in the deck you keep it; with none, nothing happens. The two cards
    stay counted in the deck while you choose (``deck[-1]`` and ``deck[-2]``), so cards are
    conserved at every step; keeping one leaves the other on top.
    """

    kind = DOUBLE_CHOCOLATE
    phase = Phase.DOUBLE_CHOCOLATE

    def start(self, g: GameState, taker: int) -> bool:
        if not g.deck:
            return self.fizzle(g, taker)
        return True

    def legal(self, g: GameState, player: int) -> list[int]:
        deck = g.deck
        if len(deck) < 2 or deck[-1] == deck[-2]:
            return [KEEP_BASE + deck[-1]]
        return sorted((KEEP_BASE + deck[-1], KEEP_BASE + deck[-2]))

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        deck = g.deck
        kept = action_id - KEEP_BASE
        size = len(deck)
        drawn = (deck[-1], deck[-2]) if size >= 2 else (deck[-1],)
        if deck[-1] == kept:
            deck.pop()
        else:
            del deck[-2]
        g.coll[player * K + kept] += 1
        if g.events is not None:
            emit(
                g,
                EventType.CARD_DRAWN,
                player=player,
                card=KIND_IDS[kept],
                source="double_chocolate",
            )
        if size >= 2:
            self._learn_put_back(g, player, drawn, kept, size)
        return True

    @staticmethod
    def _learn_put_back(
        g: GameState, player: int, drawn: tuple[int, ...], kept: int, size: int
    ) -> None:
        put_back = deck_top = g.deck[-1]
        # Another player who knew one of the two drawn cards may deduce the one put back.
        for other, (length, known_kind) in list(g.known.items()):
            if other == player or length not in (size, size - 1):
                continue
            del g.known[other]
            if known_kind != kept:
                g.known[other] = (size - 1, known_kind)
        if g.known:
            forget_drawn(g)
        g.known[player] = (size - 1, deck_top)
        if g.events is not None:
            emit(
                g,
                EventType.CARD_PUT_BACK,
                player=player,
                card=KIND_IDS[put_back],
                source="double_chocolate",
                visible_to=player,
            )


class RedVelvet(Power):
    """Take one card of your choice from the discard pile. Empty pile: nothing."""

    kind = RED_VELVET
    phase = Phase.RED_VELVET

    def start(self, g: GameState, taker: int) -> bool:
        return True if g.discard else self.fizzle(g, taker)

    def legal(self, g: GameState, player: int) -> list[int]:
        return [TAKE_BASE + k for k in g.kinds_in_discard()]

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        kind = action_id - TAKE_BASE
        take_from_discard(g, player, kind)
        if g.events is not None:
            emit(
                g,
                EventType.TOOK_FROM_DISCARD,
                player=player,
                card=KIND_IDS[kind],
                source="red_velvet",
            )
        return True


class Sprinkled(Power):
    """Give one of your other cards to an opponent; with no other card, give this Sprinkled.

    Variant ``sprinkled_any_card``: any card you own, this Sprinkled included.
    """

    kind = SPRINKLED
    phase = Phase.SPRINKLED

    def legal(self, g: GameState, player: int) -> list[int]:
        if SPRINKLED_ANY_CARD in g.config.variants:
            kinds = owned_kinds(g, player)
        else:
            kinds = owned_kinds(g, player, excluding=SPRINKLED) or [SPRINKLED]
        return [GIVE_BASE + s * K + k for s in opponents(g, player) for k in kinds]

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        seat, kind = seat_kind(action_id, GIVE_BASE)
        move_card(g, player, seat, kind)
        if g.events is not None:
            emit(
                g,
                EventType.CARD_MOVED,
                player=player,
                other=seat,
                card=KIND_IDS[kind],
                source="sprinkled",
            )
        return True


class BearClaw(Power):
    """Take one card of your choice from an opponent of your choice. None owns a card: nothing."""

    kind = BEAR_CLAW
    phase = Phase.BEAR_CLAW

    def start(self, g: GameState, taker: int) -> bool:
        return True if an_opponent_owns_a_card(g, taker) else self.fizzle(g, taker)

    def legal(self, g: GameState, player: int) -> list[int]:
        return [TAKE_FROM_BASE + s * K + k for s in opponents(g, player) for k in owned_kinds(g, s)]

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        seat, kind = seat_kind(action_id, TAKE_FROM_BASE)
        move_card(g, seat, player, kind)
        if g.events is not None:
            emit(
                g,
                EventType.CARD_MOVED,
                player=seat,
                other=player,
                card=KIND_IDS[kind],
                source="bear_claw",
            )
        return True


class CinnamonTwist(Power):
    """Every player passes one card to the left, chosen in secret; the taker not this Twist.

    If any player (the taker included) has no card to pass, this Cinnamon Twist is discarded
    and nothing else happens. Players with a single possible card pass it without being asked.
    Variant ``twist_pass_any``: the taker may pass this Twist too, so it is discarded only
    when some player owns no card at all.
    """

    kind = CINNAMON_TWIST
    phase = Phase.CINNAMON_TWIST

    def start(self, g: GameState, taker: int) -> bool:
        if not all(self._can_pass(g, p) for p in range(g.n)):
            discard_owned(g, taker, CINNAMON_TWIST)
            if g.events is not None:
                emit(
                    g,
                    EventType.CARD_DISCARDED,
                    player=taker,
                    other=taker,
                    card="cinnamon_twist",
                    source="cinnamon_twist",
                )
            return False
        g.passes = [-1] * g.n
        return True

    def _can_pass(self, g: GameState, player: int) -> bool:
        """Whether :meth:`_passable` is not empty."""
        if player != g.actor or TWIST_PASS_ANY in g.config.variants:
            return owns_more_than(g, player)
        return owns_more_than(g, player, excluding=CINNAMON_TWIST)

    def _passable(self, g: GameState, player: int) -> list[int]:
        if player != g.actor or TWIST_PASS_ANY in g.config.variants:
            return owned_kinds(g, player)
        return owned_kinds(g, player, excluding=CINNAMON_TWIST)

    def legal(self, g: GameState, player: int) -> list[int]:
        if g.passes[player] >= 0:
            return []
        return [PASS_BASE + k for k in self._passable(g, player)]

    def to_act(self, g: GameState) -> list[int]:
        return [p for p in range(g.n) if g.passes[p] < 0]

    def settle(self, g: GameState) -> bool:
        for p in range(g.n):
            if g.passes[p] < 0:
                legal = self.legal(g, p)
                if len(legal) == 1:
                    g.passes[p] = legal[0] - PASS_BASE
        if -1 in g.passes:
            return True
        self._pass_all(g)
        return False

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        g.passes[player] = action_id - PASS_BASE
        if -1 in g.passes:
            return False
        self._pass_all(g)
        return True

    @staticmethod
    def _pass_all(g: GameState) -> None:
        n = g.n
        for p in range(n):
            g.coll[p * K + g.passes[p]] -= 1
        for p in range(n):
            g.coll[((p + 1) % n) * K + g.passes[p]] += 1
        for p in range(n):
            if g.events is not None:
                emit(
                    g,
                    EventType.CARD_MOVED,
                    player=p,
                    other=(p + 1) % n,
                    card=KIND_IDS[g.passes[p]],
                    source="cinnamon_twist",
                )
        g.passes = []


class DayOld(Power):
    """Take up to three cards of your choice from the discard pile, one at a time, or stop."""

    kind = DAY_OLD
    phase = Phase.DAY_OLD

    def start(self, g: GameState, taker: int) -> bool:
        g.step = 0
        return True if g.discard else self.fizzle(g, taker)

    def legal(self, g: GameState, player: int) -> list[int]:
        if g.step >= DAY_OLD_TAKES or not g.discard:
            return []
        return [*(TAKE_BASE + k for k in g.kinds_in_discard()), STOP_ID]

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        if action_id == STOP_ID:
            return True
        kind = action_id - TAKE_BASE
        take_from_discard(g, player, kind)
        g.step += 1
        if g.events is not None:
            emit(
                g, EventType.TOOK_FROM_DISCARD, player=player, card=KIND_IDS[kind], source="day_old"
            )
        return False


class Milk(Power):
    """Discard three of your other cards, or discard this Milk.

    Ruling: with fewer than three other cards the Milk is discarded. ``discard milk`` discards
    the Milk itself; any other ``discard KIND`` starts the three-card discard.
    Variant ``milk_any_three``: any three of your cards, so the Milk may be the second or
    third of three (as the first, ``discard milk`` is still the alternative that ends the
    power); with fewer than three cards in all, the Milk is discarded.
    """

    kind = MILK
    phase = Phase.MILK

    def start(self, g: GameState, taker: int) -> bool:
        g.step = 0
        others = g.cards_owned(taker) - (0 if MILK_ANY_THREE in g.config.variants else 1)
        if others < MILK_DISCARDS:
            discard_owned(g, taker, MILK)
            if g.events is not None:
                emit(
                    g,
                    EventType.CARD_DISCARDED,
                    player=taker,
                    other=taker,
                    card="milk",
                    source="milk",
                )
            return False
        return True

    def legal(self, g: GameState, player: int) -> list[int]:
        if MILK_ANY_THREE in g.config.variants:
            return [DISCARD_BASE + k for k in owned_kinds(g, player)]
        others = [DISCARD_BASE + k for k in owned_kinds(g, player) if k != MILK]
        if g.step == 0:
            others.append(DISCARD_BASE + MILK)
            others.sort()
        return others

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        kind = action_id - DISCARD_BASE
        discard_owned(g, player, kind)
        if g.events is not None:
            emit(
                g,
                EventType.CARD_DISCARDED,
                player=player,
                other=player,
                card=KIND_IDS[kind],
                source="milk",
            )
        if kind == MILK and g.step == 0:
            return True
        g.step += 1
        return g.step >= MILK_DISCARDS


class RaspberryFrosted(Power):
    """Discard one of your other cards; with no other card, discard this Raspberry Frosted."""

    kind = RASPBERRY_FROSTED
    phase = Phase.RASPBERRY_FROSTED

    def start(self, g: GameState, taker: int) -> bool:
        if g.cards_owned(taker) == 1:
            discard_owned(g, taker, RASPBERRY_FROSTED)
            if g.events is not None:
                emit(
                    g,
                    EventType.CARD_DISCARDED,
                    player=taker,
                    other=taker,
                    card="raspberry_frosted",
                    source="raspberry_frosted",
                )
            return False
        return True

    def legal(self, g: GameState, player: int) -> list[int]:
        return [DISCARD_BASE + k for k in owned_kinds(g, player, excluding=RASPBERRY_FROSTED)]

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        kind = action_id - DISCARD_BASE
        discard_owned(g, player, kind)
        if g.events is not None:
            emit(
                g,
                EventType.CARD_DISCARDED,
                player=player,
                other=player,
                card=KIND_IDS[kind],
                source="raspberry_frosted",
            )
        return True


class StrawberryGlazed(Power):
    """Discard one card of your choice from an opponent; none owns a card: nothing (keep it)."""

    kind = STRAWBERRY_GLAZED
    phase = Phase.STRAWBERRY_GLAZED

    def start(self, g: GameState, taker: int) -> bool:
        return True if an_opponent_owns_a_card(g, taker) else self.fizzle(g, taker)

    def legal(self, g: GameState, player: int) -> list[int]:
        return [
            DISCARD_FROM_BASE + s * K + k for s in opponents(g, player) for k in owned_kinds(g, s)
        ]

    def apply(self, g: GameState, player: int, action_id: int) -> bool:
        seat, kind = seat_kind(action_id, DISCARD_FROM_BASE)
        discard_owned(g, seat, kind)
        if g.events is not None:
            emit(
                g,
                EventType.CARD_DISCARDED,
                player=player,
                other=seat,
                card=KIND_IDS[kind],
                source="strawberry_glazed",
            )
        return True


POWERS: Final[tuple[Power | None, ...]] = tuple(
    next(
        (
            p
            for p in (
                ChocolateFrosted(),
                Eclair(),
                FrenchCruller(),
                DoubleChocolate(),
                RedVelvet(),
                Sprinkled(),
                BearClaw(),
                CinnamonTwist(),
                DayOld(),
                Milk(),
                RaspberryFrosted(),
                StrawberryGlazed(),
            )
            if p.kind == kind
        ),
        None,
    )
    for kind in range(K)
)
"""The power of each kind (by index), or None."""

POWER_BY_PHASE: Final[dict[Phase, Power]] = {
    p.phase: p for p in POWERS if p is not None and p.phase is not Phase.SELECT
}
