"""Every **Ruling** of RULES.md, the round flow (reveal, resolve by position, refill, end) and
RECORD.md "Decisions" (a decision is asked only where there is a real choice)."""

from __future__ import annotations

import pytest

from gonuts.errors import GameOverError, IllegalActionError, NotYourTurnError, RecordError
from gonuts.events import EventType
from gonuts.record import Record
from gonuts.scoring import scores
from support import (
    contest,
    deck_top,
    draft,
    event_types,
    events_of,
    flat,
    legal,
    names,
    picks,
    play,
    record,
)

E = EventType


# -- Ruling: French Cruller ----------------------------------------------------------------------


def test_ruling_cruller_never_offers_a_selected_card_even_unresolved() -> None:
    top = ["french_cruller", "glazed", "plain", "powdered"]
    game = play(3, top, picks(1, 3, 4))
    # Positions 3 and 4 are selected by seats 1 and 2 and resolve after the Cruller.
    assert legal(game, 0) == ["discard 2", "stop"]
    assert game.row == (None, "glazed", "plain", "powdered")
    # At a later position, the positions already resolved are empty: only 3 is left.
    top = ["glazed", "plain", "powdered", "french_cruller"]
    game = play(3, top, picks(4, 1, 2))
    assert game.collections == [{"french_cruller": 1}, {"glazed": 1}, {"plain": 1}]
    assert legal(game, 0) == ["discard 3", "stop"]


def test_ruling_cruller_discards_stay_empty_until_refill_and_are_on_the_pile() -> None:
    """The discarded position stays empty while later positions resolve; the discarded card
    is already on the pile for them (here a Day-Old Donuts at position 2 takes it)."""
    top = ["french_cruller", "day_old", "glazed", "plain", "powdered"]
    top += ["jelly_filled", "donut_holes", "maple_bar", "coffee"]
    acts = [(0, "pick 1"), (1, "pick 2"), (2, "pick 5"), (3, "pick 5")]
    game = play(4, top, acts)
    assert legal(game, 0) == ["discard 3", "discard 4", "stop"]  # 5 is selected (contested)
    acts += [(0, "discard 3"), (0, "stop")]
    game = play(4, top, acts)
    assert game.pending_power == "day_old"
    assert game.to_act == (1,)
    assert game.row == (None, None, None, "plain", "powdered")
    assert game.discard_pile == ("glazed",)
    assert legal(game, 1) == ["stop", "take glazed"]
    game = play(4, top, [*acts, (1, "take glazed")])
    assert game.collections == [{"french_cruller": 1}, {"day_old": 1, "glazed": 1}, {}, {}]
    assert game.discard_pile == ("powdered",)  # the contested card at 5
    # Refill in ascending order: 1, 2, 3, then 5.
    assert game.row == ("jelly_filled", "donut_holes", "maple_bar", "plain", "coffee")
    refill = events_of(game, E.ROW_REFILLED)[0]
    assert refill.positions == (1, 2, 3, 5)
    assert refill.cards == ("jelly_filled", "donut_holes", "maple_bar", "coffee")


# -- Ruling: Double Chocolate --------------------------------------------------------------------


def test_ruling_double_chocolate_put_back_card_known_to_its_player_alone() -> None:
    top = ["double_chocolate", "french_cruller", "glazed", "plain", "jelly_filled", "powdered"]
    game = play(3, top, [*picks(1, 2, 3), (0, "keep powdered")])
    assert deck_top(game) == "jelly_filled"
    assert game.to_act == (1,)  # the Cruller keeps the round open
    mine, theirs = game.view(0), game.view(1)
    assert mine.known_deck_top == "jelly_filled"
    assert theirs.known_deck_top is None
    assert game.view(2).known_deck_top is None
    # The unseen cards differ by exactly the card put back.
    assert theirs.unseen["jelly_filled"] == mine.unseen.get("jelly_filled", 0) + 1
    assert {k: v for k, v in theirs.unseen.items() if k != "jelly_filled"} == {
        k: v for k, v in mine.unseen.items() if k != "jelly_filled"
    }
    # The kept card is public: it is face up in the collection.
    assert theirs.collections[0] == {"double_chocolate": 1, "powdered": 1}


def test_ruling_double_chocolate_one_card_keeps_it_none_does_nothing() -> None:
    top = ["plain", "glazed", "powdered", "double_chocolate"]
    last_round = [(0, "pick 4"), (1, "pick 1"), (2, "pick 1")]
    one = play(3, top, [*contest(3, 1, 45), *last_round])
    assert one.collection(0) == {"double_chocolate": 1, "sprinkled": 1}
    none = play(3, top, [*contest(3, 1, 46), *last_round])
    assert none.collection(0) == {"double_chocolate": 1}
    assert one.is_over and none.is_over


