"""End-game scoring and winners (RULES.md "Scoring at the end", "Winning")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from gonuts.scoring import breakdown, scores, winners
from support import contest, flat, picks, play

Coll = Mapping[str, int]


def score(*collections: Coll) -> list[int]:
    return scores(flat(collections), len(collections))


def alone(coll: Coll) -> int:
    """Score of one collection in a 2-player game against an empty collection."""
    return score(coll, {})[0]


# -- sets ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "points"), [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 15), (6, 15)]
)
def test_donut_holes(count: int, points: int) -> None:
    assert alone({"donut_holes": count}) == points


@pytest.mark.parametrize(
    ("count", "points"), [(0, 0), (1, 0), (2, 5), (3, 5), (4, 10), (5, 10), (6, 15)]
)
def test_jelly_filled(count: int, points: int) -> None:
    assert alone({"jelly_filled": count}) == points


@pytest.mark.parametrize(
    ("count", "points"), [(0, 0), (1, 0), (2, 6), (3, 0), (4, 15), (5, 0), (6, 25)]
)
def test_boston_cream(count: int, points: int) -> None:
    assert alone({"boston_cream": count}) == points


def test_sets_score_once_per_player_beside_other_cards() -> None:
    coll = {"donut_holes": 3, "jelly_filled": 2, "boston_cream": 2, "glazed": 1}
    assert alone(coll) == 6 + 5 + 6 + 2


# -- fixed points --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "points"),
    [
        ("glazed", 2),
        ("powdered", 3),
        ("french_cruller", 2),
        ("sprinkled", 2),
        ("cinnamon_twist", 1),
        ("milk", 5),
        ("chocolate_frosted", 0),
        ("eclair", 0),
        ("double_chocolate", 0),
        ("raspberry_frosted", 0),
        ("red_velvet", -2),
        ("bear_claw", -2),
        ("strawberry_glazed", -2),
        ("day_old", -7),
    ],
)
def test_fixed_points_per_card(kind: str, points: int) -> None:
    assert alone({kind: 1}) == points
    assert alone({kind: 2}) == 2 * points


def test_empty_collections_score_zero() -> None:
    assert score({}, {}, {}) == [0, 0, 0]


# -- plain ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plains", "expected"),
    [
        ([3, 1], [6, 1]),  # strict majority: +3
        ([1, 0], [4, 0]),
        ([0, 1, 0], [0, 4, 0]),
        ([2, 2, 0], [3, 3, 0]),  # tie for the most: +1 each
        ([2, 2, 1], [3, 3, 1]),
        ([1, 1, 1], [2, 2, 2]),
        ([3, 2, 2, 1], [6, 2, 2, 1]),
        ([0, 0], [0, 0]),  # Ruling: no Plain card, no bonus
        ([0, 0, 0, 0, 0, 0], [0] * 6),
    ],
)
def test_plain_one_each_and_majority_bonus(plains: list[int], expected: list[int]) -> None:
    assert score(*({"plain": c} for c in plains)) == expected


def test_plain_bonus_looks_only_at_plain() -> None:
    # Many other cards do not beat a single Plain.
    assert score({"plain": 1}, {"glazed": 5}) == [4, 10]


# -- kinds, sizes, fewest ------------------------------------------------------------------------

FIVE_KINDS: dict[str, int] = {
    "glazed": 1,
    "powdered": 1,
    "plain": 1,
    "eclair": 1,
    "chocolate_frosted": 1,
}  # five kinds; the card under test makes six


def test_maple_bar_needs_more_than_six_kinds() -> None:
    six = {**FIVE_KINDS, "maple_bar": 1}  # 6 kinds
    seven = {**six, "donut_holes": 1}  # 7 kinds
    base6 = 2 + 3 + 1 + 3  # glazed, powdered, plain (+3 majority vs empty)
    assert alone(six) == base6
    assert alone(seven) == base6 + 1 + 3
    assert alone({**seven, "maple_bar": 2}) == base6 + 1 + 6


def test_mucho_matcha_needs_fewer_than_seven_kinds() -> None:
    six = {**FIVE_KINDS, "mucho_matcha": 1}
    seven = {**six, "donut_holes": 1}
    base6 = 2 + 3 + 1 + 3
    assert alone(six) == base6 + 3
    assert alone({**six, "mucho_matcha": 2}) == base6 + 6
    assert alone(seven) == base6 + 1
    assert alone({"mucho_matcha": 1}) == 3


def test_maple_bar_and_mucho_matcha_count_kinds_not_cards() -> None:
    assert alone({"maple_bar": 1, "glazed": 9}) == 18
    assert alone({"mucho_matcha": 1, "glazed": 9}) == 21


def test_old_fashioned_needs_fewer_than_ten_cards() -> None:
    nine = {"old_fashioned": 1, "donut_holes": 5, "chocolate_frosted": 3}  # 9 cards
    ten = {"old_fashioned": 1, "donut_holes": 5, "chocolate_frosted": 4}  # 10 cards
    assert alone(nine) == 5 + 15
    assert alone(ten) == 15
    assert alone({"old_fashioned": 2}) == 10
    assert alone({"old_fashioned": 2, "chocolate_frosted": 8}) == 0


def test_maple_frosted_scores_for_the_fewest_cards() -> None:
    assert score({"maple_frosted": 1}, {"eclair": 2}) == [5, 0]
    assert score({"maple_frosted": 2}, {"eclair": 3}) == [10, 0]
    assert score({"maple_frosted": 1, "eclair": 2}, {"eclair": 2}) == [0, 0]


def test_maple_frosted_tied_for_fewest_all_count() -> None:
    """Ruling: players tied for the fewest cards all count as having the fewest."""
    assert score({"maple_frosted": 1, "eclair": 1}, {"maple_frosted": 2}, {"eclair": 3}) == [
        5,
        10,
        0,
    ]


def test_maple_frosted_counts_players_with_no_card() -> None:
    """A player with no card at all owns fewer cards than the Maple Frosted owner."""
    assert score({"maple_frosted": 1}, {}) == [0, 0]


# -- coffee --------------------------------------------------------------------------------------


def test_coffee_scores_one_per_negative_card() -> None:
    negatives = {"red_velvet": 1, "bear_claw": 1, "day_old": 1, "strawberry_glazed": 1}
    assert alone({"coffee": 1}) == 0
    assert alone({"coffee": 1, **negatives}) == 4 - 2 - 2 - 7 - 2
    assert alone({"coffee": 1, "red_velvet": 2}) == 2 - 4


def test_each_coffee_scores() -> None:
    assert alone({"coffee": 2, "bear_claw": 2}) == 2 * 2 - 4


def test_coffee_ignores_zero_scoring_cards() -> None:
    """A set card scoring 0 (one Jelly, one or three Boston Cream) is not negative."""
    coll = {
        "coffee": 1,
        "jelly_filled": 1,
        "boston_cream": 3,
        "eclair": 1,
        "raspberry_frosted": 1,
        "chocolate_frosted": 1,
        "double_chocolate": 1,
    }
    assert alone(coll) == 0


def test_coffee_counts_only_its_owners_negatives() -> None:
    assert score({"coffee": 1}, {"day_old": 1}) == [0, -7]


# -- a whole collection, breakdown ---------------------------------------------------------------


def test_mixed_collection() -> None:
    a = {
        "plain": 2,
        "donut_holes": 2,
        "jelly_filled": 4,
        "maple_bar": 1,
        "glazed": 1,
        "coffee": 1,
        "bear_claw": 1,
        "old_fashioned": 1,
    }  # 13 cards, 8 kinds
    b = {"plain": 2, "maple_frosted": 1, "mucho_matcha": 1, "boston_cream": 4}  # 8 cards
    c = {"plain": 1, "maple_frosted": 1, "powdered": 9}  # 11 cards
    expected_a = 2 + 1 + 3 + 10 + 3 + 2 + 1 - 2 + 0
    expected_b = 2 + 1 + 5 + 3 + 15
    expected_c = 1 + 0 + 27
    assert score(a, b, c) == [expected_a, expected_b, expected_c]
    lines = breakdown(flat([a, b, c]), 3)
    assert [x.total for x in lines] == [expected_a, expected_b, expected_c]
    assert lines[0].points_by_kind() == {
        "plain": 3,
        "donut_holes": 3,
        "jelly_filled": 10,
        "maple_bar": 3,
        "glazed": 2,
        "coffee": 1,
        "bear_claw": -2,
        "old_fashioned": 0,
    }
    assert lines[1].points_by_kind() == {
        "plain": 3,
        "maple_frosted": 5,
        "mucho_matcha": 3,
        "boston_cream": 15,
    }
    assert lines[2].points_by_kind() == {"plain": 1, "maple_frosted": 0, "powdered": 27}
    assert [(x.cards, x.kinds) for x in lines] == [(13, 8), (8, 4), (11, 3)]
    assert [x.player for x in lines] == [0, 1, 2]


@pytest.mark.parametrize(
    "collections",
    [
        [{"plain": 3}, {"plain": 3}, {"coffee": 2, "day_old": 1, "milk": 1}],
        [{"maple_frosted": 2, "mucho_matcha": 2}, {"maple_bar": 2, "old_fashioned": 2}],
        [
            {k: 1 for k in ("glazed", "plain", "eclair", "maple_bar", "powdered", "coffee")},
            {"boston_cream": 5, "jelly_filled": 6, "donut_holes": 6},
            {},
        ],
    ],
)
def test_breakdown_totals_equal_scores(collections: Sequence[Coll]) -> None:
    totals = score(*collections)
    parts = breakdown(flat(collections), len(collections))
    assert [p.total for p in parts] == totals
    for part in parts:
        assert sum(part.points_by_kind().values()) == part.total
        assert {line.kind for line in part.lines} == set(collections[part.player])


def test_game_scores_and_breakdown_follow_the_collections() -> None:
    # 3 players: seat 0 takes two Plain, seat 1 one Plain and a Glazed, seat 2 a Powdered.
    top = ["plain", "plain", "powdered", "jelly_filled", "plain", "glazed", "donut_holes"]
    game = play(3, top, [*picks(1, 2, 3), *picks(1, 2, 4)])
    assert game.collections == [
        {"plain": 2},
        {"plain": 1, "glazed": 1},
        {"powdered": 1, "jelly_filled": 1},
    ]
    assert game.scores() == [5, 3, 3]
    assert [b.total for b in game.score_breakdown()] == [5, 3, 3]
    assert game.score_breakdown()[0].points_by_kind() == {"plain": 5}
    assert game.view(2).scores == (5, 3, 3)


# -- winners -------------------------------------------------------------------------------------


def test_winner_highest_total() -> None:
    assert winners([10, 12, 3], [5, 1, 9]) == (1,)


def test_winner_tie_broken_by_most_cards() -> None:
    assert winners([12, 12, 3], [5, 6, 9]) == (1,)
    assert winners([12, 12, 12], [7, 6, 7]) == (0, 2)


def test_winner_still_tied_share_the_victory() -> None:
    assert winners([12, 12, 3], [6, 6, 9]) == (0, 1)
    assert winners([0, 0], [0, 0]) == (0, 1)


def test_game_winners_at_the_end() -> None:
    """A 2-player game played out: every round both pick position 1, so the row card is
    contested and discarded, except that seat 1 takes position 2 once and seat 0 position 3."""
    top = ["glazed", "plain", "powdered"]  # rest of the deck in table order
    # 34 cards left after the deal: 2 refill round 1, then one per contested round.
    game = play(2, top, [*picks(3, 2), *contest(2, 1, 33)])
    # Round 1: seat 0 takes the Powdered (3), seat 1 the Plain (4 with the majority bonus).
    assert game.collections == [{"powdered": 1}, {"plain": 1}]
    assert game.is_over
    assert game.scores() == [3, 4]
    assert game.winner_seats == (1,)
    assert game.to_act == ()


def test_game_tie_on_points_goes_to_most_cards() -> None:
    """Seat 0's Chocolate Frosted draws a Maple Bar, seat 1 takes an Éclair: 0 points each,
    but seat 0 owns two cards to one. Every later round is contested until the end."""
    top = ["chocolate_frosted", "eclair", "glazed", "maple_bar"]
    # 34 cards after the deal: one drawn, two refill round 1, then one per contested round.
    game = play(2, top, [*picks(1, 2), *contest(2, 1, 32)])
    assert game.collections == [{"chocolate_frosted": 1, "maple_bar": 1}, {"eclair": 1}]
    assert game.is_over
    assert game.scores() == [0, 0]
    assert game.winner_seats == (0,)
