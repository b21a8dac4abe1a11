"""Opponents. A bot sees only its own seat's :class:`~gonuts.view.PlayerView` and answers one
of its legal actions; it never touches the game state."""

from gonuts.bots.base import Bot, RandomBot, make_bot

__all__ = ["Bot", "RandomBot", "make_bot"]
