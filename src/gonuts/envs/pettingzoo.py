"""PettingZoo environments: :func:`parallel_env` (ParallelEnv) and :func:`env` (AEC).

Agents are ``player_0`` … ``player_{N-1}`` (seat order). Every agent observes
``{"observation": float32[OBS_SIZE], "action_mask": int8[521]}`` built from its own
:class:`~gonuts.view.PlayerView` (see :mod:`gonuts.envs.encoding`); the mask is all zeros for
an agent with nothing to decide.

* **Parallel**: one ``step`` per decision point. The simultaneous selection is one step for
  every player; a Cinnamon Twist pass is one step for every player with a choice; every other
  decision (a ★ power's choices) is a step where only that agent acts. The dict must hold an
  action for every agent that must act; actions of live agents with nothing to decide are
  ignored, and an agent that is not in the game is refused.
* **AEC**: one agent at a time, ``agent_selection`` being the lowest seat that must act; in a
  simultaneous phase the others' pending choices stay hidden (the views never show them).

An action that is missing, not an integer or illegal raises
:class:`~gonuts.envs._core.IllegalEnvActionError` naming the action, the agent and the legal
set, and changes nothing (``illegal_action="raise"``, the default, as PettingZoo's classic
games refuse an illegal move); only with ``illegal_action="substitute"`` is it replaced by the
lowest legal id and flagged with ``infos[agent]["illegal_action"] = True``.
Rewards are 0 until the game ends, then the terminal reward of ``reward`` (``"win_share"``:
1 to a sole winner, split on a shared victory; ``"score_diff"``: own score minus the best other
score). Games always end, so there is no truncation. ``variants`` names house rules
(:data:`gonuts.variants.VARIANTS`) every game plays; an unknown name raises
:class:`~gonuts.variants.UnknownVariantError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv  # type: ignore[import-untyped,unused-ignore]

from gonuts import rules
from gonuts.envs._core import (
    RENDER_MODES,
    SEED_BOUND,
    IllegalPolicy,
    Obs,
    SeatAdapter,
    agent_name,
    observation_space,
)
from gonuts.envs.encoding import NUM_ENV_ACTIONS, encode_observation
from gonuts.game import Game

METADATA: dict[str, Any] = {
    "name": "gonuts_v0",
    "render_modes": list(RENDER_MODES),
    "is_parallelizable": True,
}


class _Base:
    """What the parallel and AEC environments share: agents, spaces, the seeded game."""

    metadata = METADATA

    def __init__(
        self,
        players: int = 3,
        reward: str = "win_share",
        illegal_action: IllegalPolicy = "raise",
        render_mode: str | None = None,
        variants: Sequence[str] = (),
    ) -> None:
        self.adapter = SeatAdapter(players, reward, illegal_action, render_mode, variants)
        self.players = players
        self.reward_mode = reward
        self.illegal_action: IllegalPolicy = illegal_action
        self.render_mode = render_mode
        self.possible_agents = [agent_name(p) for p in range(players)]
        self.agent_seat = {a: p for p, a in enumerate(self.possible_agents)}
        self.observation_spaces = {a: observation_space() for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ENV_ACTIONS) for a in self.possible_agents}
        self.state_space = observation_space()["observation"]
        self._np_random: np.random.Generator | None = None

    @property
    def game(self) -> Game:
        return self.adapter.game

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _new_game(self, seed: int | None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self.adapter.new_game(int(self._np_random.integers(SEED_BOUND)))

    def _observe(self, seat: int) -> Obs:
        return self.adapter.observe(seat)

    def render(self) -> str | None:
        return self.adapter.render()

    def close(self) -> None:
        pass

    def state(self) -> np.ndarray[Any, Any]:
        """The public information (a spectator's view), encoded relative to seat 0."""
        return encode_observation(self.game.public_view())


class GoNutsParallelEnv(_Base, ParallelEnv):  # type: ignore[misc]
    """Go Nuts for Donuts as a PettingZoo ``ParallelEnv`` (see the module docstring)."""

    def __init__(
        self,
        players: int = 3,
        reward: str = "win_share",
        illegal_action: IllegalPolicy = "raise",
        render_mode: str | None = None,
        variants: Sequence[str] = (),
    ) -> None:
        super().__init__(players, reward, illegal_action, render_mode, variants)
        self.agents: list[str] = []

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        self._new_game(seed)
        self.agents = self.possible_agents[:]
        obs = {a: self._observe(p) for p, a in enumerate(self.agents)}
        return obs, {a: {} for a in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Obs],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        if not self.agents:
            raise RuntimeError("step() after the game ended: call reset()")
        adapter = self.adapter
        if not isinstance(actions, dict):
            raise TypeError(f"step() takes a dict of agent -> action, not {actions!r}")
        unknown = sorted(set(actions) - set(self.agents), key=str)
        if unknown:
            raise ValueError(
                f"step(): no agent {', '.join(map(repr, unknown))} in this game "
                f"(agents: {', '.join(self.agents)})"
            )
        to_act = rules.to_act(adapter.game.state)
        missing = [
            self.possible_agents[s] for s in to_act if self.possible_agents[s] not in actions
        ]
        if missing and self.illegal_action == "raise":
            raise ValueError(
                f"step(): no action for {', '.join(missing)}, who must act now "
                "(illegal_action='substitute' plays the lowest legal action for them)"
            )
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        # Resolve every choice first (a refused action leaves the game unchanged), then apply.
        chosen: list[tuple[int, int]] = []
        for seat in to_act:
            agent = self.possible_agents[seat]
            action_id, illegal = adapter.choose(seat, actions.get(agent))
            chosen.append((seat, action_id))
            if illegal:
                infos[agent]["illegal_action"] = True
        for seat, action_id in chosen:
            rules.apply(adapter.game.state, seat, action_id)
        over = adapter.over
        agents = self.agents
        obs = {a: self._observe(self.agent_seat[a]) for a in agents}
        final = adapter.rewards()
        rewards = {a: final[self.agent_seat[a]] for a in agents}
        for a in agents:
            infos[a].update(adapter.end_info())
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, False)
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminations, truncations, infos


