"""The game state's one constructor: defaults of a fresh round, parts taken as given, checked
sizes; and ``copy`` stays independent of it."""

from __future__ import annotations

import pytest

from gonuts import rules
from gonuts.cards import NUM_KINDS
from gonuts.game import Game
from gonuts.state import GameConfig, GameState, Phase


def test_setup_builds_through_the_constructor() -> None:
    game = Game.new(3, seed=7)
    g = game.state
    assert (g.n, g.round, g.phase, g.pos, g.actor, g.step) == (3, 1, Phase.SELECT, 0, -1, 0)
    assert g.picks == [-1, -1, -1] and g.passes == [] and g.known == {}
    assert g.coll == [0] * (3 * NUM_KINDS) and g.discard == [] and g.winners == ()
    assert g.history is None and g.events is not None and len(g.events) == 1
    assert g.row == list(g.config.initial_deck[:4])
    assert g.deck == list(reversed(g.config.initial_deck[4:]))
    assert rules.setup(g.config, events=False).events is None


def test_constructor_keeps_the_parts_it_is_given() -> None:
    config = GameConfig(("a", "b"), ())
    deck, row = [1, 2, 3], [4, 5, 6]
    g = GameState(config, deck=deck, row=row, round=3, phase=Phase.OVER, winners=(1,))
    assert g.deck is deck and g.row is row  # no copy: the caller hands them over
    assert (g.n, g.round, g.phase, g.winners) == (2, 3, Phase.OVER, (1,))
    c = g.copy()
    c.deck.append(9)
    c.row[0] = -1
    assert g.deck == [1, 2, 3] and g.row == [4, 5, 6]


@pytest.mark.parametrize(
    "parts",
    [
        {"row": [1, 2]},
        {"row": [1, 2, 3], "picks": [-1]},
        {"row": [1, 2, 3], "coll": [0] * NUM_KINDS},
    ],
)
def test_constructor_refuses_sizes_for_another_player_count(parts: dict[str, list[int]]) -> None:
    with pytest.raises(ValueError, match="a 2-player state needs 3 row positions"):
        GameState(GameConfig(("a", "b"), ()), deck=[], **parts)  # type: ignore[arg-type]
