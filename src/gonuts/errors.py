"""Typed errors: callers can tell a malformed string from an illegal or out-of-turn move."""

from __future__ import annotations


class GonutsError(Exception):
    """Base class of every error gonuts raises on purpose."""


class MalformedActionError(GonutsError, ValueError):
    """A string that is not an action in RECORD.md notation."""


class IllegalActionError(GonutsError, ValueError):
    """A well-formed action that the rules do not allow now; the game state is unchanged."""


class NotYourTurnError(IllegalActionError):
    """A player with no decision to take now was asked for one: an action applied for them
    (the game state is unchanged), or a bot or environment asked to decide for their seat."""


class GameOverError(IllegalActionError):
    """An action after the game has ended; the game state is unchanged."""


class RecordError(GonutsError, ValueError):
    """A game record that is not valid ``gonuts-record/1``.

    ``index`` is the 0-based index in ``actions`` of the offending action, when there is one.
    """

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index
