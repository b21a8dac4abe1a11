"""The ★ powers (RULES.md "Powers"), each played through records replayed by the public API.

Every test stacks the top of the deck so that the cards it needs are dealt where it needs
them; the comments give the row at the decisive moment. ``draft`` deals each seat its hand,
one card a round, while position N+1 keeps the card under test.
"""

from __future__ import annotations

from gonuts.events import EventType
from gonuts.game import Game
from support import (
    Act,
    contest,
    deck_top,
    draft,
    event_types,
    events_of,
    legal,
    picks,
    play,
    stacked_deck,
)

E = EventType


def only_picks(game: Game) -> bool:
    """No decision but selections was recorded (powers without a choice are not actions)."""
    return all(str(a).startswith("pick ") for _, a in game.actions_taken())


# -- Chocolate Frosted ---------------------------------------------------------------------------


def test_chocolate_frosted_draws_the_top_card() -> None:
    top = ["chocolate_frosted", "glazed", "plain", "powdered", "jelly_filled", "donut_holes"]
    game = play(2, top, picks(1, 2))
    assert game.collections == [{"chocolate_frosted": 1, "powdered": 1}, {"glazed": 1}]
    assert game.row == ("jelly_filled", "donut_holes", "plain")
    assert game.deck_size == 37 - 3 - 1 - 2
    assert game.discard_pile == ()
    assert game.round == 2
    assert game.to_act == (0, 1)
    assert only_picks(game)
    assert event_types(game) == [
        E.ROUND_STARTED,
        E.SELECTIONS_REVEALED,
        E.CARD_TAKEN,
        E.CARD_DRAWN,
        E.CARD_TAKEN,
        E.ROW_REFILLED,
        E.ROUND_STARTED,
    ]
    drawn = events_of(game, E.CARD_DRAWN)[0]
    assert (drawn.player, drawn.card, drawn.source) == (0, "powdered", "chocolate_frosted")


def test_chocolate_frosted_draws_a_power_card_without_resolving_it() -> None:
    # Round 1 puts a Glazed on the pile; the Éclair drawn in round 2 does not take it.
    top = ["glazed", "plain", "powdered", "chocolate_frosted", "eclair", "jelly_filled", "plain"]
    game = play(2, top, [*contest(2, 1), *picks(1, 2)])
    assert game.collections == [{"chocolate_frosted": 1, "eclair": 1}, {"plain": 1}]
    assert game.discard_pile == ("glazed",)
    assert game.row == ("jelly_filled", "plain", "powdered")
    assert E.TOOK_FROM_DISCARD not in event_types(game)


def test_chocolate_frosted_with_an_empty_deck_does_nothing() -> None:
    top = ["glazed", "plain", "chocolate_frosted"]
    # 34 cards left after the deal; each contested round moves one onto the pile.
    before = play(2, top, contest(2, 1, 34))
    assert before.deck_size == 0
    assert not before.is_over
    assert before.row[1:] == ("plain", "chocolate_frosted")
    game = play(2, top, [*contest(2, 1, 34), *picks(3, 2)])
    assert game.collections == [{"chocolate_frosted": 1}, {"plain": 1}]
    fizzled = events_of(game, E.POWER_FIZZLED)
    assert [(e.player, e.source) for e in fizzled] == [(0, "chocolate_frosted")]
    assert game.is_over


# -- Éclair --------------------------------------------------------------------------------------


def test_eclair_takes_the_top_card_of_the_discard_pile() -> None:
    top = ["glazed", "plain", "powdered", "jelly_filled", "eclair"]
    acts = [*contest(2, 1), *contest(2, 2)]  # pile: glazed, plain; row: jelly, eclair, powdered
    before = play(2, top, acts)
    assert before.discard_pile == ("glazed", "plain")
    assert before.row == ("jelly_filled", "eclair", "powdered")
    game = play(2, top, [*acts, *picks(2, 1)])
    assert game.collections == [{"eclair": 1, "plain": 1}, {"jelly_filled": 1}]
    assert game.discard_pile == ("glazed",)
    took = events_of(game, E.TOOK_FROM_DISCARD)
    assert [(e.player, e.card, e.source) for e in took] == [(0, "plain", "eclair")]
    assert only_picks(game)
    assert game.to_act == (0, 1)


def test_eclair_with_an_empty_pile_does_nothing() -> None:
    game = play(2, ["eclair", "glazed", "plain"], picks(1, 2))
    assert game.collections == [{"eclair": 1}, {"glazed": 1}]
    assert game.discard_pile == ()
    assert [(e.player, e.source) for e in events_of(game, E.POWER_FIZZLED)] == [(0, "eclair")]
    assert game.to_act == (0, 1)


# -- French Cruller ------------------------------------------------------------------------------

CRULLER_TOP = [
    "french_cruller",
    "glazed",
    "plain",
    "powdered",
    "jelly_filled",
    "donut_holes",
    "maple_bar",
    "glazed",
]
# Seat 0 takes the Cruller at 1; seats 1 and 2 both select 2 (contested, resolved later).
CRULLER_PICKS = picks(1, 2, 2)


