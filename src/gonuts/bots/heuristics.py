"""Hand-written evaluation shared by the greedy bot: what a collection is likely worth at the end.

:func:`estimate` turns the exact end-game score of every player (:func:`gonuts.scoring.scores`)
into an *expected* final value: set cards count what their set is likely to reach, cards whose
score depends on the final collection (Old Fashioned, Maple Bar, Mucho Matcha, Maple Frosted)
count what they are likely to score once the game ends. :func:`power_bonus` values a ★ power
when its card is taken. Everything is computed from public facts plus one seat's view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gonuts.cards import (
    BEAR_CLAW,
    BOSTON_CREAM,
    CHOCOLATE_FROSTED,
    CINNAMON_TWIST,
    COFFEE,
    DAY_OLD,
    DONUT_HOLES,
    DOUBLE_CHOCOLATE,
    ECLAIR,
    FRENCH_CRULLER,
    JELLY_FILLED,
    MAPLE_BAR,
    MAPLE_FROSTED,
    MILK,
    MUCHO_MATCHA,
    NUM_KINDS,
    OLD_FASHIONED,
    PLAIN,
    RASPBERRY_FROSTED,
    RED_VELVET,
    SPRINKLED,
    STRAWBERRY_GLAZED,
)
from gonuts.scoring import SET_TABLES, plain_bonuses, player_score, scores

K: Final = NUM_KINDS
REACH: Final = 0.5
"""Chance of getting each further card of a set (discounted by availability and time)."""
AVERAGE_CARD: Final = 1.6
"""Rough value of an unknown card from the deck (Chocolate Frosted, Double Chocolate)."""


@dataclass(frozen=True, slots=True)
class Context:
    """Public facts the estimate depends on."""

    n: int
    rounds_left: float
    available: tuple[int, ...]
    """Per kind: cards that may still be won (in the row or unseen)."""


def make_context(n: int, deck_size: int, row: Sequence[int], unseen: Sequence[int]) -> Context:
    """``row``: kind per position (-1 empty); ``unseen``: count per kind."""
    avail = list(unseen)
    for c in row:
        if c >= 0:
            avail[c] += 1
    rounds_left = deck_size / max(1.0, 0.85 * n) + 1.0
    return Context(n, rounds_left, tuple(avail))


def _set_potential(kind: int, count: int, ctx: Context) -> float:
    table = SET_TABLES[kind]
    last = len(table) - 1
    best = float(table[min(count, last)])
    more = min(ctx.available[kind], int(ctx.rounds_left * 0.6), last - min(count, last))
    q = 1.0
    for extra in range(1, more + 1):
        q *= REACH
        value = table[min(count + extra, last)] * q
        best = max(best, value)
    return best


def _clip(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def estimate(coll: Sequence[int], ctx: Context) -> list[float]:
    """Each player's expected final value (exact score with conditional cards projected)."""
    n = ctx.n
    exact = scores(coll, n)
    sizes = [sum(coll[p * K : p * K + K]) for p in range(n)]
    fewest = min(sizes)
    return [_projected(coll[p * K : p * K + K], exact[p], sizes[p], fewest, ctx) for p in range(n)]


def _projected(c: Sequence[int], exact: int, size: int, fewest: int, ctx: Context) -> float:
    """One player's expected final value from their collection ``c`` and exact score."""
    v = float(exact)
    for kind in (DONUT_HOLES, JELLY_FILLED, BOSTON_CREAM):
        if c[kind] or kind == DONUT_HOLES:
            table = SET_TABLES[kind]
            v += _set_potential(kind, c[kind], ctx) - table[min(c[kind], len(table) - 1)]
    kinds = K - c.count(0)
    final_cards = size + 0.75 * ctx.rounds_left
    final_kinds = kinds + 0.35 * ctx.rounds_left
    if c[OLD_FASHIONED]:
        exact_of = 5 * c[OLD_FASHIONED] if size <= 9 else 0
        v += 5 * c[OLD_FASHIONED] * _clip((11.0 - final_cards) / 4.0) - exact_of
    if c[MAPLE_BAR]:
        exact_mb = 3 * c[MAPLE_BAR] if kinds >= 7 else 0
        v += 3 * c[MAPLE_BAR] * _clip((final_kinds - 5.0) / 3.0) - exact_mb
    if c[MUCHO_MATCHA]:
        exact_mm = 3 * c[MUCHO_MATCHA] if kinds <= 6 else 0
        v += 3 * c[MUCHO_MATCHA] * _clip((8.0 - final_kinds) / 3.0) - exact_mm
    if c[MAPLE_FROSTED]:
        exact_mf = 5 * c[MAPLE_FROSTED] if size == fewest else 0
        share = 0.6 if size == fewest else 0.25
        v += 5 * c[MAPLE_FROSTED] * share - exact_mf
    if c[COFFEE]:
        v += 0.5 * c[COFFEE]
    return v


