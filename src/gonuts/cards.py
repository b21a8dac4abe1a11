"""The 23 donut kinds as data: names, counts, player-count colours, scoring text and powers.

Every other module refers to a kind by its index in :data:`KINDS` (a small int, fast to
count with) or by its id string (``"eclair"``), the spelling used in records and APIs.
The order of :data:`KINDS` is the order of the table in ``RULES.md``; it also fixes the
canonical (unshuffled) deck order used by the seeded shuffle.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Final

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6


class Colour(Enum):
    """A card's background colour (and dots): the smallest player count that uses it."""

    GREEN = 2
    PINK = 3
    PURPLE = 4
    BLUE = 5

    @property
    def min_players(self) -> int:
        return self.value


@dataclass(frozen=True, slots=True)
class CardKind:
    """One kind of donut card. Cards of one kind are identical."""

    index: int
    id: str
    name: str
    count: int
    """How many cards of this kind a full deck holds (French Cruller: one per colour in play)."""
    colour: Colour
    points: str
    """End-game scoring, in words (for screens and rule summaries)."""
    power: str | None
    """The ★ power in words, or None for a card without one."""
    base_points: int | None = None
    """Fixed points per card, where the score does not depend on anything else."""

    @property
    def min_players(self) -> int:
        return self.colour.min_players

    @property
    def has_power(self) -> bool:
        return self.power is not None

    def __str__(self) -> str:
        return self.id


_G, _P, _U, _B = Colour.GREEN, Colour.PINK, Colour.PURPLE, Colour.BLUE

KINDS: Final[tuple[CardKind, ...]] = (
    CardKind(0, "chocolate_frosted", "Chocolate Frosted", 3, _G, "0",
             "Draw the top card of the deck into your collection.", 0),
    CardKind(1, "donut_holes", "Donut Holes", 6, _G, "Set: 1→1, 2→3, 3→6, 4→10, 5+→15", None),
    CardKind(2, "eclair", "Éclair", 3, _G, "0", "Take the top card of the discard pile.", 0),
    CardKind(3, "french_cruller", "French Cruller", 4, _G, "2",
             "Discard any number of row cards that no player selected this round.", 2),
    CardKind(4, "glazed", "Glazed", 5, _G, "2", None, 2),
    CardKind(5, "jelly_filled", "Jelly-Filled", 6, _G, "Set: 1→0, 2–3→5, 4–5→10, 6→15", None),
    CardKind(6, "maple_bar", "Maple Bar", 2, _G, "3 if you own more than 6 kinds", None),
    CardKind(7, "plain", "Plain", 7, _G,
             "1 each; most Plain +3 (tied for most: +1 each)", None),
    CardKind(8, "powdered", "Powdered", 4, _G, "3", None, 3),
    CardKind(9, "boston_cream", "Boston Cream", 6, _P,
             "Set: 1→0, 2→6, 3→0, 4→15, 5→0, 6→25", None),
    CardKind(10, "double_chocolate", "Double Chocolate", 2, _P, "0",
             "Draw two cards from the deck, keep one, put the other back on top.", 0),
    CardKind(11, "red_velvet", "Red Velvet", 2, _P, "−2",
             "Take one card of your choice from the discard pile.", -2),
    CardKind(12, "sprinkled", "Sprinkled", 2, _P, "2",
             "Give one of your other cards to an opponent; if you own no other card, give this "
             "Sprinkled.", 2),
    CardKind(13, "bear_claw", "Bear Claw", 2, _U, "−2", "Take a card from an opponent.", -2),
    CardKind(14, "cinnamon_twist", "Cinnamon Twist", 2, _U, "1",
             "Every player passes one card (yours: not this one) to the player on their left; "
             "if anyone has no card to pass, discard this Cinnamon Twist instead.", 1),
    CardKind(15, "coffee", "Coffee", 2, _U, "+1 for each negative card you own", None),
    CardKind(16, "day_old", "Day-Old Donuts", 1, _U, "−7",
             "Take up to 3 cards of your choice from the discard pile.", -7),
    CardKind(17, "milk", "Milk", 1, _U, "5",
             "Discard 3 of your other cards, or discard this Milk (you must with fewer than 3 "
             "other cards).", 5),
    CardKind(18, "old_fashioned", "Old Fashioned", 2, _U, "5 if you own fewer than 10 cards", None),
    CardKind(19, "maple_frosted", "Maple Frosted", 2, _B, "5 if you own the fewest cards", None),
    CardKind(20, "mucho_matcha", "Mucho Matcha", 2, _B, "3 if you own fewer than 7 kinds", None),
    CardKind(21, "raspberry_frosted", "Raspberry Frosted", 2, _B, "0",
             "Discard one of your other cards; if you own no other card, discard this Raspberry "
             "Frosted.", 0),
    CardKind(22, "strawberry_glazed", "Strawberry Glazed", 2, _B, "−2",
             "Discard one card of your choice from an opponent; if no opponent owns a card, "
             "nothing happens.", -2),
)  # fmt: skip

