"""The examples printed in the rulebook (seeds/000_…) and the walkthrough (seeds/001_…)."""

from __future__ import annotations

from collections import Counter

from gonuts.cards import KIND_BY_ID, Colour
from gonuts.events import EventType
from support import DECK_SIZES, canonical_ids, contest, events_of, legal, picks, play

E = EventType
PLAYERS = ["Ana", "Ben", "Claire"]


def test_claire_eclair_takes_a_french_cruller_without_its_power() -> None:
    """ "Claire won an éclair from the donut row and uses its power to take the top card from
    the discard pile. She gets a french cruller … She does not use the power for the french
    cruller, but still gets 2 points for that card at the end of the game."

    Ana and Ben both pick the Cruller at 1 (it is discarded); Claire takes the Éclair at 2.
    Positions 3 and 4 are unselected, so a Cruller power would have had a choice to offer.
    """
    top = ["french_cruller", "eclair", "glazed", "plain", "jelly_filled", "donut_holes"]
    game = play(PLAYERS, top, [(0, "pick 1"), (1, "pick 1"), (2, "pick 2")])
    assert game.collection(2) == {"eclair": 1, "french_cruller": 1}
    assert game.discard_pile == ()
    assert game.to_act == (0, 1, 2)  # no Cruller decision: the next round has begun
    assert game.round == 2
    assert game.row == ("jelly_filled", "donut_holes", "glazed", "plain")
    assert E.ROW_CARD_DISCARDED not in [e.type for e in game.event_log]
    assert game.scores() == [0, 0, 2]
    assert game.score_breakdown()[2].points_by_kind() == {"eclair": 0, "french_cruller": 2}


def test_claire_eclair_takes_a_cruller_discarded_in_an_earlier_round() -> None:
    top = ["french_cruller", "glazed", "plain", "powdered", "eclair"]
    game = play(PLAYERS, top, [*contest(3, 1), *picks(2, 3, 1)])
    assert game.collections == [{"glazed": 1}, {"plain": 1}, {"eclair": 1, "french_cruller": 1}]
    assert game.to_act == (0, 1, 2)
    assert game.scores()[2] == 2


def test_contested_card_at_1_is_taken_by_the_eclair_won_at_2() -> None:
    """ "If two or more players picked the same card, no one gets it! Immediately discard that
    card" — and "resolve any card action in the 1 slot before moving onto the next": the
    player who wins the Éclair at 2 takes the card contested at 1."""
    top = ["powdered", "eclair", "glazed", "plain", "jelly_filled"]
    game = play(4, top, [(0, "pick 1"), (1, "pick 1"), (2, "pick 2"), (3, "pick 3")])
    assert game.collections == [{}, {}, {"eclair": 1, "powdered": 1}, {"glazed": 1}]
    assert game.discard_pile == ()
    contested = events_of(game, E.CARD_CONTESTED)
    assert [(e.position, e.card, e.players) for e in contested] == [(1, "powdered", (0, 1))]
    took = events_of(game, E.TOOK_FROM_DISCARD)
    assert [(e.player, e.card, e.source) for e in took] == [(2, "powdered", "eclair")]


def test_setup_example_four_players() -> None:
    """ "Starting layout for 4-player game": selection cards 1–5 and a row of 5 cards."""
    top = ["glazed", "plain", "eclair", "powdered", "jelly_filled", "donut_holes"]
    game = play(4, top)
    assert game.row == ("glazed", "plain", "eclair", "powdered", "jelly_filled")
    assert game.deck_size == 61 - 5
    for seat in range(4):
        assert legal(game, seat) == ["pick 1", "pick 2", "pick 3", "pick 4", "pick 5"]
    # "The card closest to the donut deck will be referred to as card 1": the first dealt.
    assert game.event_log[0].cards == game.row


def test_setup_example_three_players_hold_1_to_4() -> None:
    """ "If there are three players, each player should receive the 1, 2, 3, and 4 selection
    cards." Placing the "2" takes card 2 from the row."""
    game = play(3, ["glazed", "plain", "eclair", "powdered"])
    assert legal(game, 1) == ["pick 1", "pick 2", "pick 3", "pick 4"]
    game = play(3, ["glazed", "plain", "eclair", "powdered"], picks(4, 2, 1))
    assert game.collections == [{"powdered": 1}, {"plain": 1}, {"glazed": 1}]


def test_walkthrough_colour_examples() -> None:
    """Walkthrough: a 4-player game uses the purple, pink and green cards and tokens 1 to 5;
    a 6-player game uses every colour and tokens 1 to 7."""
    four = Counter(canonical_ids(4))
    colours = {KIND_BY_ID[k].colour for k in four}
    assert colours == {Colour.GREEN, Colour.PINK, Colour.PURPLE}
    assert sum(four.values()) == DECK_SIZES[4]
    six = Counter(canonical_ids(6))
    assert {KIND_BY_ID[k].colour for k in six} == set(Colour)
    game = play(6, [])
    assert len(game.row) == 7
    assert legal(game, 5) == [f"pick {p}" for p in range(1, 8)]


def test_game_ends_when_the_row_cannot_be_fully_replenished() -> None:
    """ "The game ends when there are not enough donuts in the donut deck to fully replenish
    the donut row." Two players, 34 cards after the deal: after 33 contested rounds one card
    is left and two positions are emptied."""
    top = ["glazed", "plain", "powdered"]
    game = play(2, top, [*contest(2, 1, 33), *picks(1, 2)])
    assert game.is_over
    assert game.deck_size == 1
    assert game.to_act == ()
