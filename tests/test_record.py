"""Records through the Python API: read, write, replay (RECORD.md "The record")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gonuts import Game, RecordError
from gonuts.bots import RandomBot
from gonuts.cards import KIND_IDS, canonical_deck
from gonuts.record import Record, replay_summary

RECORDS = Path(__file__).parent / "records"


def play_random(game: Game, seed: int, max_actions: int | None = None) -> None:
    bots = [RandomBot(seed + i) for i in range(game.num_players)]
    taken = 0
    while not game.is_over and (max_actions is None or taken < max_actions):
        for p in game.to_act:
            game.apply(p, bots[p].choose(game.view(p)))
            taken += 1


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_write_read_replay_round_trip(players: int) -> None:
    game = Game.new(players, seed=players * 11)
    play_random(game, players)
    record = Record.from_game(game, event="test", bots=["random"] * players)
    text = record.to_json()
    again = Record.from_json(text)
    assert again == record
    assert json.loads(text)["event"] == "test"
    replayed = again.replay()
    assert replay_summary(replayed) == replay_summary(game)
    assert replayed.event_log == game.event_log
    assert Record.from_json(record.to_json(indent=None)) == record


def test_seed_records_shuffle_like_game_new() -> None:
    record = Record.from_dict({"format": "gonuts-record/1", "players": ["a", "b", "c"], "seed": 9})
    assert record.initial_deck() == Game.new(3, seed=9).initial_deck
    assert sorted(record.initial_deck()) == sorted(KIND_IDS[k] for k in canonical_deck(3))
    # A deck, when present, wins over the seed.
    deck = [KIND_IDS[k] for k in canonical_deck(3)]
    both = Record.from_dict(
        {"format": "gonuts-record/1", "players": ["a", "b", "c"], "seed": 9, "deck": deck}
    )
    assert both.replay().initial_deck == tuple(deck)


def test_unknown_keys_are_kept_and_ignored() -> None:
    obj = json.loads((RECORDS / "complete-3p.json").read_text())
    obj["date"] = "2026-11-29"
    obj["nested"] = {"anything": [1, 2]}
    record = Record.from_dict(obj)
    assert record.extra["date"] == "2026-11-29"
    assert record.to_dict()["nested"] == {"anything": [1, 2]}
    assert record.replay().is_over


def test_unfinished_records_are_valid_and_replay_upto() -> None:
    record = Record.from_json((RECORDS / "complete-4p.json").read_text())
    assert record.replay(upto=0).round == 1
    partial = record.replay(upto=10)
    assert len(partial.actions_taken()) == 10 and not partial.is_over


def test_replay_errors_carry_the_action_index() -> None:
    obj = json.loads((RECORDS / "complete-2p.json").read_text())
    obj["actions"][5]["action"] = "pick 7"
    with pytest.raises(RecordError) as info:
        Record.from_dict(obj).replay()
    assert info.value.index == 5
    assert str(info.value).startswith("action 5: ")


def test_record_of_a_fresh_game_has_no_actions() -> None:
    game = Game.new(["Ana", "Ben"], seed=1)
    record = Record.from_game(game)
    assert record.actions == ()
    assert record.to_dict()["deck"] == list(game.initial_deck)
    assert record.replay().row == game.row


def _three_player_deck() -> list[str]:
    return [KIND_IDS[k] for k in canonical_deck(3)]


def test_a_deck_of_the_right_length_but_the_wrong_cards_is_a_record_error() -> None:
    deck = _three_player_deck()
    deck[deck.index("glazed")] = "plain"  # one Plain too many, one Glazed missing: same length
    with pytest.raises(RecordError, match="1 missing glazed, 1 too many plain"):
        Record.from_dict({"format": "gonuts-record/1", "players": ["a", "b", "c"], "deck": deck})


def test_the_player_bound_is_the_seat_count() -> None:
    base = {"format": "gonuts-record/1", "players": ["a", "b"], "seed": 1}
    Record.from_dict({**base, "actions": [{"player": 1, "action": "pick 1"}]})  # the last seat
    with pytest.raises(RecordError, match=r"2 is not a seat \(0 to 1\)"):
        Record.from_dict({**base, "actions": [{"player": 2, "action": "pick 1"}]})


def test_a_position_no_game_has_is_illegal_not_malformed() -> None:
    record = Record.from_dict(
        {
            "format": "gonuts-record/1",
            "players": ["a", "b", "c"],
            "seed": 1,
            "actions": [{"player": 0, "action": "pick 9"}],
        }
    )
    with pytest.raises(RecordError, match=r'illegal action "pick 9" for player 0.*pick 4\)'):
        record.replay()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "x', "invalid JSON: Unterminated string starting at line 1 column 12"),
        ("1" * 5000, "invalid JSON: a number with too many digits"),
        ("[" * 100_000, "invalid JSON: nested too deeply"),
    ],
)
def test_json_errors_read_as_one_plain_sentence(text: str, message: str) -> None:
    with pytest.raises(RecordError) as info:
        Record.from_json(text)
    assert str(info.value) == message