NUM_KINDS: Final = len(KINDS)
KIND_BY_ID: Final[dict[str, CardKind]] = {k.id: k for k in KINDS}
KIND_IDS: Final[tuple[str, ...]] = tuple(k.id for k in KINDS)

# Kind indexes by name, for the rules code (fast int comparisons, readable names).
CHOCOLATE_FROSTED: Final = 0
DONUT_HOLES: Final = 1
ECLAIR: Final = 2
FRENCH_CRULLER: Final = 3
GLAZED: Final = 4
JELLY_FILLED: Final = 5
MAPLE_BAR: Final = 6
PLAIN: Final = 7
POWDERED: Final = 8
BOSTON_CREAM: Final = 9
DOUBLE_CHOCOLATE: Final = 10
RED_VELVET: Final = 11
SPRINKLED: Final = 12
BEAR_CLAW: Final = 13
CINNAMON_TWIST: Final = 14
COFFEE: Final = 15
DAY_OLD: Final = 16
MILK: Final = 17
OLD_FASHIONED: Final = 18
MAPLE_FROSTED: Final = 19
MUCHO_MATCHA: Final = 20
RASPBERRY_FROSTED: Final = 21
STRAWBERRY_GLAZED: Final = 22

NEGATIVE_KINDS: Final = (RED_VELVET, BEAR_CLAW, DAY_OLD, STRAWBERRY_GLAZED)
"""Kinds whose own score is negative (what Coffee counts)."""


def colours_in_play(players: int) -> tuple[Colour, ...]:
    """The colours whose cards are used with this many players."""
    check_player_count(players)
    return tuple(c for c in Colour if c.min_players <= players)


def check_player_count(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"a game has 2 to 6 players, not {players}")


def kind_count(kind: CardKind, players: int) -> int:
    """How many cards of ``kind`` the deck for ``players`` holds."""
    if kind.min_players > players:
        return 0
    if kind.index == FRENCH_CRULLER:
        return len(colours_in_play(players))
    return kind.count


@cache
def deck_counts(players: int) -> tuple[int, ...]:
    """Count of each kind (by index) in the deck for ``players``."""
    check_player_count(players)
    return tuple(kind_count(k, players) for k in KINDS)


@cache
def canonical_deck(players: int) -> tuple[int, ...]:
    """The deck for ``players`` in table order (kind by kind), before shuffling."""
    counts = deck_counts(players)
    return tuple(k for k in range(NUM_KINDS) for _ in range(counts[k]))


def kind_index(kind_id: str) -> int:
    """Index of a kind from its id; ``KeyError`` names an unknown kind."""
    try:
        return KIND_BY_ID[kind_id].index
    except KeyError:
        raise KeyError(f"unknown card kind {kind_id!r}") from None
