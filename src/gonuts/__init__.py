"""gonuts — Go Nuts for Donuts: an exact rules engine, game records, bots and ways to play."""

from gonuts import build as _build  # noqa: F401 - first: GONUTS_PURE=1 acts on import
from gonuts.actions import Action, Verb, parse_action
from gonuts.cards import KIND_BY_ID, KINDS, CardKind, Colour
from gonuts.errors import (
    GameOverError,
    GonutsError,
    IllegalActionError,
    MalformedActionError,
    NotYourTurnError,
    RecordError,
)
from gonuts.events import Event, EventType
from gonuts.game import Game
from gonuts.scoring import ScoreBreakdown, ScoreLine
from gonuts.state import Phase
from gonuts.view import PlayerView

__version__ = "0.3.0"

__all__ = [
    "KINDS",
    "KIND_BY_ID",
    "Action",
    "CardKind",
    "Colour",
    "Event",
    "EventType",
    "Game",
    "GameOverError",
    "GonutsError",
    "IllegalActionError",
    "MalformedActionError",
    "NotYourTurnError",
    "Phase",
    "PlayerView",
    "RecordError",
    "ScoreBreakdown",
    "ScoreLine",
    "Verb",
    "parse_action",
]