def test_french_cruller_offers_only_unselected_positions() -> None:
    game = play(3, CRULLER_TOP, CRULLER_PICKS)
    assert game.pending_power == "french_cruller"
    assert game.to_act == (0,)
    # Position 2 is selected (not yet resolved): never eligible. Position 1 is empty.
    assert legal(game, 0) == ["discard 3", "discard 4", "stop"]
    assert legal(game, 1) == []
    assert game.row == (None, "glazed", "plain", "powdered")


def test_french_cruller_discards_repeatedly_in_the_chosen_order() -> None:
    first = play(3, CRULLER_TOP, [*CRULLER_PICKS, (0, "discard 4")])
    assert first.row == (None, "glazed", "plain", None)
    assert first.discard_pile == ("powdered",)
    assert legal(first, 0) == ["discard 3", "stop"]
    # After the last eligible card nothing is left to choose: no `stop` is needed.
    game = play(3, CRULLER_TOP, [*CRULLER_PICKS, (0, "discard 4"), (0, "discard 3")])
    assert game.discard_pile == ("powdered", "plain", "glazed")  # then the contested Glazed
    assert game.collections == [{"french_cruller": 1}, {}, {}]
    assert game.row == ("jelly_filled", "donut_holes", "maple_bar", "glazed")
    assert game.round == 2
    assert game.to_act == (0, 1, 2)
    row_discards = events_of(game, E.ROW_CARD_DISCARDED)
    assert [(e.player, e.position, e.card) for e in row_discards] == [
        (0, 4, "powdered"),
        (0, 3, "plain"),
    ]
    other = play(3, CRULLER_TOP, [*CRULLER_PICKS, (0, "discard 3"), (0, "discard 4")])
    assert other.discard_pile == ("plain", "powdered", "glazed")


def test_french_cruller_stop_at_once_or_after_some() -> None:
    game = play(3, CRULLER_TOP, [*CRULLER_PICKS, (0, "stop")])
    assert game.discard_pile == ("glazed",)
    assert game.row == ("jelly_filled", "donut_holes", "plain", "powdered")
    assert E.ROW_CARD_DISCARDED not in event_types(game)
    game = play(3, CRULLER_TOP, [*CRULLER_PICKS, (0, "discard 3"), (0, "stop")])
    assert game.discard_pile == ("plain", "glazed")
    assert game.row == ("jelly_filled", "donut_holes", "maple_bar", "powdered")


def test_french_cruller_with_nothing_eligible_asks_nothing() -> None:
    # Two Crullers at 1 and 2, all three players pick distinct positions: only 4 is free.
    top = ["french_cruller", "french_cruller", "glazed", "plain", "jelly_filled", "donut_holes"]
    top += ["maple_bar", "powdered"]
    game = play(3, top, picks(1, 2, 3))
    assert legal(game, 0) == ["discard 4", "stop"]
    game = play(3, top, [*picks(1, 2, 3), (0, "discard 4")])
    # Seat 1's Cruller finds no unselected card left: no decision, the round goes on.
    assert game.to_act == (0, 1, 2)
    assert game.round == 2
    assert game.collections == [{"french_cruller": 1}, {"french_cruller": 1}, {"glazed": 1}]
    assert game.discard_pile == ("plain",)
    assert game.row == ("jelly_filled", "donut_holes", "maple_bar", "powdered")
    assert len(game.actions_taken()) == 4


# -- Double Chocolate ----------------------------------------------------------------------------

# Seat 0 takes the Double Chocolate at 1 and draws Jelly (top) and Donut Holes; seat 1's
# French Cruller at 2 then waits for a decision, so the state after the keep can be seen.
DC_TOP = ["double_chocolate", "french_cruller", "glazed", "plain"]
DC_TOP += ["jelly_filled", "donut_holes", "powdered", "maple_bar"]


def test_double_chocolate_offers_both_drawn_cards() -> None:
    game = play(3, DC_TOP, picks(1, 2, 3))
    assert game.pending_power == "double_chocolate"
    assert game.to_act == (0,)
    assert legal(game, 0) == ["keep donut_holes", "keep jelly_filled"]
    assert game.view(0).drawn == ("jelly_filled", "donut_holes")
    assert game.view(1).drawn == ()
    assert game.collection(0) == {"double_chocolate": 1}


def test_double_chocolate_puts_the_other_card_back_on_top() -> None:
    game = play(3, DC_TOP, [*picks(1, 2, 3), (0, "keep donut_holes")])
    assert game.collection(0) == {"double_chocolate": 1, "donut_holes": 1}
    assert deck_top(game) == "jelly_filled"
    assert game.deck_size == 50 - 4 - 1
    # Known to the Double Chocolate player alone.
    assert game.view(0).known_deck_top == "jelly_filled"
    assert game.view(1).known_deck_top is None
    assert game.view(2).known_deck_top is None
    put_back = events_of(game, E.CARD_PUT_BACK)
    assert [(e.player, e.card, e.visible_to) for e in put_back] == [(0, "jelly_filled", 0)]
    assert E.CARD_PUT_BACK not in [e.type for e in game.events_for(1)]
    assert E.CARD_PUT_BACK not in [e.type for e in game.view(2).events]
    assert E.CARD_PUT_BACK in [e.type for e in game.view(0).events]
    # The Cruller now waits; then the refill deals the put-back card first.
    assert game.to_act == (1,)
    game = play(3, DC_TOP, [*picks(1, 2, 3), (0, "keep donut_holes"), (1, "stop")])
    assert game.row == ("jelly_filled", "powdered", "maple_bar", "plain")
    assert game.view(0).known_deck_top is None


