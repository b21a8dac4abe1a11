"""Opponents. A bot sees only its own seat's :class:`~gonuts.view.PlayerView` and answers one
of its legal actions; it never touches the game state.

* :class:`RandomBot` (``random``), :class:`GreedyBot` (``greedy``), :class:`MCTSBot`
  (``mcts``) and difficulty levels ``easy``, ``medium``, ``hard`` — see :func:`make_bot`.
* :func:`hint` — the strong bot's estimate of every legal action (for hints in any UI).
"""

from gonuts.bots.base import BOT_NAMES, DIFFICULTIES, Bot, NoisyBot, RandomBot, make_bot
from gonuts.bots.greedy import GreedyBot
from gonuts.bots.hint import Hint, hint
from gonuts.bots.mcts import ActionEstimate, MCTSBot, SearchResult, search

__all__ = [
    "BOT_NAMES",
    "DIFFICULTIES",
    "ActionEstimate",
    "Bot",
    "GreedyBot",
    "Hint",
    "MCTSBot",
    "NoisyBot",
    "RandomBot",
    "SearchResult",
    "hint",
    "make_bot",
    "search",
]
