"""A single-agent Gymnasium environment, ``gonuts/GoNuts-v0``: you against bots.

>>> import gymnasium, gonuts.envs
>>> env = gymnasium.make("gonuts/GoNuts-v0", players=3, opponents="random")
>>> obs, info = env.reset(seed=1)
>>> sorted(obs)
['action_mask', 'observation']

The agent plays one seat (``seat``; ``None``, the default, draws a seat at every reset); the
other seats are :mod:`gonuts.bots` by their CLI names (``opponents``: one name for all, or one
per opponent in seat order), each seeing only its own view. ``step`` takes the agent's
decision and runs the bots until the agent must decide again or the game ends; selections stay
secret both ways (views never show pending picks).

Observations are ``{"observation": float32[OBS_SIZE], "action_mask": int8[521]}`` (see
:mod:`gonuts.envs.encoding`); the mask is also in ``info["action_mask"]`` and from
:meth:`GoNutsEnv.action_masks` (the sb3-contrib ``MaskablePPO`` convention). The reward is 0
until the end, then ``reward="win_share"`` (1 for a sole win, split on a shared victory) or
``"score_diff"`` (own final score minus the best other score). An illegal action (or
one that is not an integer: ``1.5``, ``None``) raises
:class:`~gonuts.envs._core.IllegalEnvActionError` naming it and the legal set, and changes
nothing; only with ``illegal_action="substitute"`` is it replaced by the lowest legal id and
flagged ``info["illegal_action"]``. ``variants`` names house rules
(:data:`gonuts.variants.VARIANTS`) every game plays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from gonuts import rules
from gonuts.bots import Bot, make_bot
from gonuts.envs._core import (
    RENDER_MODES,
    SEED_BOUND,
    IllegalPolicy,
    Obs,
    SeatAdapter,
    observation_space,
)
from gonuts.envs.encoding import NUM_ENV_ACTIONS, MaskArray, action_mask
from gonuts.game import Game
from gonuts.state import Phase


class GoNutsEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One seat of Go Nuts for Donuts against bots (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        players: int = 3,
        *,
        seat: int | None = None,
        opponents: str | Sequence[str] = "random",
        reward: str = "win_share",
        illegal_action: IllegalPolicy = "raise",
        render_mode: str | None = None,
        variants: Sequence[str] = (),
    ) -> None:
        self.adapter = SeatAdapter(players, reward, illegal_action, render_mode, variants)
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"no seat {seat} in a {players}-player game")
        names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != players - 1:
            raise ValueError(f"need {players - 1} opponents, got {len(names)}")
        for name in names:
            make_bot(name)  # fail now on an unknown name
        self.players = players
        self.fixed_seat = seat
        self.opponent_names = tuple(names)
        self.reward_mode = reward
        self.illegal_action: IllegalPolicy = illegal_action
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(NUM_ENV_ACTIONS)
        self.seat = 0 if seat is None else seat
        self.bots: dict[int, Bot] = {}

    @property
    def game(self) -> Game:
        return self.adapter.game

    # -- gymnasium API -------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        self.seat = int(rng.integers(self.players)) if self.fixed_seat is None else self.fixed_seat
        self.adapter.new_game(int(rng.integers(SEED_BOUND)))
        others = [p for p in range(self.players) if p != self.seat]
        self.bots = {
            p: make_bot(name, int(rng.integers(SEED_BOUND)))
            for p, name in zip(others, self.opponent_names, strict=True)
        }
        self._run_bots()
        obs = self.adapter.observe(self.seat)
        return obs, self._info(obs, illegal=False)

    def step(self, action: Any) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.adapter.over:
            raise RuntimeError("step() after the game ended: call reset()")
        illegal = self.adapter.play(self.seat, action)
        self._run_bots()
        obs = self.adapter.observe(self.seat)
        reward = self.adapter.rewards()[self.seat]
        if self.render_mode == "human":
            self.render()
        return obs, reward, self.adapter.over, False, self._info(obs, illegal=illegal)

    def render(self) -> str | None:
        return self.adapter.render(f"\n(agent: seat {self.seat})")

    # -- masks -----------------------------------------------------------------------------------

    def action_masks(self) -> MaskArray:
        """The legal-action mask now (sb3-contrib ``MaskablePPO`` calls this)."""
        return action_mask(self.game.view(self.seat))

    # -- internals -------------------------------------------------------------------------------

    def _run_bots(self) -> None:
        state = self.game.state
        while state.phase is not Phase.OVER:
            waiting = rules.to_act(state)
            if self.seat in waiting:
                return
            for p in waiting:
                choice = self.bots[p].choose(self.game.view(p))
                rules.apply(state, p, choice.id)

    def _info(self, obs: Obs, *, illegal: bool) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": obs["action_mask"].copy(), "seat": self.seat}
        if illegal:
            info["illegal_action"] = True
        info.update(self.adapter.end_info())
        return info