# -- Ruling: Cinnamon Twist ----------------------------------------------------------------------


def twist_game_actions() -> tuple[list[str], list[tuple[int, str]]]:
    # Rounds 1 and 2: seat i takes position i+1; round 3: seat 0 takes the Twist at 5 while
    # the others contest position 1.
    top = ["glazed", "plain", "powdered", "jelly_filled", "cinnamon_twist"]
    top += ["plain", "glazed", "donut_holes", "maple_bar"]
    top += ["coffee", "old_fashioned", "boston_cream", "glazed"]
    acts = [*picks(1, 2, 3, 4), *picks(1, 2, 3, 4)]
    acts += [(0, "pick 5"), (1, "pick 1"), (2, "pick 1"), (3, "pick 1")]
    return top, acts


def test_ruling_cinnamon_twist_choices_are_secret_until_all_have_chosen() -> None:
    top, acts = twist_game_actions()
    game = play(4, top, acts)
    assert game.to_act == (0, 1, 2, 3)
    before = list(game.event_log)
    game = play(4, top, [*acts, (1, "pass glazed"), (3, "pass maple_bar")])
    assert game.to_act == (0, 2)
    # Nothing public happened: no event, no card moved; only the passer knows its choice.
    assert list(game.event_log) == before
    assert game.view(1).my_pass == "glazed"
    assert game.view(3).my_pass == "maple_bar"
    assert game.view(0).my_pass is None
    assert game.view(2).my_pass is None
    assert game.collection(1) == {"plain": 1, "glazed": 1}
    # A player who already passed cannot pass again.
    with pytest.raises(NotYourTurnError):
        game.apply(1, "pass plain")
    game.apply(2, "pass donut_holes")
    game.apply(0, "pass plain")
    assert game.collections == [
        {"glazed": 1, "cinnamon_twist": 1, "maple_bar": 1},
        {"plain": 2},
        {"powdered": 1, "glazed": 1},
        {"jelly_filled": 1, "donut_holes": 1},
    ]
    assert game.view(0).waiting_for == (0, 1, 2, 3)  # the next selection


def test_ruling_cinnamon_twist_result_does_not_depend_on_arrival_order() -> None:
    top, acts = twist_game_actions()
    passes = [(0, "pass glazed"), (1, "pass plain"), (2, "pass powdered"), (3, "pass jelly_filled")]
    results = set()
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]):
        game = play(4, top, [*acts, *(passes[i] for i in order)])
        results.add(tuple(tuple(sorted(c.items())) for c in game.collections))
    assert len(results) == 1
    assert game.collections == [
        {"plain": 1, "cinnamon_twist": 1, "jelly_filled": 1},
        {"glazed": 2},
        {"plain": 1, "donut_holes": 1},
        {"maple_bar": 1, "powdered": 1},
    ]


# -- Ruling: Milk --------------------------------------------------------------------------------


def test_ruling_milk_with_fewer_than_three_other_cards_is_discarded() -> None:
    # Seat 0 owns a Glazed and a Plain; the Milk at 5 goes straight to the pile.
    hands = [["glazed", "plain"], ["plain", "glazed"], ["powdered"] * 2, ["jelly_filled"] * 2]
    top, acts = draft(hands, "milk")
    top += ["donut_holes", "maple_bar", "coffee", "old_fashioned"]
    game = play(4, top, [*acts, *picks(5, 1, 2, 3)])
    assert game.collection(0) == {"glazed": 1, "plain": 1}
    assert game.discard_pile == ("milk",)
    assert game.to_act == (0, 1, 2, 3)
    # With no other card at all, the same.
    game = play(4, ["milk", "glazed", "plain", "powdered", "jelly_filled"], picks(1, 2, 3, 4))
    assert game.collection(0) == {}
    assert game.discard_pile == ("milk",)


# -- Rulings: scoring ----------------------------------------------------------------------------


def test_ruling_no_plain_card_never_scores_the_bonus() -> None:
    assert scores(flat([{}, {}, {"glazed": 1}]), 3) == [0, 0, 2]
    assert scores(flat([{"plain": 1}, {}, {}]), 3) == [4, 0, 0]


def test_ruling_maple_frosted_players_tied_for_fewest_all_score() -> None:
    colls = [{"maple_frosted": 1}, {"maple_frosted": 1}, {"glazed": 1}, {"plain": 2}]
    assert scores(flat(colls), 4) == [5, 5, 2, 5]