def test_double_chocolate_keep_the_top_card() -> None:
    game = play(3, DC_TOP, [*picks(1, 2, 3), (0, "keep jelly_filled")])
    assert game.collection(0) == {"double_chocolate": 1, "jelly_filled": 1}
    assert deck_top(game) == "donut_holes"
    assert game.view(0).known_deck_top == "donut_holes"
    drawn = events_of(game, E.CARD_DRAWN)
    assert [(e.player, e.card, e.source) for e in drawn] == [
        (0, "jelly_filled", "double_chocolate")
    ]


def test_double_chocolate_same_kind_pair_is_automatic() -> None:
    top = ["double_chocolate", "glazed", "plain", "powdered", "jelly_filled", "jelly_filled"]
    top += ["donut_holes", "maple_bar"]
    game = play(3, top, picks(1, 2, 3))
    assert game.collections == [
        {"double_chocolate": 1, "jelly_filled": 1},
        {"glazed": 1},
        {"plain": 1},
    ]
    assert game.row == ("jelly_filled", "donut_holes", "maple_bar", "powdered")
    assert game.to_act == (0, 1, 2)
    assert len(game.actions_taken()) == 3


def test_double_chocolate_with_one_card_left_keeps_it() -> None:
    """Ruling: with one card in the deck you keep it (no decision)."""
    top = ["plain", "glazed", "powdered", "double_chocolate"]
    assert stacked_deck(3, top)[-1] == "sprinkled"  # the deck's bottom card
    before = play(3, top, contest(3, 1, 45))
    assert before.deck_size == 1
    game = play(3, top, [*contest(3, 1, 45), (0, "pick 4"), (1, "pick 1"), (2, "pick 1")])
    # The drawn Sprinkled arrives without its power: nothing is given away.
    assert game.collection(0) == {"double_chocolate": 1, "sprinkled": 1}
    assert game.deck_size == 0
    assert game.is_over
    assert E.CARD_PUT_BACK not in event_types(game)


def test_double_chocolate_with_an_empty_deck_does_nothing() -> None:
    """Ruling: with no card in the deck nothing happens."""
    top = ["plain", "glazed", "powdered", "double_chocolate"]
    game = play(3, top, [*contest(3, 1, 46), (0, "pick 4"), (1, "pick 1"), (2, "pick 1")])
    assert game.collection(0) == {"double_chocolate": 1}
    fizzled = events_of(game, E.POWER_FIZZLED)
    assert [(e.player, e.source) for e in fizzled] == [(0, "double_chocolate")]
    assert game.is_over


# -- Red Velvet ----------------------------------------------------------------------------------

RV_TOP = ["glazed", "jelly_filled", "donut_holes", "red_velvet"]
RV_TOP += ["plain", "powdered", "plain", "maple_bar"]
# Four contested rounds at 1: pile glazed, plain, powdered, plain; row maple_bar, jelly,
# donut_holes, red_velvet. Then seat 0 takes the Red Velvet after seats 1 and 2 take 1 and 2.
RV_ACTS = [*contest(3, 1, 4), *picks(4, 1, 2)]


def test_red_velvet_offers_each_kind_in_the_pile() -> None:
    game = play(3, RV_TOP, RV_ACTS)
    assert game.discard_pile == ("glazed", "plain", "powdered", "plain")
    assert game.collections == [{"red_velvet": 1}, {"maple_bar": 1}, {"jelly_filled": 1}]
    assert game.to_act == (0,)
    assert legal(game, 0) == ["take glazed", "take plain", "take powdered"]


def test_red_velvet_takes_the_topmost_card_of_the_kind() -> None:
    game = play(3, RV_TOP, [*RV_ACTS, (0, "take plain")])
    assert game.discard_pile == ("glazed", "plain", "powdered")
    assert game.collection(0) == {"red_velvet": 1, "plain": 1}
    took = events_of(game, E.TOOK_FROM_DISCARD)
    assert [(e.player, e.card, e.source) for e in took] == [(0, "plain", "red_velvet")]
    game = play(3, RV_TOP, [*RV_ACTS, (0, "take glazed")])
    assert game.discard_pile == ("plain", "powdered", "plain")


def test_red_velvet_takes_an_eclair_without_its_power() -> None:
    top = ["glazed", "jelly_filled", "donut_holes", "red_velvet", "eclair", "maple_bar"]
    acts = [*contest(3, 1, 2), *picks(4, 1, 2)]
    assert legal(play(3, top, acts), 0) == ["take eclair", "take glazed"]
    game = play(3, top, [*acts, (0, "take eclair")])
    assert game.collection(0) == {"red_velvet": 1, "eclair": 1}
    assert game.discard_pile == ("glazed",)
    assert game.to_act == (0, 1, 2)


def test_red_velvet_with_one_kind_in_the_pile_is_automatic() -> None:
    top = ["glazed", "jelly_filled", "donut_holes", "red_velvet", "glazed", "maple_bar"]
    game = play(3, top, [*contest(3, 1, 2), *picks(4, 1, 2)])
    assert game.collection(0) == {"red_velvet": 1, "glazed": 1}
    assert game.discard_pile == ("glazed",)
    assert game.to_act == (0, 1, 2)