class GoNutsAECEnv(_Base, AECEnv):  # type: ignore[misc]
    """Go Nuts for Donuts as a PettingZoo ``AECEnv`` (see the module docstring)."""

    def __init__(
        self,
        players: int = 3,
        reward: str = "win_share",
        illegal_action: IllegalPolicy = "raise",
        render_mode: str | None = None,
        variants: Sequence[str] = (),
    ) -> None:
        super().__init__(players, reward, illegal_action, render_mode, variants)
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._new_game(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._select_next()

    def observe(self, agent: str) -> Obs:
        return self._observe(self.agent_seat[agent])

    def _select_next(self) -> None:
        to_act = rules.to_act(self.game.state)
        if to_act:
            self.agent_selection = self.possible_agents[to_act[0]]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_seat[agent]
        adapter = self.adapter
        action_id, illegal = adapter.choose(seat, action)  # a refused action changes nothing
        self._cumulative_rewards[agent] = 0.0
        self.infos = {a: {} for a in self.agents}
        if illegal:
            self.infos[agent]["illegal_action"] = True
        rules.apply(adapter.game.state, seat, action_id)
        final = adapter.rewards()
        self.rewards = {a: final[self.agent_seat[a]] for a in self.agents}
        if adapter.over:
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a].update(adapter.end_info())
        else:
            self._select_next()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()


def parallel_env(
    players: int = 3,
    reward: str = "win_share",
    illegal_action: IllegalPolicy = "raise",
    render_mode: str | None = None,
    variants: Sequence[str] = (),
) -> GoNutsParallelEnv:
    """A PettingZoo ParallelEnv for ``players`` (2–6) seats, with house rules ``variants``."""
    return GoNutsParallelEnv(players, reward, illegal_action, render_mode, variants)


def env(
    players: int = 3,
    reward: str = "win_share",
    illegal_action: IllegalPolicy = "raise",
    render_mode: str | None = None,
    variants: Sequence[str] = (),
) -> GoNutsAECEnv:
    """A PettingZoo AEC environment for ``players`` (2–6) seats, with house rules ``variants``."""
    return GoNutsAECEnv(players, reward, illegal_action, render_mode, variants)


raw_env = env