# -- reveal and resolution -----------------------------------------------------------------------


def test_selections_are_secret_until_all_have_picked_and_come_in_any_order() -> None:
    top = ["glazed", "plain", "powdered", "jelly_filled"]
    game = play(3, top, [(2, "pick 3"), (0, "pick 1")])
    assert game.to_act == (1,)
    assert game.selections == (None, None, None)
    assert game.view(2).selections == (None, None, 3)
    assert game.view(1).selections == (None, None, None)
    assert event_types(game) == [E.ROUND_STARTED]
    with pytest.raises(NotYourTurnError):
        game.apply(0, "pick 2")
    game.apply(1, "pick 2")
    assert game.collections == [{"glazed": 1}, {"plain": 1}, {"powdered": 1}]
    revealed = events_of(game, E.SELECTIONS_REVEALED)
    assert [e.positions for e in revealed] == [(1, 2, 3)]


def test_every_position_can_be_picked() -> None:
    for n in range(2, 7):
        game = play(n, [])
        for seat in range(n):
            assert legal(game, seat) == [f"pick {p}" for p in range(1, n + 2)]
        if n < 6:
            with pytest.raises(IllegalActionError):
                game.apply(0, f"pick {n + 2}")


def test_contested_card_is_discarded_at_once() -> None:
    """Three players on one card: nobody gets it; an Éclair at a later position takes it."""
    top = ["glazed", "plain", "eclair", "powdered", "jelly_filled"]
    game = play(4, top, [(0, "pick 1"), (1, "pick 1"), (2, "pick 1"), (3, "pick 3")])
    assert game.collections == [{}, {}, {}, {"eclair": 1, "glazed": 1}]
    assert game.discard_pile == ()
    contested = events_of(game, E.CARD_CONTESTED)
    assert [(e.position, e.card, e.players) for e in contested] == [(1, "glazed", (0, 1, 2))]
    assert event_types(game)[:5] == [
        E.ROUND_STARTED,
        E.SELECTIONS_REVEALED,
        E.CARD_CONTESTED,
        E.CARD_TAKEN,
        E.TOOK_FROM_DISCARD,
    ]


def test_resolution_goes_by_position_not_by_seat() -> None:
    # Seat 2's Éclair at position 1 resolves before the contest at position 2: the pile is
    # still empty then, so it takes nothing.
    top = ["eclair", "glazed", "plain", "powdered"]
    game = play(3, top, [(0, "pick 2"), (1, "pick 2"), (2, "pick 1")])
    assert game.collections == [{}, {}, {"eclair": 1}]
    assert game.discard_pile == ("glazed",)
    assert [e.type for e in game.event_log][2:5] == [
        E.CARD_TAKEN,
        E.POWER_FIZZLED,
        E.CARD_CONTESTED,
    ]
    # A Bear Claw at 1 sees none of the cards taken at later positions this round.
    top = ["bear_claw", "glazed", "plain", "powdered", "jelly_filled"]
    game = play(4, top, picks(4, 3, 2, 1))
    assert game.collections == [{"powdered": 1}, {"plain": 1}, {"glazed": 1}, {"bear_claw": 1}]


def test_a_power_resolves_completely_before_the_next_position() -> None:
    # Two contested rounds put a Glazed and a Plain on the pile; then seat 1's Red Velvet at 2
    # waits for its choice while positions 3 and 5 are still in the row, unresolved.
    top = ["glazed", "red_velvet", "plain", "powdered", "jelly_filled", "plain", "maple_bar"]
    acts = [*contest(4, 1, 2), (0, "pick 1"), (1, "pick 2"), (2, "pick 3"), (3, "pick 5")]
    game = play(4, top, acts)
    assert game.to_act == (1,)
    assert legal(game, 1) == ["take glazed", "take plain"]
    assert game.collections == [{"maple_bar": 1}, {"red_velvet": 1}, {}, {}]
    assert game.row == (None, None, "plain", "powdered", "jelly_filled")
    assert game.selections == (1, 2, 3, 5)
    game = play(4, top, [*acts, (1, "take plain")])
    assert game.collections == [
        {"maple_bar": 1},
        {"red_velvet": 1, "plain": 1},
        {"plain": 1},
        {"jelly_filled": 1},
    ]
    assert game.discard_pile == ("glazed",)