def test_red_velvet_with_an_empty_pile_does_nothing() -> None:
    game = play(3, ["red_velvet", "glazed", "plain", "powdered"], picks(1, 2, 3))
    assert game.collection(0) == {"red_velvet": 1}
    assert [(e.player, e.source) for e in events_of(game, E.POWER_FIZZLED)] == [(0, "red_velvet")]
    assert game.to_act == (0, 1, 2)


# -- Sprinkled -----------------------------------------------------------------------------------


def sprinkled_setup() -> tuple[list[str], list[Act]]:
    top, acts = draft(
        [["glazed", "jelly_filled"], ["plain", "plain"], ["powdered", "donut_holes"]], "sprinkled"
    )
    return [*top, "maple_bar", "glazed", "donut_holes"], [*acts, *picks(4, 1, 2)]


def test_sprinkled_gives_one_of_the_other_cards() -> None:
    top, acts = sprinkled_setup()
    game = play(3, top, acts)
    assert game.collections == [
        {"glazed": 1, "jelly_filled": 1, "sprinkled": 1},
        {"plain": 2, "maple_bar": 1},
        {"powdered": 1, "donut_holes": 1, "glazed": 1},
    ]
    assert game.to_act == (0,)
    assert legal(game, 0) == [
        "give glazed to 1",
        "give glazed to 2",
        "give jelly_filled to 1",
        "give jelly_filled to 2",
    ]
    game = play(3, top, [*acts, (0, "give jelly_filled to 2")])
    assert game.collections == [
        {"glazed": 1, "sprinkled": 1},
        {"plain": 2, "maple_bar": 1},
        {"powdered": 1, "donut_holes": 1, "glazed": 1, "jelly_filled": 1},
    ]
    moved = events_of(game, E.CARD_MOVED)
    assert [(e.player, e.other, e.card, e.source) for e in moved] == [
        (0, 2, "jelly_filled", "sprinkled")
    ]


def test_sprinkled_as_only_card_must_be_given() -> None:
    top = ["sprinkled", "glazed", "plain", "powdered"]
    game = play(3, top, picks(1, 2, 3))
    assert game.to_act == (0,)
    assert legal(game, 0) == ["give sprinkled to 1", "give sprinkled to 2"]
    game = play(3, top, [*picks(1, 2, 3), (0, "give sprinkled to 1")])
    # Seat 1 receives the Sprinkled (no power for a given card), then takes its Glazed.
    assert game.collections == [{}, {"sprinkled": 1, "glazed": 1}, {"plain": 1}]
    assert game.to_act == (0, 1, 2)


def test_sprinkled_another_sprinkled_is_an_other_card() -> None:
    """ "One of your other cards": a second Sprinkled owned before counts as another card."""
    top, acts = draft([["glazed"], ["plain"], ["powdered"]], "sprinkled")
    top += ["sprinkled", "jelly_filled", "donut_holes", "plain", "jelly_filled", "donut_holes"]
    acts += [*picks(1, 2, 3), (0, "give glazed to 2"), *picks(4, 1, 2)]
    game = play(3, top, acts)
    assert game.collection(0) == {"sprinkled": 2}
    assert legal(game, 0) == ["give sprinkled to 1", "give sprinkled to 2"]
    game = play(3, top, [*acts, (0, "give sprinkled to 1")])
    assert game.collection(0) == {"sprinkled": 1}
    assert game.collection(1) == {"plain": 2, "jelly_filled": 1, "sprinkled": 1}


def test_sprinkled_gift_does_not_resolve_the_given_card() -> None:
    # Seat 0 took a Red Velvet in round 1 (empty pile). In round 2 seats 1 and 2 contest
    # position 1, so the pile holds a Glazed when the Red Velvet is given to seat 1.
    top, acts = draft([["red_velvet"], ["plain"], ["powdered"]], "sprinkled")
    top += ["glazed", "jelly_filled", "donut_holes"]
    acts += [(0, "pick 4"), (1, "pick 1"), (2, "pick 1")]
    game = play(3, top, acts)
    assert legal(game, 0) == ["give red_velvet to 1", "give red_velvet to 2"]
    game = play(3, top, [*acts, (0, "give red_velvet to 1")])
    assert game.collections == [{"sprinkled": 1}, {"plain": 1, "red_velvet": 1}, {"powdered": 1}]
    assert game.discard_pile == ("glazed",)
    assert game.to_act == (0, 1, 2)


# -- Bear Claw -----------------------------------------------------------------------------------


def test_bear_claw_takes_a_card_of_choice_from_an_opponent_of_choice() -> None:
    top, acts = draft([["powdered"], ["glazed"], ["plain"], ["jelly_filled"]], "bear_claw")
    top += ["glazed", "donut_holes", "plain", "maple_bar"]
    acts += picks(5, 1, 2, 3)
    game = play(4, top, acts)
    assert game.collections == [
        {"powdered": 1, "bear_claw": 1},
        {"glazed": 2},
        {"plain": 1, "donut_holes": 1},
        {"jelly_filled": 1, "plain": 1},
    ]
    assert game.to_act == (0,)
    assert legal(game, 0) == [
        "take donut_holes from 2",
        "take glazed from 1",
        "take jelly_filled from 3",
        "take plain from 2",
        "take plain from 3",
    ]
    game = play(4, top, [*acts, (0, "take plain from 3")])
    assert game.collection(0) == {"powdered": 1, "bear_claw": 1, "plain": 1}
    assert game.collection(3) == {"jelly_filled": 1}
    moved = events_of(game, E.CARD_MOVED)
    assert [(e.player, e.other, e.card, e.source) for e in moved] == [(3, 0, "plain", "bear_claw")]
    assert game.to_act == (0, 1, 2, 3)


