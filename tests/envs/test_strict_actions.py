"""Environments refuse a bad action by default (issue 31), as PettingZoo's classic games and
OpenSpiel do: a clear error naming the action and the legal set, the game unchanged;
substituting the lowest legal action happens only with ``illegal_action="substitute"``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]
import pytest

from gonuts.envs import openspiel  # noqa: F401  (registers python_gonuts)
from gonuts.envs._core import IllegalEnvActionError
from gonuts.envs.gymnasium import GoNutsEnv
from gonuts.envs.pettingzoo import env, parallel_env

BAD = [999, -1, "pick 1", None, 1.5, True, np.float64(2.0)]
LEGAL_SET = "legal actions: 0 (pick 1), 1 (pick 2), 2 (pick 3), 3 (pick 4)"


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_parallel_refuses_a_bad_action_by_default(bad: Any) -> None:
    penv = parallel_env(players=3)
    penv.reset(seed=0)
    with pytest.raises(IllegalEnvActionError) as info:
        penv.step({a: bad for a in penv.agents})
    message = str(info.value)
    assert "player_0" in message and repr(bad) in message and LEGAL_SET in message
    assert penv.game.state.picks == [-1, -1, -1]  # nothing applied


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_substitution_only_when_asked(bad: Any) -> None:
    penv = parallel_env(players=3, illegal_action="substitute")
    penv.reset(seed=0)
    _, _, _, _, infos = penv.step({a: bad for a in penv.agents})
    assert all(i.get("illegal_action") is True for i in infos.values())


def test_integers_as_rl_libraries_pass_them_are_actions() -> None:
    penv = parallel_env(players=3)
    penv.reset(seed=0)
    _, _, _, _, infos = penv.step({"player_0": np.int64(0), "player_1": np.array(1), "player_2": 2})
    assert not any(infos.values())
    assert penv.game.round == 2 or penv.game.phase.value != "select"


def test_a_dict_missing_an_agent_or_naming_an_unknown_one_is_refused() -> None:
    penv = parallel_env(players=3)
    penv.reset(seed=0)
    with pytest.raises(ValueError, match="no action for player_2, who must act now"):
        penv.step({"player_0": 0, "player_1": 1})
    with pytest.raises(ValueError, match="no agent 'player_9' in this game"):
        penv.step({"player_0": 0, "player_1": 1, "player_2": 2, "player_9": 0})
    assert penv.game.state.picks == [-1, -1, -1]


def test_aec_and_gymnasium_refuse_by_default() -> None:
    aec = env(players=3)
    aec.reset(seed=0)
    with pytest.raises(IllegalEnvActionError, match=r"action 1\.5 is not legal now; legal"):
        aec.step(1.5)
    gym = GoNutsEnv(players=3, seat=0)
    gym.reset(seed=0)
    with pytest.raises(IllegalEnvActionError, match="None \\(no action\\)"):
        gym.step(None)


@pytest.mark.parametrize("players", ["3", 3.0, None, True])
def test_a_player_count_that_is_not_a_whole_number_is_a_clear_error(players: Any) -> None:
    with pytest.raises(TypeError, match=r"players must be a whole number from 2 to 6, not"):
        parallel_env(players=players)


def test_openspiel_refuses_an_impossible_chance_outcome_and_an_illegal_move() -> None:
    state = pyspiel.load_game("python_gonuts").new_initial_state()
    with pytest.raises(ValueError, match=r"chance node: 9999 is not a possible outcome"):
        state.apply_action(9999)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(ValueError, match=r"player 2: action 99 is not legal now \(legal: 0"):
        state.apply_actions([0, 0, 99])
