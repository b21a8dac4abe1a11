"""House-rule variants in the environments (issue 15): every wrapper plays the rules it is given.

Each variant changes what some decision may choose (RULES.md "Variants"). So a wrapper plays a
variant exactly when, driven through random games, its legal choices stay those of the rules
engine under that variant and at some point differ from the default game's on the same deck.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pyspiel  # type: ignore[import-not-found,unused-ignore]
import pytest

import gonuts.envs.openspiel  # noqa: F401  (registers python_gonuts)
from gonuts import rules
from gonuts.envs._core import SeatAdapter
from gonuts.envs.encoding import to_env_action
from gonuts.envs.gymnasium import GoNutsEnv
from gonuts.envs.pettingzoo import env, parallel_env
from gonuts.state import GameConfig, GameState
from gonuts.variants import VARIANTS, UnknownVariantError

PLAYERS = 4  # Milk and Cinnamon Twist are dealt from four players up (RULES.md)
SEEDS = range(60)


def _mirror(state: GameState, variants: Sequence[str]) -> GameState:
    """A fresh engine game on ``state``'s deck (and names) under ``variants``."""
    config = GameConfig(state.config.players, state.config.initial_deck, frozenset(variants))
    return rules.setup(config, events=False)


def _history(state: GameState) -> list[tuple[int, int]]:
    """The decisions taken so far in ``state`` (oldest first), as (seat, action id)."""
    out: list[tuple[int, int]] = []
    node = state.history
    while node is not None:
        node, seat, action = node
        out.append((seat, action))
    return out[::-1]


def _diverges_from_default(start: Callable[[int], GameState], seed: int) -> bool:
    """Play the wrapper's game with random legal moves, two engine mirrors in lockstep.

    The mirrors start from the same deck and replay what the wrapper already played (a
    Gymnasium reset lets the bots move first). The mirror under the same variants must agree
    with the wrapper at every decision (else the test fails); returns whether the default-rules
    mirror ever offered a different set of choices at the same position.
    """
    played = start(seed)
    same = _mirror(played, sorted(played.config.variants))
    default = _mirror(played, ())
    for seat, action in _history(played):
        if rules.legal_ids(same, seat) != rules.legal_ids(default, seat):
            return True
        for state in (same, default):
            rules.apply(state, seat, action)
    rng = random.Random(seed)
    while played.phase.name != "OVER":
        seat = rules.to_act(played)[0]
        legal = rules.legal_ids(played, seat)
        assert legal == rules.legal_ids(same, seat)
        if legal != rules.legal_ids(default, seat):
            return True
        choice = rng.choice(legal)
        for state in (played, same, default):
            rules.apply(state, seat, choice)
    return False


def _pettingzoo_start(variant: str) -> Callable[[int], GameState]:
    def start(seed: int) -> GameState:
        aec = env(players=PLAYERS, variants=[variant])
        aec.reset(seed=seed)
        return aec.game.state

    return start


def _parallel_start(variant: str) -> Callable[[int], GameState]:
    def start(seed: int) -> GameState:
        par = parallel_env(players=PLAYERS, variants=[variant])
        par.reset(seed=seed)
        return par.game.state

    return start


def _gymnasium_start(variant: str) -> Callable[[int], GameState]:
    def start(seed: int) -> GameState:
        gym = GoNutsEnv(players=PLAYERS, seat=0, opponents="random", variants=[variant])
        gym.reset(seed=seed)
        return gym.game.state

    return start


def _openspiel_start(variant: str) -> Callable[[int], GameState]:
    def start(seed: int) -> GameState:
        game = pyspiel.load_game("python_gonuts", {"players": PLAYERS, "variants": variant})
        state = game.new_initial_state()
        rng = random.Random(seed)
        while state.is_chance_node():
            kinds, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(kinds, weights)[0])
        engine: GameState = state.engine
        return engine

    return start


STARTS = {
    "pettingzoo-aec": _pettingzoo_start,
    "pettingzoo-parallel": _parallel_start,
    "gymnasium": _gymnasium_start,
    "openspiel": _openspiel_start,
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("wrapper", sorted(STARTS))
def test_wrapper_plays_the_variant(wrapper: str, variant: str) -> None:
    start = STARTS[wrapper](variant)
    assert start(0).config.variants == frozenset({variant})
    assert any(_diverges_from_default(start, seed) for seed in SEEDS), (
        f"{wrapper} never offered a choice that {variant} allows and the default game does not"
    )


def test_default_wrappers_play_the_default_game() -> None:
    assert SeatAdapter(PLAYERS, "win_share", "substitute", None).game.state.config.variants == (
        frozenset()
    )
    aec = env(players=PLAYERS)
    aec.reset(seed=1)
    assert aec.game.variants == ()


def test_unknown_variant_is_refused_by_every_wrapper() -> None:
    with pytest.raises(UnknownVariantError, match="milk_any_two"):
        env(players=PLAYERS, variants=["milk_any_two"])
    with pytest.raises(UnknownVariantError):
        parallel_env(players=PLAYERS, variants=["nope"])
    with pytest.raises(UnknownVariantError):
        GoNutsEnv(players=PLAYERS, variants=["nope"])
    with pytest.raises(UnknownVariantError):
        pyspiel.load_game("python_gonuts", {"players": PLAYERS, "variants": "nope"})


def test_openspiel_game_string_round_trips_the_variants() -> None:
    game = pyspiel.load_game(
        "python_gonuts", {"players": 4, "variants": "twist_pass_any,milk_any_three"}
    )
    assert str(game) == "python_gonuts(players=4,variants=milk_any_three+twist_pass_any)"
    again = pyspiel.load_game(str(game))
    assert again.get_parameters() == {"players": 4, "variants": "milk_any_three+twist_pass_any"}


def test_env_actions_of_a_variant_only_choice_are_in_the_mask() -> None:
    """The action mask (what agents see) carries the variant's extra choices too."""
    for seed in SEEDS:
        aec = env(players=PLAYERS, variants=VARIANTS)
        aec.reset(seed=seed)
        state = aec.game.state
        default = _mirror(state, ())
        rng = random.Random(seed)
        while state.phase.name != "OVER":
            seat = rules.to_act(state)[0]
            legal = rules.legal_ids(state, seat)
            extra = set(legal) - set(rules.legal_ids(default, seat))
            if extra:
                mask = aec.observe(f"player_{seat}")["action_mask"]
                for action in extra:
                    assert mask[to_env_action(action, seat, PLAYERS)] == 1
                return
            choice = rng.choice(legal)
            rules.apply(state, seat, choice)
            rules.apply(default, seat, choice)
    pytest.fail("no variant-only choice in any game")
