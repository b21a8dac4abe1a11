"""Pieces shared by the environment wrappers: options, new games, action checking, text
rendering, and :class:`SeatAdapter` — the one adapter between the engine and the PettingZoo and
Gymnasium environments (observation space, observations, rendering, end-of-game infos)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal

import numpy as np
from gymnasium import spaces

from gonuts import rules
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
from gonuts.errors import NotYourTurnError
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


def check_options(players: int, reward: str, illegal_action: str) -> None:
    check_player_count(players)
    if reward not in REWARD_MODES:
        raise ValueError(f"unknown reward {reward!r} (choose from: {', '.join(REWARD_MODES)})")
    if illegal_action not in ILLEGAL_POLICIES:
        raise ValueError(
            f"unknown illegal_action {illegal_action!r} "
            f"(choose from: {', '.join(ILLEGAL_POLICIES)})"
        )


def new_game(players: int, seed: int, variants: Iterable[str] = ()) -> Game:
    """A dealt game without an event log (environments observe through views only)."""
    return Game.new(players, seed=seed, events=False, variants=variants)


def engine_action(
    state: GameState, seat: int, env_action: object, policy: IllegalPolicy
) -> tuple[int, bool]:
    """The engine id to apply for ``seat``'s environment action, and whether it was illegal.

    An action that is missing (``None``), not an int in the space, or illegal now is either
    refused (``policy="raise"``: :class:`ValueError`) or replaced by the lowest legal
    environment id (``policy="substitute"``), reported as illegal. A seat with no decision to
    take raises :class:`~gonuts.errors.NotYourTurnError`.
    """
    legal = rules.legal_ids(state, seat)
    if not legal:
        raise NotYourTurnError(f"seat {seat} has no decision to take now")
    chosen = -1
    try:
        value = int(env_action)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        value = -1
    if 0 <= value < NUM_ENV_ACTIONS:
        try:
            chosen = from_env_action(value, seat, state.n)
        except ValueError:
            chosen = -1
    if chosen in legal:
        return chosen, False
    if policy == "raise":
        raise ValueError(f"action {env_action!r} is not legal for seat {seat} now")
    fallback = min(legal, key=lambda i: to_env_action(i, seat, state.n))
    return fallback, True


def render_text(game: Game) -> str:
    """A plain-text picture of the table as a spectator sees it."""
    view = game.public_view()
    lines = [f"round {view.round}, {view.phase.value}, deck {view.deck_size}"]
    lines.append("row: " + "  ".join(f"{i + 1}:{c or '-'}" for i, c in enumerate(view.row)))
    for p, name in enumerate(view.players):
        coll = ", ".join(f"{k}×{v}" for k, v in sorted(view.collections[p].items())) or "—"
        lines.append(f"{name} [{view.scores[p]}]: {coll}")
    top = view.discard[-1] if view.discard else "—"
    lines.append(f"discard: {len(view.discard)} cards, top {top}")
    if view.over:
        lines.append("winners: " + ", ".join(view.players[w] for w in view.winners))
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