def test_bear_claw_with_no_opponent_card_does_nothing() -> None:
    game = play(4, ["bear_claw", "glazed", "plain", "powdered", "jelly_filled"], picks(1, 2, 3, 4))
    assert game.collections == [
        {"bear_claw": 1},
        {"glazed": 1},
        {"plain": 1},
        {"powdered": 1},
    ]
    assert [(e.player, e.source) for e in events_of(game, E.POWER_FIZZLED)] == [(0, "bear_claw")]


def test_bear_claw_single_choice_is_automatic_and_the_card_keeps_quiet() -> None:
    # Round 1: seat 1 takes a Red Velvet (empty pile), the others contest the Glazed at 2.
    # Round 2: seats 1–3 contest 1; seat 0's Bear Claw can only take the Red Velvet, whose
    # power does not resolve though the pile is not empty.
    top = ["red_velvet", "glazed", "plain", "powdered", "bear_claw", "plain", "jelly_filled"]
    acts = [(0, "pick 2"), (1, "pick 1"), (2, "pick 2"), (3, "pick 2")]
    acts += [(0, "pick 5"), (1, "pick 1"), (2, "pick 1"), (3, "pick 1")]
    game = play(4, top, acts)
    assert game.collections == [{"bear_claw": 1, "red_velvet": 1}, {}, {}, {}]
    assert game.discard_pile == ("glazed", "plain")
    assert game.to_act == (0, 1, 2, 3)
    assert game.round == 3


# -- Cinnamon Twist ------------------------------------------------------------------------------


def twist_setup() -> tuple[list[str], list[Act]]:
    hands = [
        ["glazed", "plain"],
        ["jelly_filled", "jelly_filled"],
        ["powdered", "donut_holes"],
        ["plain", "maple_bar"],
    ]
    top, acts = draft(hands, "cinnamon_twist")
    # Round 3: seats 1–3 contest the Glazed at 1; seat 0 takes the Twist at 5.
    top += ["glazed", "powdered", "donut_holes", "maple_bar"]
    return top, [*acts, (0, "pick 5"), (1, "pick 1"), (2, "pick 1"), (3, "pick 1")]


AFTER_TWIST = [
    {"glazed": 1, "cinnamon_twist": 1, "maple_bar": 1},
    {"jelly_filled": 1, "plain": 1},
    {"donut_holes": 1, "jelly_filled": 1},
    {"plain": 1, "powdered": 1},
]


def test_cinnamon_twist_asks_every_player_with_a_choice() -> None:
    top, acts = twist_setup()
    game = play(4, top, acts)
    assert game.pending_power == "cinnamon_twist"
    # Seat 1 owns only Jelly: it passes one without being asked.
    assert game.to_act == (0, 2, 3)
    assert legal(game, 0) == ["pass glazed", "pass plain"]  # not this Cinnamon Twist
    assert legal(game, 1) == []
    assert legal(game, 2) == ["pass donut_holes", "pass powdered"]
    assert legal(game, 3) == ["pass maple_bar", "pass plain"]


def test_cinnamon_twist_cards_move_together_once_all_have_chosen() -> None:
    top, acts = twist_setup()
    game = play(4, top, [*acts, (3, "pass maple_bar")])
    assert game.to_act == (0, 2)
    assert legal(game, 3) == []
    assert game.view(3).my_pass == "maple_bar"
    assert game.view(0).my_pass is None
    assert game.collection(3) == {"plain": 1, "maple_bar": 1}  # nothing moved yet
    game = play(4, top, [*acts, (3, "pass maple_bar"), (0, "pass plain"), (2, "pass powdered")])
    assert game.collections == AFTER_TWIST
    moved = events_of(game, E.CARD_MOVED)
    assert [(e.player, e.other, e.card, e.source) for e in moved] == [
        (0, 1, "plain", "cinnamon_twist"),
        (1, 2, "jelly_filled", "cinnamon_twist"),
        (2, 3, "powdered", "cinnamon_twist"),
        (3, 0, "maple_bar", "cinnamon_twist"),
    ]
    assert game.discard_pile == ("glazed",)
    assert game.to_act == (0, 1, 2, 3)
    assert game.round == 4


def test_cinnamon_twist_passes_arrive_in_any_order() -> None:
    top, acts = twist_setup()
    game = play(4, top, [*acts, (0, "pass plain"), (2, "pass powdered"), (3, "pass maple_bar")])
    assert game.collections == AFTER_TWIST


