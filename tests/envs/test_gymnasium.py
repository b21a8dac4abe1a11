"""Gymnasium: ``gonuts/GoNuts-v0`` passes ``check_env`` and plays whole games against bots."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gonuts.envs
from gonuts import rules
from gonuts.envs.encoding import to_env_action
from gonuts.envs.gymnasium import GoNutsEnv

PLAYERS = range(2, 7)


@pytest.mark.parametrize("players", PLAYERS)
def test_check_env(players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Gymnasium's checker steps with unmasked samples of the action space: only an
        # environment asked to substitute illegal actions can take them.
        check_env(
            gymnasium.make(
                "gonuts/GoNuts-v0", players=players, illegal_action="substitute"
            ).unwrapped
        )
        other = gymnasium.make(
            "gonuts/GoNuts-v0",
            players=players,
            seat=players - 1,
            reward="score_diff",
            illegal_action="substitute",
        )
        check_env(other.unwrapped)
    assert [str(w.message) for w in caught] == []


def test_registered_and_made() -> None:
    assert gonuts.envs.GYM_ENV_ID == "gonuts/GoNuts-v0"
    env = gymnasium.make("gonuts/GoNuts-v0", players=4, seat=2)
    obs, info = env.reset(seed=5)
    assert env.observation_space.contains(obs)
    assert info["seat"] == 2
    env.close()


@pytest.mark.parametrize("players", PLAYERS)
def test_games_against_bots(players: int) -> None:
    env = GoNutsEnv(players=players)
    rng = np.random.default_rng(players)
    shares = 0.0
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            state = env.game.state
            assert env.seat in rules.to_act(state)  # the agent is only asked when it decides
            legal = {to_env_action(i, env.seat, players) for i in rules.legal_ids(state, env.seat)}
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == legal
            assert np.array_equal(env.action_masks(), obs["action_mask"])
            assert np.array_equal(info["action_mask"], obs["action_mask"])
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, done, truncated, info = env.step(action)
            assert not truncated and "illegal_action" not in info
        assert env.game.is_over
        assert 0.0 <= float(reward) <= 1.0
        assert (float(reward) > 0) == (env.seat in env.game.winner_seats)
        shares += float(reward)
    assert 0.0 <= shares <= 3.0


def test_seat_drawn_per_reset_and_options_checked() -> None:
    env = GoNutsEnv(players=5)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(30)}
    assert seats == set(range(5))
    with pytest.raises(ValueError, match="opponents"):
        GoNutsEnv(players=3, opponents=["random"])
    with pytest.raises(ValueError, match="unknown bot"):
        GoNutsEnv(players=3, opponents="nobody")
    with pytest.raises(ValueError, match="no seat"):
        GoNutsEnv(players=3, seat=3)


def test_illegal_action_flagged_or_refused() -> None:
    env = GoNutsEnv(players=3, seat=0, illegal_action="substitute")
    env.reset(seed=0)
    _, _, _, _, info = env.step(520)
    assert info["illegal_action"] is True
    strict = GoNutsEnv(players=3, seat=0)  # the default refuses
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(520)


def test_mixed_opponents() -> None:
    env = GoNutsEnv(players=3, seat=1, opponents=["greedy", "random"])
    obs, _ = env.reset(seed=4)
    assert type(env.bots[0]).__name__ != type(env.bots[2]).__name__
    done = False
    while not done:
        obs, _, done, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "illegal_action" not in info and env.game.is_over
