"""PettingZoo: the library's own API and seed tests for 2–6 players, and the game flow."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import (  # type: ignore[import-untyped,unused-ignore]
    api_test,
    parallel_api_test,
    parallel_seed_test,
    seed_test,
)

from gonuts import rules
from gonuts.envs.encoding import action_mask, to_env_action
from gonuts.envs.pettingzoo import env, parallel_env
from gonuts.state import Phase

PLAYERS = range(2, 7)
# PettingZoo warns about every Dict observation space (the standard action-mask layout).
EXPECTED_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent")


def _unexpected(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)]


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_api_test(players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(players=players), num_cycles=1000)
    assert _unexpected(caught) == []


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_parallel_api_test(players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(parallel_env(players=players), num_cycles=1000)
    assert _unexpected(caught) == []


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_seed_test(players: int) -> None:
    seed_test(lambda: env(players=players), num_cycles=500)


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_parallel_seed_test(players: int) -> None:
    # PettingZoo's seed test steps with unmasked samples of the action space: only an
    # environment asked to substitute illegal actions can take them.
    parallel_seed_test(
        lambda: parallel_env(players=players, illegal_action="substitute"), num_cycles=500
    )


def _masked(rng: np.random.Generator, mask: np.ndarray[Any, Any]) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("players", PLAYERS)
def test_parallel_steps_follow_the_engine(players: int) -> None:
    penv = parallel_env(players=players)
    rng = np.random.default_rng(players)
    obs, _ = penv.reset(seed=players)
    steps = 0
    while penv.agents:
        state = penv.game.state
        waiting = rules.to_act(state)
        if state.phase is Phase.SELECT:
            assert waiting == list(range(players))  # the selection is one step for all
        elif state.phase is not Phase.CINNAMON_TWIST:
            assert waiting == [state.actor]
        for p, agent in enumerate(penv.possible_agents):
            mask = obs[agent]["action_mask"]
            expected = {to_env_action(i, p, players) for i in rules.legal_ids(state, p)}
            assert set(np.flatnonzero(mask).tolist()) == expected
            assert (p in waiting) == bool(expected)
        actions = {
            a: _masked(rng, obs[a]["action_mask"])
            for p, a in enumerate(penv.possible_agents)
            if p in waiting
        }
        obs, rewards, terms, truncs, infos = penv.step(actions)
        steps += 1
        assert not any(truncs.values())
        assert not any("illegal_action" in i for i in infos.values())
    assert all(terms.values())
    assert sum(rewards.values()) == pytest.approx(1.0)
    assert steps > 5


def test_parallel_illegal_actions() -> None:
    penv = parallel_env(players=3, illegal_action="substitute")
    penv.reset(seed=1)
    _, _, _, _, infos = penv.step({"player_0": 400, "player_1": 1})  # player_2 missing
    assert infos["player_0"] == {"illegal_action": True}
    assert infos["player_1"] == {}
    assert infos["player_2"] == {"illegal_action": True}
    strict = parallel_env(players=3)  # the default refuses
    strict.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        strict.step({"player_0": 400, "player_1": 1, "player_2": 0})
    assert strict.game.state.picks == [-1, -1, -1]  # refused before any change


@pytest.mark.parametrize("reward", ["win_share", "score_diff"])
def test_aec_full_game_rewards(reward: str) -> None:
    aec = env(players=4, reward=reward)
    aec.reset(seed=7)
    rng = np.random.default_rng(0)
    final: dict[str, float] = {}
    for agent in aec.agent_iter():
        obs, rew, term, trunc, _ = aec.last()
        if term or trunc:
            final[agent] = float(rew)
            aec.step(None)
            continue
        seat = aec.agent_seat[agent]
        assert seat == min(rules.to_act(aec.game.state))  # the lowest seat that must act
        assert np.array_equal(obs["action_mask"], action_mask(aec.game.view(seat)))
        aec.step(_masked(rng, obs["action_mask"]))
    scores = aec.game.scores()
    if reward == "win_share":
        assert sum(final.values()) == pytest.approx(1.0)
    else:
        for p, a in enumerate(aec.possible_agents):
            best_other = max(s for q, s in enumerate(scores) if q != p)
            assert final[a] == scores[p] - best_other


def test_render_and_state() -> None:
    penv = parallel_env(players=2, render_mode="ansi")
    penv.reset(seed=3)
    text = penv.render()
    assert isinstance(text, str) and text.startswith("round 1")
    state = penv.state()
    assert state.shape == penv.state_space.shape and penv.state_space.contains(state)
