"""House-rule variants (RULES.md "Variants (house rules)"): every clause of each variant, the
fallbacks, records with the ``variants`` key (RECORD.md), and properties under random sets.

The stacked decks are those of the default-rules tests in test_powers.py, so each test here
shows exactly what a variant changes against the default reading tested there.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gonuts import Game, GonutsError, RecordError
from gonuts.cli import main
from gonuts.events import EventType
from gonuts.record import Record, replay_summary
from gonuts.variants import (
    MILK_ANY_THREE,
    SPRINKLED_ANY_CARD,
    TWIST_PASS_ANY,
    VARIANTS,
    UnknownVariantError,
    check_variants,
)
from support import Act, assert_conserved, draft, events_of, legal, picks, record
from test_powers import milk_setup, sprinkled_setup, twist_setup

E = EventType


def vplay(
    players: int, top: Sequence[str], actions: Sequence[Act], variants: Sequence[str]
) -> Game:
    """Replay a stacked-deck record with ``variants`` in its ``variants`` key."""
    rec = record(players, top, actions)
    rec["variants"] = list(variants)
    game = Record.from_dict(rec).replay()
    assert_conserved(game)
    return game


# -- the names -----------------------------------------------------------------------------------


def test_variant_names_are_those_of_the_rules() -> None:
    assert VARIANTS == ("sprinkled_any_card", "milk_any_three", "twist_pass_any")


def test_unknown_variant_is_a_typed_error_naming_it() -> None:
    with pytest.raises(UnknownVariantError, match="'milk_any_two'") as info:
        Game.new(4, seed=1, variants=["milk_any_three", "milk_any_two"])
    assert isinstance(info.value, GonutsError)
    assert isinstance(info.value, ValueError)
    assert "twist_pass_any" in str(info.value)  # the message lists the valid names


def test_variants_in_canonical_order_and_default_is_empty() -> None:
    assert Game.new(4, seed=1).variants == ()
    assert Game.new(4, seed=1).state.config.variants == frozenset()
    game = Game.new(4, seed=1, variants=[TWIST_PASS_ANY, SPRINKLED_ANY_CARD, TWIST_PASS_ANY])
    assert game.variants == (SPRINKLED_ANY_CARD, TWIST_PASS_ANY)
    assert game.copy().variants == game.variants
    assert check_variants(MILK_ANY_THREE) == frozenset({MILK_ANY_THREE})  # a lone name


def test_variants_do_not_change_the_deal() -> None:
    plain = Game.new(5, seed=9)
    varied = Game.new(5, seed=9, variants=VARIANTS)
    assert plain.initial_deck == varied.initial_deck
    assert plain.row == varied.row


# -- sprinkled_any_card --------------------------------------------------------------------------


def test_sprinkled_any_card_may_give_this_sprinkled() -> None:
    top, acts = sprinkled_setup()
    game = vplay(3, top, acts, [SPRINKLED_ANY_CARD])
    assert game.to_act == (0,)
    assert legal(game, 0) == [
        "give glazed to 1",
        "give glazed to 2",
        "give jelly_filled to 1",
        "give jelly_filled to 2",
        "give sprinkled to 1",
        "give sprinkled to 2",
    ]
    game = vplay(3, top, [*acts, (0, "give sprinkled to 2")], [SPRINKLED_ANY_CARD])
    assert game.collections == [
        {"glazed": 1, "jelly_filled": 1},
        {"plain": 2, "maple_bar": 1},
        {"powdered": 1, "donut_holes": 1, "glazed": 1, "sprinkled": 1},
    ]
    moved = events_of(game, E.CARD_MOVED)
    assert [(e.player, e.other, e.card, e.source) for e in moved] == [
        (0, 2, "sprinkled", "sprinkled")
    ]
    assert game.to_act == (0, 1, 2)  # the given Sprinkled does not resolve again


def test_sprinkled_any_card_other_cards_still_allowed() -> None:
    top, acts = sprinkled_setup()
    game = vplay(3, top, [*acts, (0, "give jelly_filled to 1")], [SPRINKLED_ANY_CARD])
    assert game.collection(0) == {"glazed": 1, "sprinkled": 1}
    assert game.collection(1) == {"plain": 2, "maple_bar": 1, "jelly_filled": 1}


def test_sprinkled_any_card_as_only_card_must_still_be_given() -> None:
    top = ["sprinkled", "glazed", "plain", "powdered"]
    game = vplay(3, top, picks(1, 2, 3), [SPRINKLED_ANY_CARD])
    assert legal(game, 0) == ["give sprinkled to 1", "give sprinkled to 2"]


def test_default_sprinkled_never_offers_this_sprinkled_with_other_cards() -> None:
    top, acts = sprinkled_setup()
    game = vplay(3, top, acts, [])
    assert not any("sprinkled" in a for a in legal(game, 0))
    with pytest.raises(RecordError, match="illegal action"):
        vplay(3, top, [*acts, (0, "give sprinkled to 2")], [])


# -- milk_any_three ------------------------------------------------------------------------------

MILK_HAND = ["glazed", "plain", "plain", "powdered"]


def test_milk_any_three_first_discard_offers_the_milk_as_the_alternative() -> None:
    top, acts = milk_setup(MILK_HAND)
    game = vplay(4, top, acts, [MILK_ANY_THREE])
    assert legal(game, 0) == [
        "discard glazed",
        "discard milk",
        "discard plain",
        "discard powdered",
    ]
    # As the first discard, "discard milk" is the alternative: the Milk alone goes.
    game = vplay(4, top, [*acts, (0, "discard milk")], [MILK_ANY_THREE])
    assert game.collection(0) == {"glazed": 1, "plain": 2, "powdered": 1}
    assert game.discard_pile == ("glazed", "milk")
    assert game.to_act == (0, 1, 2, 3)


def test_milk_any_three_milk_as_the_second_of_three() -> None:
    top, acts = milk_setup(MILK_HAND)
    acts = [*acts, (0, "discard plain")]
    game = vplay(4, top, acts, [MILK_ANY_THREE])
    assert legal(game, 0) == ["discard glazed", "discard milk", "discard plain", "discard powdered"]
    game = vplay(4, top, [*acts, (0, "discard milk")], [MILK_ANY_THREE])
    assert game.to_act == (0,)  # the power goes on: the Milk was one of the three
    assert legal(game, 0) == ["discard glazed", "discard plain", "discard powdered"]
    game = vplay(4, top, [*acts, (0, "discard milk"), (0, "discard powdered")], [MILK_ANY_THREE])
    assert game.collection(0) == {"glazed": 1, "plain": 1}
    assert game.discard_pile == ("glazed", "plain", "milk", "powdered")
    assert game.to_act == (0, 1, 2, 3)
    discarded = events_of(game, E.CARD_DISCARDED)
    assert [(e.player, e.card, e.source) for e in discarded] == [
        (0, "plain", "milk"),
        (0, "milk", "milk"),
        (0, "powdered", "milk"),
    ]


def test_milk_any_three_milk_as_the_third_of_three() -> None:
    top, acts = milk_setup(MILK_HAND)
    acts = [*acts, (0, "discard plain"), (0, "discard glazed")]
    game = vplay(4, top, acts, [MILK_ANY_THREE])
    assert legal(game, 0) == ["discard milk", "discard plain", "discard powdered"]
    game = vplay(4, top, [*acts, (0, "discard milk")], [MILK_ANY_THREE])
    assert game.collection(0) == {"plain": 1, "powdered": 1}
    assert game.discard_pile == ("glazed", "plain", "glazed", "milk")
    assert game.to_act == (0, 1, 2, 3)


def test_milk_any_three_three_other_cards_all_kept_milk_discards() -> None:
    """The default three-other-cards discard is still possible under the variant."""
    top, acts = milk_setup(MILK_HAND)
    acts = [*acts, (0, "discard plain"), (0, "discard plain"), (0, "discard glazed")]
    game = vplay(4, top, acts, [MILK_ANY_THREE])
    assert game.collection(0) == {"milk": 1, "powdered": 1}


def test_milk_any_three_with_three_cards_in_all_asks() -> None:
    """Two other cards: the default discards the Milk at once; the variant lets you discard
    your three cards, the Milk among them."""
    top, acts = milk_setup(["glazed", "plain"])
    default = vplay(4, top, acts, [])
    assert default.discard_pile == ("glazed", "milk")
    assert default.to_act == (0, 1, 2, 3)
    game = vplay(4, top, acts, [MILK_ANY_THREE])
    assert game.to_act == (0,)
    assert legal(game, 0) == ["discard glazed", "discard milk", "discard plain"]
    game = vplay(4, top, [*acts, (0, "discard plain")], [MILK_ANY_THREE])
    assert legal(game, 0) == ["discard glazed", "discard milk"]
    game = vplay(4, top, [*acts, (0, "discard plain"), (0, "discard milk")], [MILK_ANY_THREE])
    # The last of the three is forced: the Glazed goes by itself.
    assert game.collection(0) == {}
    assert game.discard_pile == ("glazed", "plain", "milk", "glazed")
    assert game.to_act == (0, 1, 2, 3)


def test_milk_any_three_with_fewer_than_three_cards_discards_the_milk() -> None:
    top, acts = milk_setup(["glazed"])
    game = vplay(4, top, acts, [MILK_ANY_THREE])
    assert game.collection(0) == {"glazed": 1}
    assert game.discard_pile == ("glazed", "milk")
    assert game.to_act == (0, 1, 2, 3)
    assert len(game.actions_taken()) == len(acts)  # no decision asked


def test_default_milk_never_discards_the_milk_after_the_first_discard() -> None:
    top, acts = milk_setup(MILK_HAND)
    with pytest.raises(RecordError, match="illegal action"):
        vplay(4, top, [*acts, (0, "discard plain"), (0, "discard milk")], [])


# -- twist_pass_any ------------------------------------------------------------------------------


def test_twist_pass_any_taker_may_pass_this_twist() -> None:
    top, acts = twist_setup()
    game = vplay(4, top, acts, [TWIST_PASS_ANY])
    assert game.to_act == (0, 2, 3)
    assert legal(game, 0) == ["pass cinnamon_twist", "pass glazed", "pass plain"]
    assert legal(game, 2) == ["pass donut_holes", "pass powdered"]  # others: unchanged
    acts = [*acts, (0, "pass cinnamon_twist"), (2, "pass powdered"), (3, "pass maple_bar")]
    game = vplay(4, top, acts, [TWIST_PASS_ANY])
    assert game.collections == [
        {"glazed": 1, "plain": 1, "maple_bar": 1},
        {"jelly_filled": 1, "cinnamon_twist": 1},
        {"donut_holes": 1, "jelly_filled": 1},
        {"plain": 1, "powdered": 1},
    ]
    assert game.to_act == (0, 1, 2, 3)  # the passed Twist does not resolve again


def test_twist_pass_any_taker_with_only_the_twist_passes_it() -> None:
    """The default discards this Twist (no other card); the variant passes it, forced."""
    top = ["glazed", "plain", "powdered", "jelly_filled", "cinnamon_twist"]
    default = vplay(4, top, picks(5, 1, 2, 3), [])
    assert default.discard_pile == ("cinnamon_twist",)
    game = vplay(4, top, picks(5, 1, 2, 3), [TWIST_PASS_ANY])
    assert game.collections == [
        {"powdered": 1},
        {"cinnamon_twist": 1},
        {"glazed": 1},
        {"plain": 1},
    ]
    assert game.discard_pile == ()
    assert len(game.actions_taken()) == 4  # every pass was forced: no decision recorded
    assert game.to_act == (0, 1, 2, 3)


def test_twist_pass_any_still_discarded_when_a_player_has_no_card() -> None:
    top = ["glazed", "plain", "powdered", "jelly_filled", "cinnamon_twist"]
    top += ["maple_bar", "donut_holes", "glazed"]
    acts = [*picks(1, 2, 3, 3), (0, "pick 5"), (1, "pick 4"), (2, "pick 1"), (3, "pick 1")]
    game = vplay(4, top, acts, [TWIST_PASS_ANY])
    assert game.collections == [{"glazed": 1}, {"plain": 1, "jelly_filled": 1}, {}, {}]
    assert game.discard_pile == ("powdered", "maple_bar", "cinnamon_twist")


# -- variants together, other powers untouched ---------------------------------------------------


def test_a_variant_changes_only_what_it_says() -> None:
    """Milk under the two other variants plays exactly as the default."""
    top, acts = milk_setup(["glazed", "plain"])
    game = vplay(4, top, acts, [SPRINKLED_ANY_CARD, TWIST_PASS_ANY])
    assert game.discard_pile == ("glazed", "milk")
    top, acts = twist_setup()
    game = vplay(4, top, acts, [SPRINKLED_ANY_CARD, MILK_ANY_THREE])
    assert legal(game, 0) == ["pass glazed", "pass plain"]


def test_all_variants_together() -> None:
    top, acts = twist_setup()
    game = vplay(4, top, acts, VARIANTS)
    assert "pass cinnamon_twist" in legal(game, 0)
    top, acts = draft([["glazed"], ["plain"], ["powdered"]], "sprinkled")
    game = vplay(3, [*top, "jelly_filled", "donut_holes", "plain"], acts, VARIANTS)
    assert game.collections[0] == {"glazed": 1}  # round 1 only: nothing to resolve yet


# -- records --------------------------------------------------------------------------------------


def random_game(players: int, seed: int, variants: Sequence[str]) -> Game:
    game = Game.new(players, seed=seed, variants=variants)
    rng = random.Random(seed)
    while not game.is_over:
        for p in game.to_act:
            if p in game.to_act:
                options = game.legal_actions(p)
                game.apply(p, options[rng.randrange(len(options))])
    return game


def test_record_round_trip_with_variants() -> None:
    game = random_game(5, 3, [TWIST_PASS_ANY, MILK_ANY_THREE])
    text = Record.from_game(game).to_json()
    obj = json.loads(text)
    assert obj["variants"] == [MILK_ANY_THREE, TWIST_PASS_ANY]
    again = Record.from_json(text)
    assert again.variants == (MILK_ANY_THREE, TWIST_PASS_ANY)
    replayed = again.replay()
    assert replayed.variants == game.variants
    assert replay_summary(replayed) == replay_summary(game)
    assert Record.from_game(replayed).to_json() == text


def test_default_record_has_no_variants_key_and_empty_list_is_default() -> None:
    game = random_game(3, 4, [])
    obj = Record.from_game(game).to_dict()
    assert "variants" not in obj
    obj["variants"] = []
    assert Record.from_dict(obj).replay().variants == ()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (["milk_any_two"], 'variants: unknown variant "milk_any_two"'),
        ([MILK_ANY_THREE, MILK_ANY_THREE], "listed more than once"),
        ("milk_any_three", "must be a list"),
        ([3], "must be a list"),
    ],
)
def test_bad_variants_key_is_a_record_error(value: object, message: str) -> None:
    obj = Record.from_game(Game.new(4, seed=1)).to_dict()
    obj["variants"] = value
    with pytest.raises(RecordError, match=message):
        Record.from_dict(obj)


def test_replay_cli_unknown_variant_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    obj = Record.from_game(Game.new(4, seed=1)).to_dict()
    obj["variants"] = ["twist_pass_all"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unknown variant" in err and "twist_pass_all" in err


def test_replay_cli_plays_a_variant_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    top, acts = milk_setup(MILK_HAND)
    rec = record(4, top, [*acts, (0, "discard plain"), (0, "discard milk")])
    rec["variants"] = [MILK_ANY_THREE]
    path = tmp_path / "milk.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    assert main(["replay", "--json", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["to_act"] == [
        {"player": 0, "legal": ["discard glazed", "discard plain", "discard powdered"]}
    ]


# -- properties ----------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    variants=st.sets(st.sampled_from(VARIANTS)),
    rng=st.randoms(use_true_random=False),
)
def test_games_under_random_variants_conserve_cards_and_end(
    players: int, seed: int, variants: set[str], rng: random.Random
) -> None:
    game = Game.new(players, seed=seed, variants=variants)
    decisions = 0
    while not game.is_over:
        seats = list(game.to_act)
        rng.shuffle(seats)  # a simultaneous phase takes its actions in any order
        for p in seats:
            if p in game.to_act:
                options = game.legal_actions(p)
                assert options
                game.apply(p, options[rng.randrange(len(options))])
                decisions += 1
                assert_conserved(game)
        assert decisions < 2_000
    assert game.winner_seats
    replayed = Record.from_json(Record.from_game(game).to_json()).replay()
    assert replay_summary(replayed) == replay_summary(game)
