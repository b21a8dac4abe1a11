"""The search loops written for the compiled build do what the library calls they replace."""

from __future__ import annotations

import random

import pytest

from gonuts import rules
from gonuts.bots.determinize import shuffle
from gonuts.cards import MAX_PLAYERS, NUM_KINDS
from gonuts.game import Game
from gonuts.playout import random_playout
from gonuts.state import GameState


@pytest.mark.parametrize("size", [0, 1, 2, 3, 17, 64, 65, 90])
def test_shuffle_makes_the_swaps_of_random_shuffle(size: int) -> None:
    for seed in range(40):
        expected, got = list(range(size)), list(range(size))
        r1, r2 = random.Random(seed), random.Random(seed)
        r1.shuffle(expected)
        shuffle(got, r2)
        assert got == expected
        assert r1.random() == r2.random()  # and the generator is left in the same state


def reference_playout(g: GameState, rng: random.Random) -> int:
    """The playout as written before it was inlined: to_act, legal_ids, apply_unchecked."""
    decisions = 0
    while g.phase is not rules.OVER:
        for player in rules.to_act(g):
            ids = rules.legal_ids(g, player)
            rules.apply_unchecked(g, player, ids[int(rng.random() * len(ids))])
            decisions += 1
    return decisions


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_playout_plays_as_the_generic_loop(players: int) -> None:
    """Same random stream, same decisions, same final state, from mid-selection positions too."""
    for seed in range(30):
        game = Game.new(players, seed=seed, events=False)
        if seed % 2:  # someone has already picked: only those still choosing draw a number
            game.apply_id(seed % players, 1)
        a, b = game.state.copy(events=False), game.state.copy(events=False)
        ra, rb = random.Random(seed), random.Random(seed)
        assert random_playout(a, ra) == reference_playout(b, rb)
        assert a == b
        assert a.winners == b.winners
        assert ra.random() == rb.random()


def test_powers_decode_seated_choices_as_choices_split() -> None:
    from gonuts import actions as A  # noqa: N812, PLC0415
    from gonuts.choices import split  # noqa: PLC0415
    from gonuts.powers import seat_kind  # noqa: PLC0415

    for base in (A.TAKE_FROM_BASE, A.GIVE_BASE, A.DISCARD_FROM_BASE):
        ids = range(base, base + MAX_PLAYERS * NUM_KINDS)
        assert [seat_kind(i, base) for i in ids] == [split(i, base) for i in ids]
        assert seat_kind(base + 2 * NUM_KINDS + 5, base) == (2, 5)