def test_cinnamon_twist_without_choices_is_automatic_and_passed_cards_keep_quiet() -> None:
    # Everyone owns one card (seat 3 a Red Velvet): all passes are forced. The Red Velvet
    # reaches seat 0 without its power, though the pile holds the contested Glazed.
    hands = [["glazed"], ["plain"], ["powdered"], ["red_velvet"]]
    top, acts = draft(hands, "cinnamon_twist")
    top += ["glazed", "jelly_filled", "donut_holes", "maple_bar"]
    acts += [(0, "pick 5"), (1, "pick 1"), (2, "pick 1"), (3, "pick 1")]
    game = play(4, top, acts)
    assert game.collections == [
        {"cinnamon_twist": 1, "red_velvet": 1},
        {"glazed": 1},
        {"plain": 1},
        {"powdered": 1},
    ]
    assert game.discard_pile == ("glazed",)
    assert game.to_act == (0, 1, 2, 3)
    assert len(game.actions_taken()) == len(acts)


def test_cinnamon_twist_taker_may_pass_an_earlier_twist() -> None:
    """ "Not this Cinnamon Twist": a second Twist owned before may be passed."""
    hands = [["glazed"], ["plain"], ["powdered"], ["jelly_filled"]]
    top, acts = draft(hands, "cinnamon_twist")
    # Round 2: seat 0 takes Twist 1 (all passes forced), the others contest the Maple Bar.
    # Round 3: positions 1 and 5 are refilled (Donut Holes, Twist 2); the same again.
    top += ["maple_bar", "glazed", "donut_holes", "plain", "donut_holes", "cinnamon_twist"]
    acts += [(0, "pick 5"), (1, "pick 1"), (2, "pick 1"), (3, "pick 1")]
    round2 = play(4, top, acts)
    assert round2.collections == [
        {"cinnamon_twist": 1, "jelly_filled": 1},
        {"glazed": 1},
        {"plain": 1},
        {"powdered": 1},
    ]
    assert round2.row == ("donut_holes", "glazed", "donut_holes", "plain", "cinnamon_twist")
    acts += [(0, "pick 5"), (1, "pick 1"), (2, "pick 1"), (3, "pick 1")]
    game = play(4, top, acts)
    assert game.to_act == (0,)
    assert legal(game, 0) == ["pass cinnamon_twist", "pass jelly_filled"]
    game = play(4, top, [*acts, (0, "pass cinnamon_twist")])
    assert game.collections == [
        {"cinnamon_twist": 1, "jelly_filled": 1, "powdered": 1},
        {"cinnamon_twist": 1},
        {"glazed": 1},
        {"plain": 1},
    ]


def test_cinnamon_twist_discarded_when_its_taker_has_no_other_card() -> None:
    top = ["glazed", "plain", "powdered", "jelly_filled", "cinnamon_twist"]
    game = play(4, top, picks(5, 1, 2, 3))
    assert game.collections == [{}, {"glazed": 1}, {"plain": 1}, {"powdered": 1}]
    assert game.discard_pile == ("cinnamon_twist",)
    discarded = events_of(game, E.CARD_DISCARDED)
    assert [(e.player, e.other, e.card, e.source) for e in discarded] == [
        (0, 0, "cinnamon_twist", "cinnamon_twist")
    ]
    assert E.CARD_MOVED not in event_types(game)
    assert game.to_act == (0, 1, 2, 3)


def test_cinnamon_twist_discarded_when_an_opponent_has_no_card() -> None:
    top = ["glazed", "plain", "powdered", "jelly_filled", "cinnamon_twist"]
    top += ["maple_bar", "donut_holes", "glazed"]
    acts = picks(1, 2, 3, 3)  # seats 2 and 3 contest the Powdered
    acts += [(0, "pick 5"), (1, "pick 4"), (2, "pick 1"), (3, "pick 1")]
    game = play(4, top, acts)
    assert game.collections == [{"glazed": 1}, {"plain": 1, "jelly_filled": 1}, {}, {}]
    assert game.discard_pile == ("powdered", "maple_bar", "cinnamon_twist")
    assert game.to_act == (0, 1, 2, 3)


# -- Day-Old Donuts ------------------------------------------------------------------------------

DAY_OLD_TOP = ["glazed", "jelly_filled", "donut_holes", "powdered", "day_old"]
DAY_OLD_TOP += ["plain", "powdered", "plain", "jelly_filled", "maple_bar"]
# Five contested rounds at 1: pile glazed, plain, powdered, plain, jelly. Then seat 0 takes
# the Day-Old at 5 after seats 1–3 take positions 1–3.
DAY_OLD_ACTS = [*contest(4, 1, 5), *picks(5, 1, 2, 3)]
DAY_OLD_PILE = ("glazed", "plain", "powdered", "plain", "jelly_filled")


def test_day_old_takes_three_cards_one_at_a_time() -> None:
    game = play(4, DAY_OLD_TOP, DAY_OLD_ACTS)
    assert game.discard_pile == DAY_OLD_PILE
    assert game.to_act == (0,)
    assert legal(game, 0) == [
        "stop",
        "take glazed",
        "take jelly_filled",
        "take plain",
        "take powdered",
    ]
    game = play(4, DAY_OLD_TOP, [*DAY_OLD_ACTS, (0, "take plain")])
    assert game.discard_pile == ("glazed", "plain", "powdered", "jelly_filled")
    game = play(4, DAY_OLD_TOP, [*DAY_OLD_ACTS, (0, "take plain"), (0, "take plain")])
    assert legal(game, 0) == ["stop", "take glazed", "take jelly_filled", "take powdered"]
    acts = [*DAY_OLD_ACTS, (0, "take plain"), (0, "take plain"), (0, "take jelly_filled")]
    game = play(4, DAY_OLD_TOP, acts)
    # Three taken: the power ends by itself.
    assert game.collection(0) == {"day_old": 1, "plain": 2, "jelly_filled": 1}
    assert game.discard_pile == ("glazed", "powdered")
    assert game.to_act == (0, 1, 2, 3)
    took = events_of(game, E.TOOK_FROM_DISCARD)
    assert [(e.card, e.source) for e in took] == [
        ("plain", "day_old"),
        ("plain", "day_old"),
        ("jelly_filled", "day_old"),
    ]


