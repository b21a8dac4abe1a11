"""Finished games: the listing and the records (written by play when a game ends)."""

from __future__ import annotations

from typing import Any

from gonuts.server.games.messages import game_listing_json
from gonuts.server.games.store import GamesStore
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.lobby.protocol import TUTORIAL_LEVEL

E = ErrorCode


class Games:
    """Listings and records of finished games, from the database alone (no live table)."""

    def __init__(self, store: GamesStore) -> None:
        self.store = store

    def list_games(self, limit: int, offset: int) -> list[dict[str, Any]]:
        """Finished games, newest first; the tutorial's are left out (its record and replay
        stay reachable by id)."""
        games = self.store.finished_games(limit, offset, hidden_levels=(TUTORIAL_LEVEL,))
        return [game_listing_json(g) for g in games]

    def record_text(self, game_id: str) -> str:
        """A finished game's record; ``not_finished`` or ``unknown_table`` otherwise."""
        text = self.store.record(game_id)
        if text is not None:
            return text
        if self.store.exists(game_id):
            raise ServiceError(E.NOT_FINISHED)
        raise ServiceError(E.UNKNOWN_TABLE, None, 404)
