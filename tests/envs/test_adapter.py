"""The one adapter behind the PettingZoo and Gymnasium environments: both answer the same
observation, rewards, end-of-game infos and picture for the same game."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gonuts import rules
from gonuts.envs._core import SeatAdapter, observation_space
from gonuts.envs.encoding import action_mask, encode_observation, terminal_rewards
from gonuts.envs.gymnasium import GoNutsEnv
from gonuts.envs.pettingzoo import env, parallel_env
from gonuts.errors import NotYourTurnError


def play_out(adapter: SeatAdapter) -> None:
    """The lowest legal action for every seat that must act, to the end."""
    while not adapter.over:
        for seat in rules.to_act(adapter.game.state):
            assert adapter.play(seat, None)  # missing: substituted, and said so


def pick(mask: np.ndarray[Any, Any], seat: int) -> int | None:
    """Seat 0's lowest legal environment id, the others' highest (None: nothing to decide)."""
    legal = np.flatnonzero(mask)
    return int(legal[0 if seat == 0 else -1]) if len(legal) else None


def test_adapter_lifecycle() -> None:
    adapter = SeatAdapter(3, "win_share", "substitute", "ansi")
    adapter.new_game(11)
    space = observation_space()
    for seat in range(3):
        obs = adapter.observe(seat)
        assert space.contains(obs)
        view = adapter.game.view(seat)
        assert np.array_equal(obs["observation"], encode_observation(view))
        assert np.array_equal(obs["action_mask"], action_mask(view))
    assert adapter.rewards() == [0.0, 0.0, 0.0] and adapter.end_info() == {}
    play_out(adapter)
    game = adapter.game
    assert adapter.rewards() == terminal_rewards(game.scores(), game.winner_seats)
    assert adapter.end_info() == {
        "scores": tuple(game.scores()),
        "winners": tuple(game.winner_seats),
    }
    text = adapter.render(" (end)")
    assert text is not None and text.startswith("round ") and text.endswith(" (end)")
    assert "winners: " in text
    with pytest.raises(NotYourTurnError):
        adapter.play(0, 0)


def test_adapter_options() -> None:
    with pytest.raises(ValueError, match="unknown render_mode 'rgb'"):
        SeatAdapter(3, "win_share", "substitute", "rgb")
    with pytest.raises(ValueError, match="unknown reward"):
        SeatAdapter(3, "elo", "substitute", None)
    quiet = SeatAdapter(2, "score_diff", "raise", None)
    assert quiet.render() is None
    with pytest.raises(ValueError, match="not legal"):
        quiet.play(0, 400)
    assert quiet.game.state.picks == [-1, -1]


def test_human_render_prints(capsys: pytest.CaptureFixture[str]) -> None:
    adapter = SeatAdapter(2, "win_share", "substitute", "human")
    assert adapter.render() is None
    assert capsys.readouterr().out.startswith("round 1")


def test_pettingzoo_and_gymnasium_agree_at_the_end() -> None:
    # The same seeded game played to its end through both kinds of environment: the same
    # final observation of a seat, the same rewards and the same end-of-game infos.
    gym_env = GoNutsEnv(players=2, seat=0, opponents="random")
    obs, info = gym_env.reset(seed=4)
    done = False
    while not done:
        obs, reward, done, _, info = gym_env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    game = gym_env.game
    final = terminal_rewards(game.scores(), game.winner_seats)
    assert float(reward) == final[0]
    assert info["scores"] == tuple(game.scores()) and info["winners"] == game.winner_seats
    aec = env(players=2)
    aec.reset(seed=4)
    aec_end: dict[str, tuple[float, dict[str, object]]] = {}
    for agent in aec.agent_iter():
        aec_obs, aec_reward, term, trunc, aec_info = aec.last()
        if term or trunc:
            aec_end[agent] = (float(aec_reward), dict(aec_info))
            aec.step(None)
        else:
            aec.step(pick(aec_obs["action_mask"], aec.agent_seat[agent]))
    penv = parallel_env(players=2)
    observations, _ = penv.reset(seed=4)
    infos: dict[str, dict[str, object]] = {}
    while penv.agents:
        actions = {a: pick(o["action_mask"], penv.agent_seat[a]) for a, o in observations.items()}
        observations, rewards, _, _, infos = penv.step(actions)
    assert penv.game.is_over and aec.game.is_over
    assert penv.game.scores() == aec.game.scores() and len(set(penv.game.scores())) > 1
    assert [rewards[a] for a in penv.possible_agents] == terminal_rewards(
        penv.game.scores(), penv.game.winner_seats
    )
    for p, agent in enumerate(penv.possible_agents):
        assert infos[agent]["winners"] == penv.game.winner_seats
        assert aec_end[agent] == (rewards[agent], infos[agent])
        assert np.array_equal(
            aec.adapter.observe(p)["observation"], penv.adapter.observe(p)["observation"]
        )
