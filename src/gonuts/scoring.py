"""End-game scoring (RULES.md "Scoring at the end") and the winners with both tie-breaks.

:func:`scores` is the fast path (search calls it at every leaf); :func:`breakdown` explains
each point for screens. Both read the same tables below, and the tests check they agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gonuts.cards import (
    BEAR_CLAW,
    BOSTON_CREAM,
    COFFEE,
    DAY_OLD,
    DONUT_HOLES,
    JELLY_FILLED,
    KINDS,
    MAPLE_BAR,
    MAPLE_FROSTED,
    MUCHO_MATCHA,
    NEGATIVE_KINDS,
    NUM_KINDS,
    OLD_FASHIONED,
    PLAIN,
    RED_VELVET,
    STRAWBERRY_GLAZED,
)

K: Final = NUM_KINDS

SET_TABLES: Final[dict[int, tuple[int, ...]]] = {
    # points for owning 0, 1, 2, … of the kind; counts past the end score as the last entry
    DONUT_HOLES: (0, 1, 3, 6, 10, 15),
    JELLY_FILLED: (0, 0, 5, 5, 10, 10, 15),
    BOSTON_CREAM: (0, 0, 6, 0, 15, 0, 25),
}
FIXED_POINTS: Final[dict[int, int]] = {
    k.index: k.base_points for k in KINDS if k.base_points is not None and k.base_points != 0
}
PLAIN_MAJORITY_BONUS: Final = 3
PLAIN_TIE_BONUS: Final = 1
MAPLE_BAR_POINTS: Final = 3
MAPLE_BAR_MIN_KINDS: Final = 7  # more than 6 kinds
MUCHO_MATCHA_POINTS: Final = 3
MUCHO_MATCHA_MAX_KINDS: Final = 6  # fewer than 7 kinds
OLD_FASHIONED_POINTS: Final = 5
OLD_FASHIONED_MAX_CARDS: Final = 9  # fewer than 10 cards
MAPLE_FROSTED_POINTS: Final = 5

# The hot path's tables, all Final (compiled: C statics, not module-dict lookups).
_HOLES: Final = SET_TABLES[DONUT_HOLES]
_JELLY: Final = SET_TABLES[JELLY_FILLED]
_BOSTON: Final = SET_TABLES[BOSTON_CREAM]
_PER_CARD: Final[list[int]] = [FIXED_POINTS.get(k, 0) for k in range(K)]
"""Fixed points per card of each kind (0 where a kind's points depend on something else)."""


def set_points(kind: int, count: int) -> int:
    table = SET_TABLES[kind]
    return table[min(count, len(table) - 1)]


def plain_bonuses(plain_counts: Sequence[int]) -> list[int]:
    """Majority bonus per player: +3 for the strict most, +1 each when tied; none for zero."""
    most = max(plain_counts)
    if most == 0:
        return [0] * len(plain_counts)
    bonus = PLAIN_MAJORITY_BONUS if plain_counts.count(most) == 1 else PLAIN_TIE_BONUS
    return [bonus if c == most else 0 for c in plain_counts]


def scores(coll: Sequence[int], n: int) -> list[int]:
    """Every player's total, from flat collections ``coll[player * K + kind]``."""
    return flat_scores(coll if isinstance(coll, list) else list(coll), n)


def flat_scores(coll: list[int], n: int) -> list[int]:
    """:func:`scores` of a list (the search's leaf: no slices, no boxed tuples)."""
    sizes = [0] * n
    most = 0
    most_count = 0
    for p in range(n):
        base = p * K
        size = 0
        for k in range(K):
            size += coll[base + k]
        sizes[p] = size
        plain = coll[base + PLAIN]
        if plain > most:
            most = plain
            most_count = 1
        elif plain == most:
            most_count += 1
    fewest = min(sizes)
    bonus = PLAIN_MAJORITY_BONUS if most_count == 1 else PLAIN_TIE_BONUS
    out = [0] * n
    for p in range(n):
        plain_bonus = bonus if most > 0 and coll[p * K + PLAIN] == most else 0
        out[p] = score_at(coll, p * K, sizes[p], fewest, plain_bonus)
    return out


def player_score(c: Sequence[int], size: int, fewest: int, plain_bonus: int) -> int:
    """One player's total from their collection ``c`` (count per kind), their number of cards,
    the fewest cards any player has (Maple Frosted) and their Plain majority bonus — the only
    facts about the others a score depends on (so a search can rescore one player alone)."""
    return score_at(c if isinstance(c, list) else list(c), 0, size, fewest, plain_bonus)


def score_at(coll: list[int], base: int, size: int, fewest: int, plain_bonus: int) -> int:
    """:func:`player_score` of the counts ``coll[base : base + K]``, read in place."""
    s = coll[base + PLAIN] + plain_bonus
    kinds = 0
    per_card = _PER_CARD
    for k in range(K):
        count = coll[base + k]
        if count:
            kinds += 1
            s += per_card[k] * count
    s += _HOLES[min(coll[base + DONUT_HOLES], 5)] + _JELLY[min(coll[base + JELLY_FILLED], 6)]
    s += _BOSTON[min(coll[base + BOSTON_CREAM], 6)]
    if kinds >= MAPLE_BAR_MIN_KINDS:
        s += MAPLE_BAR_POINTS * coll[base + MAPLE_BAR]
    if kinds <= MUCHO_MATCHA_MAX_KINDS:
        s += MUCHO_MATCHA_POINTS * coll[base + MUCHO_MATCHA]
    if size <= OLD_FASHIONED_MAX_CARDS:
        s += OLD_FASHIONED_POINTS * coll[base + OLD_FASHIONED]
    if size == fewest:
        s += MAPLE_FROSTED_POINTS * coll[base + MAPLE_FROSTED]
    coffee = coll[base + COFFEE]
    if coffee:
        negatives = coll[base + RED_VELVET] + coll[base + BEAR_CLAW]
        s += coffee * (negatives + coll[base + DAY_OLD] + coll[base + STRAWBERRY_GLAZED])
    return s


def winners(totals: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """Highest total; then most cards; still tied, all of them share the victory."""
    return flat_winners(list(totals), list(sizes))


def flat_winners(totals: list[int], sizes: list[int]) -> tuple[int, ...]:
    """:func:`winners` of lists (the end of every playout)."""
    best = max(totals)
    most = -1
    for p in range(len(totals)):
        if totals[p] == best and sizes[p] > most:
            most = sizes[p]
    return tuple([p for p in range(len(totals)) if totals[p] == best and sizes[p] == most])


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """What one kind contributes to one player's score, and why."""

    kind: str
    count: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """One player's score, kind by kind (only kinds they own), plus the facts it depends on."""

    player: int
    total: int
    cards: int
    kinds: int
    lines: tuple[ScoreLine, ...]

    def points_by_kind(self) -> dict[str, int]:
        return {line.kind: line.points for line in self.lines}


def breakdown(coll: Sequence[int], n: int) -> list[ScoreBreakdown]:
    """Each player's score explained kind by kind; totals equal :func:`scores`."""
    sizes = [sum(coll[p * K : p * K + K]) for p in range(n)]
    plain_counts = [coll[p * K + PLAIN] for p in range(n)]
    bonuses = plain_bonuses(plain_counts)
    fewest = min(sizes)
    result = []
    for p in range(n):
        c = coll[p * K : p * K + K]
        kinds = K - c.count(0)
        negatives = sum(c[k] for k in NEGATIVE_KINDS)
        lines = []
        for kind in range(K):
            count = c[kind]
            if count:
                points, reason = _kind_points(
                    kind,
                    count,
                    kinds=kinds,
                    cards=sizes[p],
                    fewest=fewest,
                    plain_bonus=bonuses[p],
                    negatives=negatives,
                    n=n,
                )
                lines.append(ScoreLine(KINDS[kind].id, count, points, reason))
        total = sum(line.points for line in lines)
        result.append(ScoreBreakdown(p, total, sizes[p], kinds, tuple(lines)))
    return result


def _kind_points(
    kind: int,
    count: int,
    *,
    kinds: int,
    cards: int,
    fewest: int,
    plain_bonus: int,
    negatives: int,
    n: int,
) -> tuple[int, str]:
    """Points for ``count`` cards of ``kind`` and a short reason (one place per scoring rule)."""
    if kind in SET_TABLES:
        return set_points(kind, count), f"set of {count}"
    if kind == PLAIN:
        if plain_bonus == PLAIN_MAJORITY_BONUS:
            return count + plain_bonus, f"{count} × 1, +3 for the most Plain"
        if plain_bonus == PLAIN_TIE_BONUS:
            return count + plain_bonus, f"{count} × 1, +1 tied for the most Plain"
        return count, f"{count} × 1, no majority"
    if kind == MAPLE_BAR:
        ok = kinds >= MAPLE_BAR_MIN_KINDS
        return (MAPLE_BAR_POINTS * count if ok else 0), f"{kinds} kinds ({'>' if ok else '≤'} 6)"
    if kind == MUCHO_MATCHA:
        ok = kinds <= MUCHO_MATCHA_MAX_KINDS
        return (MUCHO_MATCHA_POINTS * count if ok else 0), f"{kinds} kinds ({'<' if ok else '≥'} 7)"
    if kind == OLD_FASHIONED:
        ok = cards <= OLD_FASHIONED_MAX_CARDS
        return (
            OLD_FASHIONED_POINTS * count if ok else 0
        ), f"{cards} cards ({'<' if ok else '≥'} 10)"
    if kind == MAPLE_FROSTED:
        ok = cards == fewest
        why = "fewest cards" if ok else f"{cards} cards, fewest is {fewest}"
        return (MAPLE_FROSTED_POINTS * count if ok else 0), why
    if kind == COFFEE:
        return count * negatives, f"{count} × {negatives} negative card(s)"
    points = FIXED_POINTS.get(kind, 0)
    return points * count, f"{count} × {points}"
