"""The server's services wired together on one database: play's :class:`Service` (live
tables, moves, presence, bots, clock, hints, and the lobby's steps that change a live table),
with the accounts feature rating every game that finishes, and the finished games' listings.

What the app, ``gonuts serve`` and the tests construct; each feature stays ignorant of the
others (they meet here and in :mod:`gonuts.server.app`).
"""

from __future__ import annotations

from typing import Any

from gonuts.game import Game
from gonuts.server.accounts.ratings import rate_finished
from gonuts.server.games.service import Games
from gonuts.server.play import service as play
from gonuts.server.store import TableStore


class Service(play.Service):
    """Play's service on the whole database, rating finished games (accounts)."""

    store: TableStore

    def __init__(self, store: TableStore, **options: Any) -> None:
        super().__init__(store, **options)
        self.on_finished.append(self.rate)
        self.games = Games(store)
        """Finished games: listings and records (:mod:`gonuts.server.games`)."""

    def rate(self, table_id: str, game: Game) -> None:
        rate_finished(self.store, table_id, game)


__all__ = ["Service"]