def test_day_old_may_stop_after_none_or_some() -> None:
    game = play(4, DAY_OLD_TOP, [*DAY_OLD_ACTS, (0, "stop")])
    assert game.collection(0) == {"day_old": 1}
    assert game.discard_pile == DAY_OLD_PILE
    assert game.to_act == (0, 1, 2, 3)
    game = play(4, DAY_OLD_TOP, [*DAY_OLD_ACTS, (0, "take glazed"), (0, "stop")])
    assert game.collection(0) == {"day_old": 1, "glazed": 1}
    assert game.discard_pile == DAY_OLD_PILE[1:]


def test_day_old_ends_when_the_pile_is_empty_and_taken_cards_keep_quiet() -> None:
    top = ["glazed", "jelly_filled", "donut_holes", "powdered", "day_old", "eclair", "maple_bar"]
    acts = [*contest(4, 1, 2), *picks(5, 1, 2, 3)]
    game = play(4, top, acts)
    assert legal(game, 0) == ["stop", "take eclair", "take glazed"]
    game = play(4, top, [*acts, (0, "take eclair")])
    assert game.discard_pile == ("glazed",)  # the Éclair did not take it
    assert legal(game, 0) == ["stop", "take glazed"]
    game = play(4, top, [*acts, (0, "take eclair"), (0, "take glazed")])
    assert game.collection(0) == {"day_old": 1, "eclair": 1, "glazed": 1}
    assert game.discard_pile == ()
    assert game.to_act == (0, 1, 2, 3)


def test_day_old_with_an_empty_pile_does_nothing() -> None:
    top = ["day_old", "glazed", "plain", "powdered", "jelly_filled"]
    game = play(4, top, picks(1, 2, 3, 4))
    assert game.collection(0) == {"day_old": 1}
    assert [(e.player, e.source) for e in events_of(game, E.POWER_FIZZLED)] == [(0, "day_old")]
    assert game.to_act == (0, 1, 2, 3)


# -- Milk ----------------------------------------------------------------------------------------


def milk_setup(hand: list[str]) -> tuple[list[str], list[Act]]:
    """Seat 0 collects ``hand``, then takes the Milk at 5 while seats 1–3 contest a Glazed."""
    others = [
        ["jelly_filled"] * len(hand),
        ["donut_holes"] * len(hand),
        ["boston_cream"] * len(hand),
    ]
    top, acts = draft([hand, *others], "milk")
    top += ["glazed", "maple_bar", "coffee", "old_fashioned"]
    return top, [*acts, (0, "pick 5"), (1, "pick 1"), (2, "pick 1"), (3, "pick 1")]


def test_milk_discard_three_other_cards() -> None:
    top, acts = milk_setup(["glazed", "plain", "plain", "powdered"])
    game = play(4, top, acts)
    assert game.collection(0) == {"glazed": 1, "plain": 2, "powdered": 1, "milk": 1}
    assert game.to_act == (0,)
    assert legal(game, 0) == [
        "discard glazed",
        "discard milk",
        "discard plain",
        "discard powdered",
    ]
    # Once the three-card discard has begun, discarding the Milk is no longer an option
    # ("either … or": the reading this suite takes).
    game = play(4, top, [*acts, (0, "discard plain")])
    assert legal(game, 0) == ["discard glazed", "discard plain", "discard powdered"]
    game = play(4, top, [*acts, (0, "discard plain"), (0, "discard plain")])
    assert legal(game, 0) == ["discard glazed", "discard powdered"]
    game = play(4, top, [*acts, (0, "discard plain"), (0, "discard plain"), (0, "discard glazed")])
    assert game.collection(0) == {"milk": 1, "powdered": 1}
    assert game.discard_pile == ("glazed", "plain", "plain", "glazed")
    assert game.to_act == (0, 1, 2, 3)
    discarded = events_of(game, E.CARD_DISCARDED)
    assert [(e.player, e.other, e.card, e.source) for e in discarded] == [
        (0, 0, "plain", "milk"),
        (0, 0, "plain", "milk"),
        (0, 0, "glazed", "milk"),
    ]


def test_milk_discard_the_milk() -> None:
    top, acts = milk_setup(["glazed", "plain", "plain", "powdered"])
    game = play(4, top, [*acts, (0, "discard milk")])
    assert game.collection(0) == {"glazed": 1, "plain": 2, "powdered": 1}
    assert game.discard_pile == ("glazed", "milk")
    assert game.to_act == (0, 1, 2, 3)