def relative(values: Sequence[float], seat: int) -> float:
    """A seat's standing: its value minus a blend of the best and mean of the others."""
    others = [v for p, v in enumerate(values) if p != seat]
    return values[seat] - 0.5 * max(others) - 0.5 * sum(others) / len(others)


def card_values(coll: Sequence[int], ctx: Context, seat: int) -> list[float]:
    """Per kind: how much taking one card of that kind (without its power) is worth to ``seat``.

    One more card for ``seat`` changes another player's value only through the Plain majority
    or the fewest-cards count (Maple Frosted); every other kind rescored ``seat`` alone, which
    gives the same numbers as :func:`estimate` over the whole table, N times faster.
    """
    n = ctx.n
    before = estimate(coll, ctx)
    base = relative(before, seat)
    sizes = [sum(coll[p * K : p * K + K]) for p in range(n)]
    fewest = min(sizes)
    bonus = plain_bonuses([coll[p * K + PLAIN] for p in range(n)])[seat]
    mine = list(coll[seat * K : seat * K + K])
    size = sizes[seat] + 1
    others_fewest = min((sizes[p] for p in range(n) if p != seat), default=size)
    grown_fewest = min(others_fewest, size)
    values = list(before)
    full = list(coll)
    out: list[float] = []
    for kind in range(K):
        if kind == PLAIN or grown_fewest != fewest:
            full[seat * K + kind] += 1
            out.append(relative(estimate(full, ctx), seat) - base)
            full[seat * K + kind] -= 1
            continue
        mine[kind] += 1
        exact = player_score(mine, size, fewest, bonus)
        values[seat] = _projected(mine, exact, size, fewest, ctx)
        out.append(relative(values, seat) - base)
        mine[kind] -= 1
    return out


def power_bonus(
    kind: int,
    seat: int,
    *,
    coll: Sequence[int],
    values: Sequence[float],
    discard: Sequence[int],
    ctx: Context,
) -> float:
    """Rough worth of resolving ``kind``'s power for ``seat`` (0 for kinds without one)."""
    n = ctx.n
    own = [k for k in range(K) if coll[seat * K + k]]
    if kind == CHOCOLATE_FROSTED:
        return AVERAGE_CARD
    if kind == ECLAIR:
        return max(0.0, values[discard[-1]]) if discard else 0.0
    if kind == FRENCH_CRULLER:
        return 0.5
    if kind == DOUBLE_CHOCOLATE:
        return AVERAGE_CARD * 1.5
    if kind in (RED_VELVET, DAY_OLD):
        ranked = sorted((values[k] for k in set(discard)), reverse=True)
        takes = 1 if kind == RED_VELVET else 3
        return sum(v for v in ranked[:takes] if v > 0)
    if kind == SPRINKLED:
        # Must give one of the other cards away (or this Sprinkled, worth 2, if none).
        return -min((values[k] for k in own), default=2.0)
    if kind == BEAR_CLAW:
        stealable = [values[k] for p in range(n) if p != seat for k in range(K) if coll[p * K + k]]
        return max(0.0, max(stealable, default=0.0)) + 0.5
    if kind == STRAWBERRY_GLAZED:
        return 1.5 if any(coll[p * K + k] for p in range(n) if p != seat for k in range(K)) else 2.0
    if kind == RASPBERRY_FROSTED:
        return -min((values[k] for k in own), default=0.0)
    if kind == MILK:
        costs = sorted(values[k] for k in own for _ in range(coll[seat * K + k]) if k != MILK)
        if len(costs) < 3:
            return -5.0
        return max(-5.0, -sum(costs[:3]))
    if kind == CINNAMON_TWIST:
        return 0.0
    return 0.0
