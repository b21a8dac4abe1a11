"""Pieces shared by the environment wrappers: new games, action checking, text rendering."""

from __future__ import annotations

from typing import Final, Literal

from gonuts import rules
from gonuts.cards import check_player_count
from gonuts.envs.encoding import NUM_ENV_ACTIONS, REWARD_MODES, from_env_action, to_env_action
from gonuts.game import Game
from gonuts.state import GameState

IllegalPolicy = Literal["substitute", "raise"]
ILLEGAL_POLICIES: Final = ("substitute", "raise")
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


def new_game(players: int, seed: int) -> Game:
    """A dealt game without an event log (environments observe through views only)."""
    return Game.new(players, seed=seed, events=False)


def engine_action(
    state: GameState, seat: int, env_action: object, policy: IllegalPolicy
) -> tuple[int, bool]:
    """The engine id to apply for ``seat``'s environment action, and whether it was illegal.

    An action that is missing (``None``), not an int in the space, or illegal now is either
    refused (``policy="raise"``: :class:`ValueError`) or replaced by the lowest legal
    environment id (``policy="substitute"``), reported as illegal.
    """
    legal = rules.legal_ids(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has no decision to take now")
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
