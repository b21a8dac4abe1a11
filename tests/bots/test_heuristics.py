"""The greedy bot's evaluation: the fast per-seat rescoring gives exactly the whole-table numbers.

:func:`card_values` rescored only the taking seat unless the Plain majority or the fewest-cards
count can move; these properties compare it, bit for bit, with the definition (every player's
:func:`estimate` after adding the card), and :func:`player_score` with :func:`scores`.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gonuts.bots.heuristics import Context, card_values, estimate, relative
from gonuts.cards import GLAZED, MAPLE_FROSTED, NUM_KINDS, PLAIN
from gonuts.scoring import plain_bonuses, player_score, scores

K = NUM_KINDS
Table = tuple[list[int], Context, int]


def reference_card_values(coll: list[int], ctx: Context, seat: int) -> list[float]:
    base = relative(estimate(coll, ctx), seat)
    out = []
    for kind in range(K):
        grown = list(coll)
        grown[seat * K + kind] += 1
        out.append(relative(estimate(grown, ctx), seat) - base)
    return out


@st.composite
def tables(draw: st.DrawFn) -> Table:
    n = draw(st.integers(2, 6))
    # small counts, so ties on the fewest cards and on the most Plain are frequent
    coll = draw(st.lists(st.integers(0, 3), min_size=n * K, max_size=n * K))
    for p in range(n):
        if draw(st.booleans()):  # some players own nothing but a Plain or two
            for k in range(K):
                coll[p * K + k] = 0
            coll[p * K + PLAIN] = draw(st.integers(0, 2))
    available = tuple(draw(st.lists(st.integers(0, 5), min_size=K, max_size=K)))
    rounds_left = draw(st.floats(1.0, 30.0))
    return coll, Context(n, rounds_left, available), draw(st.integers(0, n - 1))


@settings(max_examples=400, deadline=None)
@given(tables())
def test_card_values_equal_the_whole_table_definition(
    table: Table,
) -> None:
    coll, ctx, seat = table
    assert card_values(coll, ctx, seat) == reference_card_values(coll, ctx, seat)


@settings(max_examples=300, deadline=None)
@given(tables())
def test_player_score_is_scores_one_player_at_a_time(table: Table) -> None:
    coll, ctx, _ = table
    n = ctx.n
    sizes = [sum(coll[p * K : p * K + K]) for p in range(n)]
    bonuses = plain_bonuses([coll[p * K + PLAIN] for p in range(n)])
    alone = [
        player_score(coll[p * K : p * K + K], sizes[p], min(sizes), bonuses[p]) for p in range(n)
    ]
    assert alone == scores(coll, n)


def test_the_fewest_cards_case_rescored_in_full() -> None:
    """Seat 0 alone has the fewest cards (none): any card it takes moves the fewest count, so
    seat 1's Maple Frosted starts to count — rescoring seat 0 alone would miss that."""
    n = 2
    coll = [0] * (n * K)
    coll[1 * K + MAPLE_FROSTED] = 1
    ctx = Context(n, 5.0, tuple([2] * K))
    values = card_values(coll, ctx, 0)
    assert values == reference_card_values(coll, ctx, 0)
    before = estimate(coll, ctx)
    grown = list(coll)
    grown[GLAZED] += 1
    seat_alone = [estimate(grown, ctx)[0], before[1]]  # seat 1's value left as it was
    assert values[GLAZED] != relative(seat_alone, 0) - relative(before, 0)
