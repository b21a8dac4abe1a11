"""The deck for each player count and the setup (RULES.md "Components", "Card kinds", "Setup")."""

from __future__ import annotations

from collections import Counter

import pytest

from gonuts.cards import KIND_BY_ID, KIND_IDS, canonical_deck, deck_counts
from gonuts.errors import RecordError
from gonuts.events import EventType
from gonuts.game import Game, deck_from_seed
from gonuts.record import Record
from support import DECK_SIZES, canonical_ids, legal, names, record, stacked_deck

# id: (count, min players) as printed in RULES.md; French Cruller is counted per colour below.
TABLE: dict[str, tuple[int, int]] = {
    "chocolate_frosted": (3, 2),
    "donut_holes": (6, 2),
    "eclair": (3, 2),
    "glazed": (5, 2),
    "jelly_filled": (6, 2),
    "maple_bar": (2, 2),
    "plain": (7, 2),
    "powdered": (4, 2),
    "boston_cream": (6, 3),
    "double_chocolate": (2, 3),
    "red_velvet": (2, 3),
    "sprinkled": (2, 3),
    "bear_claw": (2, 4),
    "cinnamon_twist": (2, 4),
    "coffee": (2, 4),
    "day_old": (1, 4),
    "milk": (1, 4),
    "old_fashioned": (2, 4),
    "maple_frosted": (2, 5),
    "mucho_matcha": (2, 5),
    "raspberry_frosted": (2, 5),
    "strawberry_glazed": (2, 5),
}
CRULLERS = {2: 1, 3: 2, 4: 3, 5: 4, 6: 4}
PLAYER_COUNTS = [2, 3, 4, 5, 6]


def test_the_table_names_all_23_kinds() -> None:
    assert set(KIND_IDS) == {*TABLE, "french_cruller"}
    assert len(KIND_IDS) == 23


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_deck_size(players: int) -> None:
    assert len(canonical_deck(players)) == DECK_SIZES[players]
    assert sum(deck_counts(players)) == DECK_SIZES[players]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_french_cruller_one_per_colour_in_play(players: int) -> None:
    assert Counter(canonical_ids(players))["french_cruller"] == CRULLERS[players]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_each_kind_from_its_minimum_player_count(players: int) -> None:
    counts = Counter(canonical_ids(players))
    for kind, (count, minimum) in TABLE.items():
        assert counts[kind] == (count if players >= minimum else 0), kind
        assert KIND_BY_ID[kind].min_players == minimum, kind
    assert KIND_BY_ID["french_cruller"].min_players == 2


def test_full_deck_is_70_cards_of_the_printed_counts() -> None:
    assert Counter(canonical_ids(6)) == Counter(
        {**{k: c for k, (c, _) in TABLE.items()}, "french_cruller": 4}
    )


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_seeded_deck_is_a_shuffle_of_the_deck(players: int) -> None:
    deck = deck_from_seed(players, 12345)
    assert sorted(deck) == list(canonical_deck(players))
    assert deck == deck_from_seed(players, 12345)


def test_stacked_deck_helper() -> None:
    deck = stacked_deck(4, ["milk", "plain", "plain"])
    assert deck[:3] == ["milk", "plain", "plain"]
    assert Counter(deck) == Counter(canonical_ids(4))
    with pytest.raises(ValueError):
        stacked_deck(3, ["milk"])  # Milk is a 4+ player card
    with pytest.raises(ValueError):
        stacked_deck(2, ["french_cruller", "french_cruller"])


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_setup_deals_n_plus_1_cards_in_order(players: int) -> None:
    deck = stacked_deck(players, [])
    # A deck with the order reversed and shuffled a little, so positions are told apart.
    deck = deck[::-1]
    game = Game.new(names(players), deck=deck)
    assert game.row == tuple(deck[: players + 1])
    assert game.deck_size == DECK_SIZES[players] - (players + 1)
    assert KIND_IDS[game.state.deck[-1]] == deck[players + 1]
    assert [KIND_IDS[c] for c in reversed(game.state.deck)] == deck[players + 1 :]
    assert game.discard_pile == ()
    assert game.collections == [{} for _ in range(players)]
    assert game.round == 1
    assert game.to_act == tuple(range(players))
    assert not game.is_over
    assert game.winner_seats == ()
    for seat in range(players):
        assert legal(game, seat) == [f"pick {p}" for p in range(1, players + 2)]
    assert [e.type for e in game.event_log] == [EventType.ROUND_STARTED]
    assert game.event_log[0].cards == tuple(deck[: players + 1])


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_record_with_stacked_deck_deals_the_top(players: int) -> None:
    top = ["plain", "glazed", "eclair", "powdered", "jelly_filled", "donut_holes", "maple_bar"]
    game = Record.from_dict(record(players, top)).replay()
    assert game.row == tuple(top[: players + 1])


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_wrong_deck_is_refused(players: int) -> None:
    deck = stacked_deck(players, [])
    with pytest.raises(ValueError):
        Game.new(names(players), deck=deck[:-1])
    with pytest.raises(ValueError):
        Game.new(names(players), deck=[*deck, "plain"])
    with pytest.raises(ValueError):
        Game.new(names(players), deck=["plain", *deck[1:]])  # one plain too many
    other = 3 if players == 2 else players - 1
    if DECK_SIZES[other] != DECK_SIZES[players]:
        with pytest.raises(ValueError):
            Game.new(names(players), deck=stacked_deck(other, []))
        rec = record(other, [])
        rec["players"] = names(players)
        with pytest.raises(RecordError):
            Record.from_dict(rec)


def test_five_and_six_players_use_the_same_70_cards() -> None:
    assert Counter(canonical_ids(5)) == Counter(canonical_ids(6))
    game = Game.new(names(6), deck=stacked_deck(5, []))
    assert len(game.row) == 7
    assert game.deck_size == 63


@pytest.mark.parametrize("players", [1, 7])
def test_player_count_outside_2_to_6_is_refused(players: int) -> None:
    with pytest.raises(ValueError):
        Game.new(names(players), seed=1)
