"""Ratings: openskill's Plackett–Luce model over every seat of a finished game.

A game is rated once it is over and at least two accounts sat at it (docs/server.md, "Accounts
and ratings"). Every seat takes part in the ranking, so beating a bot or a guest counts:

* an account plays with its own rating, which the game updates;
* a bot plays with a fixed rating of its level (:data:`BOT_RATINGS`), never updated;
* a guest plays as a new player would (:data:`GUEST_RATING`), never updated (a guest has no
  history to update);
* a human seat played by the replacement bot since its player left still counts for that
  player: leaving a game you are losing does not save your rating.

Places follow the rules' winning order (RULES.md, "Winning"): the higher total first, then the
most cards; players equal on both share a place (and a shared first place is a win for each).
The rating shown to people is the conservative estimate mu − 3σ (openskill's ordinal), scaled
by :func:`display`: a new account shows 1000.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Final

from openskill.models import PlackettLuce, PlackettLuceRating

from gonuts.game import Game
from gonuts.server.accounts.store import AccountStore, RatedSeat

log = logging.getLogger("gonuts.server")

MODEL: Final = PlackettLuce()
NEW_RATING: Final = (MODEL.mu, MODEL.sigma)
"""(mu, sigma) of a new account: openskill's defaults, 25 and 25/3."""
GUEST_RATING: Final = NEW_RATING
"""A guest seat plays as a new account would."""
BOT_RATINGS: Final[dict[str, tuple[float, float]]] = {
    "easy": (18.0, 2.0),
    "medium": (24.0, 2.0),
    "hard": (28.0, 2.0),
}
"""Fixed (mu, sigma) per bot level: estimates, known well (small sigma), never updated."""
DISPLAY_BASE: Final = 1000
DISPLAY_SCALE: Final = 40
"""Displayed rating = 1000 + 40 × (mu − 3σ): a new account (ordinal 0) shows 1000."""


def display(mu: float, sigma: float) -> int:
    """The rating people see: the conservative estimate mu − 3σ, scaled."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 * sigma))


def places(scores: Sequence[int], cards: Sequence[int]) -> list[int]:
    """Each seat's place, 1 for the winners: by total, then cards; equal on both, equal
    places ("1224" ranking)."""
    keys = [(s, c) for s, c in zip(scores, cards, strict=True)]
    return [1 + sum(other > mine for other in keys) for mine in keys]


def game_places(game: Game) -> list[int]:
    """The places of a finished game's seats (:func:`places`)."""
    cards = [sum(game.collection(p).values()) for p in range(game.num_players)]
    return places(game.scores(), cards)


def seat_rating(seat: RatedSeat) -> tuple[float, float]:
    """The (mu, sigma) a seat plays with: its account's, its bot level's, or a guest's."""
    if seat.account_id is not None and seat.mu is not None and seat.sigma is not None:
        return seat.mu, seat.sigma
    if seat.kind == "bot":
        return BOT_RATINGS.get(seat.level or "", NEW_RATING)
    return GUEST_RATING


def rate(seats: Sequence[RatedSeat], ranks: Sequence[int]) -> dict[int, tuple[float, float]]:
    """Every account's new (mu, sigma) after a game with these seats and places."""
    teams = [[PlackettLuceRating(*seat_rating(s))] for s in seats]
    after = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return {
        s.account_id: (team[0].mu, team[0].sigma)
        for s, team in zip(seats, after, strict=True)
        if s.account_id is not None
    }


def rate_finished(store: AccountStore, table_id: str, game: Game) -> bool:
    """Rate a game that just finished (once; only with two accounts or more). A failure is
    logged, never raised: the game itself is stored and over either way."""
    try:
        return store.rate_game(table_id, game_places(game), rate)
    except Exception:
        log.exception("rating table %s failed", table_id)
        return False


__all__ = ["BOT_RATINGS", "GUEST_RATING", "NEW_RATING", "display", "places", "rate"]
