"""OpenSpiel: ``python_gonuts`` passes ``random_sim_test`` directly and turn-based, and the
MCTS example runs."""

from __future__ import annotations

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]
import pytest

from gonuts import rules
from gonuts.envs.encoding import OBS_SIZE, encode_observation, to_env_action
from gonuts.envs.openspiel import NOOP, GoNutsState, replay_engine_state
from gonuts.view import make_view

PLAYERS = range(2, 7)


@pytest.mark.parametrize("players", PLAYERS)
def test_random_sim_test(players: int) -> None:
    game = pyspiel.load_game("python_gonuts", {"players": players})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("players", PLAYERS)
def test_random_sim_test_turn_based(players: int) -> None:
    game = pyspiel.load_game(f"turn_based_simultaneous_game(game=python_gonuts(players={players}))")
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    converted = pyspiel.convert_to_turn_based(
        pyspiel.load_game("python_gonuts", {"players": players})
    )
    pyspiel.random_sim_test(converted, num_sims=1, serialize=False, verbose=False)


def test_game_description() -> None:
    game = pyspiel.load_game("python_gonuts")
    assert game.num_players() == 3
    assert game.num_distinct_actions() == NOOP + 1
    assert game.observation_tensor_size() == OBS_SIZE
    assert game.information_state_tensor_size() == OBS_SIZE
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    with pytest.raises(Exception, match="2 to 6"):
        pyspiel.load_game("python_gonuts", {"players": 7})


def test_play_through_matches_engine() -> None:
    game = pyspiel.load_game("python_gonuts", {"players": 4})
    state: GoNutsState = game.new_initial_state()
    rng = np.random.default_rng(1)
    chance_nodes = 0
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        assert sum(probs) == pytest.approx(1.0)
        state.apply_action(int(rng.choice(outcomes, p=probs)))
        chance_nodes += 1
    assert 1 <= chance_nodes <= 61
    simultaneous = sequential = 0
    while not state.is_terminal():
        engine = state.engine
        waiting = rules.to_act(engine)
        for p in range(4):
            legal = sorted(to_env_action(i, p, 4) for i in rules.legal_ids(engine, p))
            obs = np.array(state.observation_tensor(p), np.float32)
            assert np.array_equal(obs, encode_observation(make_view(engine, p)))
            if state.is_simultaneous_node():
                assert state.legal_actions(p) == (legal or [NOOP])
        assert state.information_state_string(0) != state.observation_string(0)
        if state.is_simultaneous_node():
            simultaneous += 1
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(4)])
        else:
            sequential += 1
            assert [state.current_player()] == waiting
            state.apply_action(int(rng.choice(state.legal_actions())))
        replayed = replay_engine_state(4, state.full_history())
        assert replayed is not None and replayed.coll == state.engine.coll
    assert simultaneous > 5
    assert sum(state.returns()) == pytest.approx(1.0)


def test_information_state_hides_the_deal() -> None:
    game = pyspiel.load_game("python_gonuts", {"players": 2})
    a, b = game.new_initial_state(), game.new_initial_state()
    deck_a = [k for k, n in enumerate(a.remaining) for _ in range(n)]
    # Two deals that differ only below the row: the players cannot tell them apart.
    deck_b = deck_a[:3] + deck_a[3:][::-1]
    for card in deck_a:
        if a.is_chance_node():
            a.apply_action(card)
    for card in deck_b:
        if b.is_chance_node():
            b.apply_action(card)
    assert a.engine.deck != b.engine.deck
    for p in range(2):
        assert a.information_state_string(p) == b.information_state_string(p)
        assert a.observation_tensor(p) == b.observation_tensor(p)