def test_game_ends_when_the_deck_cannot_refill_the_row() -> None:
    top = ["glazed", "plain", "powdered"]
    # 34 cards after the deal. After 33 contested rounds one card is left; two empty
    # positions cannot be refilled: the game ends, that card stays in the deck.
    before = play(2, top, contest(2, 1, 33))
    assert before.deck_size == 1
    assert before.row == ("powdered", "plain", "powdered")
    game = play(2, top, [*contest(2, 1, 33), *picks(1, 2)])
    assert game.is_over
    assert game.deck_size == 1
    assert game.row == (None, None, "powdered")
    assert len(game.discard_pile) == 33
    assert game.collections == [{"powdered": 1}, {"plain": 1}]
    assert game.round == 34
    assert game.to_act == ()
    assert legal(game, 0) == [] and legal(game, 1) == []
    assert game.winner_seats == (1,)
    assert events_of(game, E.GAME_OVER)[0].scores == (game.scores()[0], game.scores()[1])
    with pytest.raises(GameOverError):
        game.apply(0, "pick 1")
    with pytest.raises(RecordError) as err:
        play(2, top, [*contest(2, 1, 33), *picks(1, 2), (0, "pick 1")])
    assert err.value.index == 2 * 34


def test_deck_exactly_enough_refills_and_play_goes_on() -> None:
    top = ["glazed", "plain", "powdered"]
    game = play(2, top, contest(2, 1, 34))  # the last card refills position 1
    assert game.deck_size == 0
    assert not game.is_over
    assert game.round == 35
    assert game.row[0] is not None
    game = play(2, top, contest(2, 1, 35))
    assert game.is_over
    assert game.row == (None, "plain", "powdered")
    assert game.round == 35
    assert game.collections == [{}, {}]
    assert game.scores() == [0, 0]
    assert game.winner_seats == (0, 1)  # tied on points and cards: shared victory


def test_refill_in_ascending_order_and_round_counter() -> None:
    top = ["glazed", "plain", "powdered", "jelly_filled", "donut_holes", "maple_bar"]
    game = play(3, top)
    assert game.round == 1
    # Seat 0 takes 3, seats 1 and 2 contest 1: positions 1 and 3 refill, 1 first.
    game = play(3, top, picks(3, 1, 1))
    assert game.row == ("donut_holes", "plain", "maple_bar", "jelly_filled")
    assert game.round == 2
    assert game.deck_size == 50 - 4 - 2
    game = play(3, top, [*picks(3, 1, 1), *picks(1, 1, 1)])
    assert game.round == 3
    assert game.discard_pile == ("glazed", "donut_holes")
    assert [e.round for e in events_of(game, E.ROUND_STARTED)] == [1, 2, 3]


# -- decisions only where there is a real choice (RECORD.md "Decisions") -------------------------


def test_forced_decisions_are_not_recorded() -> None:
    # Double Chocolate drawing two Jelly: the keep is automatic, so recording it is an error.
    top = ["double_chocolate", "glazed", "plain", "powdered", "jelly_filled", "jelly_filled"]
    game = play(3, top, picks(1, 2, 3))
    assert [str(a) for _, a in game.actions_taken()] == ["pick 1", "pick 2", "pick 3"]
    with pytest.raises(RecordError) as err:
        play(3, top, [*picks(1, 2, 3), (0, "keep jelly_filled")])
    assert err.value.index == 3


def test_one_player_decision_belongs_to_that_player() -> None:
    top = ["sprinkled", "glazed", "plain", "powdered"]
    with pytest.raises(RecordError) as err:
        play(3, top, [*picks(1, 2, 3), (1, "give glazed to 0")])
    assert err.value.index == 3
    with pytest.raises(RecordError) as err:
        play(3, top, [*picks(1, 2, 3), (0, "pick 1")])
    assert err.value.index == 3
    with pytest.raises(RecordError) as err:
        play(3, top, [*picks(1, 2, 3), (0, "give sprinkled  to 1")])
    assert err.value.index == 3


def test_sprinkled_always_asks_with_two_opponents() -> None:
    # Even with a single card to give there are two opponents to choose from.
    game = play(3, ["sprinkled", "glazed", "plain", "powdered"], picks(1, 2, 3))
    assert game.to_act == (0,)


def test_replay_is_deterministic() -> None:
    top = ["french_cruller", "glazed", "plain", "powdered"]
    rec = record(names(3), top, [*picks(1, 2, 2), (0, "discard 3"), (0, "stop")])
    a = Record.from_dict(rec).replay()
    b = Record.from_dict(rec).replay()
    assert a.row == b.row and a.collections == b.collections
    assert a.discard_pile == b.discard_pile == ("plain", "glazed")
