"""Pieces shared by the environment wrappers: options, new games, action checking, text
rendering, and :class:`SeatAdapter` — the one adapter between the engine and the PettingZoo and
Gymnasium environments (observation space, observations, rendering, end-of-game infos)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal

import numpy as np
from gymnasium import spaces

from gonuts import rules
from gonuts.actions import ACTIONS
from gonuts.cards import check_player_count
from gonuts.envs.encoding import (
    NUM_ENV_ACTIONS,
    OBS_HIGH,
    OBS_LOW,
    OBS_SIZE,
    REWARD_MODES,
    action_mask,
    encode_observation,
    from_env_action,
    terminal_rewards,
    to_env_action,
)
from gonuts.errors import IllegalActionError, NotYourTurnError
from gonuts.game import Game
from gonuts.state import GameState
from gonuts.variants import check_variants, ordered

IllegalPolicy = Literal["substitute", "raise"]
ILLEGAL_POLICIES: Final = ("substitute", "raise")
RENDER_MODES: Final = ("ansi", "human")
Obs = dict[str, np.ndarray[Any, Any]]
"""``{"observation": float32[OBS_SIZE], "action_mask": int8[NUM_ENV_ACTIONS]}``."""
SEED_BOUND: Final = 2**63
"""Game seeds drawn by the environments lie in ``range(SEED_BOUND)``."""


def agent_name(seat: int) -> str:
    return f"player_{seat}"


def check_options(players: object, reward: str, illegal_action: str) -> None:
    if not isinstance(players, int | np.integer) or isinstance(players, bool):
        raise TypeError(f"players must be a whole number from 2 to 6, not {players!r}")
    check_player_count(int(players))
    if reward not in REWARD_MODES:
        raise ValueError(f"unknown reward {reward!r} (choose from: {', '.join(REWARD_MODES)})")
    if illegal_action not in ILLEGAL_POLICIES:
        raise ValueError(
            f"unknown illegal_action {illegal_action!r} "
            f"(choose from: {', '.join(ILLEGAL_POLICIES)})"
        )


class IllegalEnvActionError(IllegalActionError):
    """An environment action that is not legal now (``illegal_action="raise"``, the default):
    the message names the action, the agent and the legal set; the game is unchanged."""


def as_env_id(env_action: object) -> int | None:
    """The environment id ``env_action`` stands for: a Python or NumPy integer (or a 0-d
    integer array, as RL libraries pass them); None for anything else (``1.5``, ``"pick 1"``,
    ``None``, ``True``)."""
    if isinstance(env_action, np.ndarray) and env_action.shape == ():
        env_action = env_action[()]
    if isinstance(env_action, bool | np.bool_) or not isinstance(env_action, int | np.integer):
        return None
    return int(env_action)


def legal_text(legal_env: Sequence[int], seat: int, players: int) -> str:
    """``0 (pick 1), 1 (pick 2), …``: the legal environment ids with their notation."""
    return ", ".join(
        f"{a} ({ACTIONS[from_env_action(a, seat, players)].notation})" for a in legal_env
    )


def engine_action(
    state: GameState, seat: int, env_action: object, policy: IllegalPolicy
) -> tuple[int, bool]:
    """The engine id to apply for ``seat``'s environment action, and whether it was illegal.

    An action that is missing (``None``), not an integer in the space, or illegal now is
    refused (``policy="raise"``, the default of every environment, as PettingZoo's and
    OpenSpiel's games do: :class:`IllegalEnvActionError` naming the action and the legal
    set) or, only when asked (``policy="substitute"``), replaced by the lowest legal
    environment id and reported as illegal. A seat with no decision to take raises
    :class:`~gonuts.errors.NotYourTurnError`.
    """
    legal = rules.legal_ids(state, seat)
    if not legal:
        raise NotYourTurnError(f"seat {seat} has no decision to take now")
    chosen = -1
    value = as_env_id(env_action)
    if value is not None and 0 <= value < NUM_ENV_ACTIONS:
        try:
            chosen = from_env_action(value, seat, state.n)
        except ValueError:
            chosen = -1
    if chosen in legal:
        return chosen, False
    if policy == "raise":
        legal_env = sorted(to_env_action(i, seat, state.n) for i in legal)
        what = "None (no action)" if env_action is None else f"action {env_action!r}"
        raise IllegalEnvActionError(
            f"{agent_name(seat)} (seat {seat}): {what} is not legal now; legal actions: "
            f"{legal_text(legal_env, seat, state.n)} (illegal_action='substitute' plays the "
            "lowest legal action instead)"
        )
    fallback = min(legal, key=lambda i: to_env_action(i, seat, state.n))
    return fallback, True


def new_game(players: int, seed: int, variants: Iterable[str] = ()) -> Game:
    """A dealt game without an event log (environments observe through views only)."""
    return Game.new(players, seed=seed, events=False, variants=variants)


def render_text(game: Game) -> str:
    """A plain-text picture of the table as a spectator sees it; seats are numbered from 0, as
    the agents (``player_0`` …) and RECORD.md number them."""
    view = game.public_view()
    lines = [f"round {view.round}, {view.phase.value}, deck {view.deck_size}"]
    lines.append("row: " + "  ".join(f"{i + 1}:{c or '-'}" for i, c in enumerate(view.row)))
    for p, name in enumerate(view.players):
        coll = ", ".join(f"{k}×{v}" for k, v in sorted(view.collections[p].items())) or "—"
        label = f"seat {p}" if name == f"Player {p}" else f"seat {p} {name}"
        lines.append(f"{label} ({agent_name(p)}) [{view.scores[p]}]: {coll}")
    top = view.discard[-1] if view.discard else "—"
    lines.append(f"discard: {len(view.discard)} cards, top {top}")
    if view.over:
        lines.append("winners: " + ", ".join(f"seat {w}" for w in view.winners))
    return "\n".join(lines)


def observation_space() -> spaces.Dict:
    """The space of :data:`Obs` (every seat's, every player count's)."""
    return spaces.Dict(
        {
            "observation": spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ENV_ACTIONS,), np.int8),
        }
    )


class SeatAdapter:
    """One game seen seat by seat, as the PettingZoo and Gymnasium environments see it.

    It checks the options once, holds the game, and answers what both kinds of environment
    ask: a seat's observation, a decision played from an environment action, the terminal
    rewards and end-of-game infos, and the text picture for ``render``.
    """

    def __init__(
        self,
        players: int,
        reward: str,
        illegal_action: IllegalPolicy,
        render_mode: str | None,
        variants: Iterable[str] = (),
    ) -> None:
        check_options(players, reward, illegal_action)
        self.variants = ordered(check_variants(variants))
        """The house rules (RULES.md "Variants") every game of this adapter plays."""
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"unknown render_mode {render_mode!r} (choose from: {', '.join(RENDER_MODES)})"
            )
        self.players = players
        self.reward_mode = reward
        self.illegal_action: IllegalPolicy = illegal_action
        self.render_mode = render_mode
        self.game: Game = new_game(players, 0, self.variants)

    def new_game(self, seed: int) -> None:
        self.game = new_game(self.players, seed, self.variants)

    @property
    def over(self) -> bool:
        return self.game.is_over

    def observe(self, seat: int) -> Obs:
        """``seat``'s observation and action mask (all zeros when it has nothing to decide)."""
        view = self.game.view(seat)
        return {"observation": encode_observation(view), "action_mask": action_mask(view)}

    def play(self, seat: int, env_action: object) -> bool:
        """Carry out ``seat``'s decision; True if the action was illegal and substituted.
        A refused action (``illegal_action="raise"``) leaves the game unchanged."""
        action_id, illegal = self.choose(seat, env_action)
        rules.apply(self.game.state, seat, action_id)
        return illegal

    def choose(self, seat: int, env_action: object) -> tuple[int, bool]:
        """:func:`engine_action` for ``seat`` now (nothing is applied)."""
        return engine_action(self.game.state, seat, env_action, self.illegal_action)

    def rewards(self) -> list[float]:
        """Each seat's reward now: 0 until the game is over, then the terminal reward."""
        if not self.game.is_over:
            return [0.0] * self.players
        return terminal_rewards(self.game.scores(), self.game.winner_seats, self.reward_mode)

    def end_info(self) -> dict[str, Any]:
        """The infos every seat gets once the game is over (final scores, winners); else {}."""
        if not self.game.is_over:
            return {}
        return {"scores": tuple(self.game.scores()), "winners": tuple(self.game.winner_seats)}

    def render(self, footer: str = "") -> str | None:
        """The table as text (``"ansi"``), printed (``"human"``: returns None), or None."""
        if self.render_mode is None:
            return None
        text = render_text(self.game) + footer
        if self.render_mode == "human":
            print(text)
            return None
        return text