def test_milk_forced_discards_follow_by_themselves() -> None:
    top, acts = milk_setup(["plain", "plain", "plain"])
    game = play(4, top, acts)
    assert legal(game, 0) == ["discard milk", "discard plain"]
    game = play(4, top, [*acts, (0, "discard plain")])
    assert game.collection(0) == {"milk": 1}
    assert game.discard_pile == ("glazed", "plain", "plain", "plain")
    assert game.to_act == (0, 1, 2, 3)


def test_milk_with_fewer_than_three_other_cards_is_discarded() -> None:
    """Ruling: with fewer than three other cards you must discard the Milk."""
    top, acts = milk_setup(["glazed", "plain"])
    game = play(4, top, acts)
    assert game.collection(0) == {"glazed": 1, "plain": 1}
    assert game.discard_pile == ("glazed", "milk")
    assert game.to_act == (0, 1, 2, 3)
    discarded = events_of(game, E.CARD_DISCARDED)
    assert [(e.player, e.card, e.source) for e in discarded] == [(0, "milk", "milk")]


# -- Raspberry Frosted ---------------------------------------------------------------------------


def five_player_setup(hand: list[str], card: str) -> tuple[list[str], list[Act]]:
    """Seat 0 collects ``hand`` (others get Jelly, Donut Holes, Powdered, Boston Cream), then
    takes ``card`` at 6 while seats 1–4 contest the Maple Bar at 1."""
    k = len(hand)
    others = [[c] * k for c in ("jelly_filled", "donut_holes", "powdered", "boston_cream")]
    top, acts = draft([hand, *others], card)
    top += ["maple_bar", "plain", "coffee", "old_fashioned", "mucho_matcha"]
    return top, [*acts, (0, "pick 6"), *[(s, "pick 1") for s in range(1, 5)]]


def test_raspberry_frosted_discards_another_card() -> None:
    top, acts = five_player_setup(["glazed", "plain"], "raspberry_frosted")
    game = play(5, top, acts)
    assert game.to_act == (0,)
    assert legal(game, 0) == ["discard glazed", "discard plain"]
    game = play(5, top, [*acts, (0, "discard plain")])
    assert game.collection(0) == {"glazed": 1, "raspberry_frosted": 1}
    assert game.discard_pile == ("maple_bar", "plain")
    discarded = events_of(game, E.CARD_DISCARDED)
    assert [(e.player, e.other, e.card, e.source) for e in discarded] == [
        (0, 0, "plain", "raspberry_frosted")
    ]


def test_raspberry_frosted_one_other_kind_is_automatic() -> None:
    top, acts = five_player_setup(["glazed", "glazed"], "raspberry_frosted")
    game = play(5, top, acts)
    assert game.collection(0) == {"glazed": 1, "raspberry_frosted": 1}
    assert game.discard_pile == ("maple_bar", "glazed")
    assert game.to_act == (0, 1, 2, 3, 4)


def test_raspberry_frosted_as_only_card_discards_itself() -> None:
    top = ["raspberry_frosted", "glazed", "plain", "powdered", "jelly_filled", "donut_holes"]
    game = play(5, top, picks(1, 2, 3, 4, 5))
    assert game.collection(0) == {}
    assert game.discard_pile == ("raspberry_frosted",)
    assert game.to_act == (0, 1, 2, 3, 4)


# -- Strawberry Glazed ---------------------------------------------------------------------------


def test_strawberry_glazed_discards_a_card_of_an_opponent() -> None:
    top, acts = five_player_setup(["glazed"], "strawberry_glazed")
    game = play(5, top, acts)
    assert game.to_act == (0,)
    assert legal(game, 0) == [
        "discard boston_cream from 4",
        "discard donut_holes from 2",
        "discard jelly_filled from 1",
        "discard powdered from 3",
    ]
    game = play(5, top, [*acts, (0, "discard powdered from 3")])
    assert game.collections == [
        {"glazed": 1, "strawberry_glazed": 1},
        {"jelly_filled": 1},
        {"donut_holes": 1},
        {},
        {"boston_cream": 1},
    ]
    assert game.discard_pile == ("maple_bar", "powdered")
    discarded = events_of(game, E.CARD_DISCARDED)
    assert [(e.player, e.other, e.card, e.source) for e in discarded] == [
        (0, 3, "powdered", "strawberry_glazed")
    ]
    assert game.to_act == (0, 1, 2, 3, 4)


def test_strawberry_glazed_single_choice_is_automatic() -> None:
    top = ["glazed", "strawberry_glazed", "plain", "powdered", "jelly_filled", "donut_holes"]
    acts = [(0, "pick 2"), (1, "pick 1"), (2, "pick 3"), (3, "pick 3"), (4, "pick 3")]
    game = play(5, top, acts)
    assert game.collections == [{"strawberry_glazed": 1}, {}, {}, {}, {}]
    assert game.discard_pile == ("glazed", "plain")
    assert game.to_act == (0, 1, 2, 3, 4)


def test_strawberry_glazed_with_no_opponent_card_is_kept() -> None:
    top = ["strawberry_glazed", "glazed", "plain", "powdered", "jelly_filled", "donut_holes"]
    game = play(5, top, picks(1, 2, 3, 4, 5))
    assert game.collection(0) == {"strawberry_glazed": 1}
    assert game.discard_pile == ()
    fizzled = events_of(game, E.POWER_FIZZLED)
    assert [(e.player, e.source) for e in fizzled] == [(0, "strawberry_glazed")]
    assert game.scores()[0] == -2
