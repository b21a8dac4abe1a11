"""The first-game guide (issue 11 item 5): a 2-player table against a scripted coach.

A tutorial table is an ordinary table (stored, played, replayed like any other) with two
differences, both made here: its deck is stacked so that the moments the guide explains come
in the first three rounds, and its bot seat has the level :data:`TUTORIAL_LEVEL`, played by
:class:`TutorialBot`. The front end (``views/tutorial.js``) recognises the table by that level
and overlays its explanations; the player makes every decision.

The opening, if the player follows the guide's suggestions (:data:`SUGGESTED`):

* round 1, row Glazed · Donut Holes · Plain: the player takes the Glazed, the coach the Donut
  Holes: the reveal;
* round 2, row Powdered · Jelly-Filled · Plain: both choose the Powdered: a contested card,
  discarded;
* round 3, row Éclair · Jelly-Filled · Plain: the player takes the Éclair, whose ★ power takes
  the top card of the discard pile (that Powdered): a power;
* then the game goes on to its end and its scoring, the coach playing as the ``easy`` bot.

If the player does otherwise, the game simply goes on: the coach keeps to its script while its
scripted position is legal, and the guide explains what did happen.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Mapping
from typing import Final

from gonuts.actions import Action
from gonuts.bots import Bot, make_bot
from gonuts.cards import KIND_IDS, canonical_deck
from gonuts.rng import seeded_shuffle
from gonuts.server.kernel.db import hash_token
from gonuts.server.lobby.rules import check_name, new_token
from gonuts.server.play.protocol import StoredSeat, StoredTable
from gonuts.state import Phase
from gonuts.view import PlayerView

TUTORIAL_LEVEL: Final = "tutorial"
"""The level of the coach's seat: what makes a table a tutorial (summaries show it)."""
PLAYERS: Final = 2
OPENING: Final[tuple[str, ...]] = (
    "glazed", "donut_holes", "plain",  # round 1's row
    "powdered", "jelly_filled",  # round 2 refills positions 1 and 2
    "eclair",  # round 3 refills position 1 (the contested Powdered left it)
)  # fmt: skip
"""The top of the tutorial deck, top first."""
REST_SEED: Final = 20_241_130
"""The fixed shuffle of the rest of the deck: every tutorial is the same game."""
COACH_PICKS: Final[Mapping[int, int]] = {1: 2, 2: 1, 3: 3}
"""The coach's position by round (1-based): Donut Holes, then the Powdered, then the Plain."""
SUGGESTED: Final[Mapping[int, str]] = {1: "glazed", 2: "powdered", 3: "eclair"}
"""The card the guide suggests to the player by round (views/tutorial.js says the same)."""
COACH_NAMES: Final[Mapping[str, str]] = {"en": "Coach", "es": "Guía", "it": "Guida"}


def tutorial_deck() -> tuple[str, ...]:
    """The stacked 2-player deck, top first: :data:`OPENING`, then the rest in a fixed order."""
    rest = Counter(KIND_IDS[k] for k in canonical_deck(PLAYERS))
    rest.subtract(OPENING)
    shuffled = seeded_shuffle(sorted(rest.elements()), REST_SEED)
    return (*OPENING, *shuffled)


class TutorialBot:
    """The coach: its scripted pick in the first rounds when legal, else the ``easy`` bot."""

    name = TUTORIAL_LEVEL

    def __init__(self, seed: int | None = None) -> None:
        self.fallback: Bot = make_bot("easy", seed)

    def choose(self, view: PlayerView) -> Action:
        position = COACH_PICKS.get(view.round)
        if view.phase is Phase.SELECT and position is not None:
            for action in view.legal:
                if action.position == position:
                    return action
        return self.fallback.choose(view)


def tutorial_table(name: str, lang: str) -> tuple[StoredTable, int, str]:
    """A new tutorial table (started as soon as it is stored), the player's seat and token."""
    name = check_name(name)
    token = new_token()
    seats = (
        StoredSeat(0, "human", None, name, hash_token(token)),
        StoredSeat(1, "bot", TUTORIAL_LEVEL, COACH_NAMES.get(lang, COACH_NAMES["en"])),
    )
    return StoredTable(secrets.token_urlsafe(8), "open", tutorial_deck(), seats), 0, token


def again_level(level: str | None) -> str | None:
    """A seat's bot level at the table after this one: after the guide, the coach's seat is
    an ``easy`` bot in an ordinary game (a new deck, no script)."""
    return "easy" if level == TUTORIAL_LEVEL else level
