"""The lobby's public face for the other features: name rules, new tables and their tokens,
the tutorial's coach (play's service seats it and, after the guide, an easy bot), the answer
of taking a seat (``Seated``: "Play now" answers it too)."""

from __future__ import annotations

from gonuts.server.lobby.messages import Seated
from gonuts.server.lobby.rules import (
    MAX_NAME,
    check_name,
    derived_token,
    fold_name,
    new_table,
    new_token,
    normal_name,
)
from gonuts.server.lobby.tutorial import TUTORIAL_LEVEL, TutorialBot, again_level

__all__ = [
    "MAX_NAME",
    "TUTORIAL_LEVEL",
    "Seated",
    "TutorialBot",
    "again_level",
    "check_name",
    "derived_token",
    "fold_name",
    "new_table",
    "new_token",
    "normal_name",
]
