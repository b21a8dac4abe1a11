"""The server's services wired together on one database: play's :class:`Service` (live
tables, moves, presence, bots, clock, hints, and the lobby's steps that change a live table),
with the accounts feature rating every game that finishes, and the finished games' listings.

What the app, ``gonuts serve`` and the tests construct; each feature stays ignorant of the
others (they meet here and in :mod:`gonuts.server.app`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gonuts.game import Game
from gonuts.server.accounts.ratings import display, rate_finished
from gonuts.server.games.service import Games
from gonuts.server.lobby.service import Lobby
from gonuts.server.play import service as play
from gonuts.server.play.protocol import LiveTable, StoredTable
from gonuts.server.store import TableStore


class Service(play.Service):
    """Play's service on the whole database, rating finished games (accounts)."""

    store: TableStore

    def __init__(self, store: TableStore, **options: Any) -> None:
        super().__init__(store, **options)
        self.on_finished.append(self.rate)
        self.rating_of = self.seat_rating
        self.games = Games(store)
        """Finished games: listings and records (:mod:`gonuts.server.games`)."""
        self.lobby = Lobby(self)
        """Creating and joining tables (:mod:`gonuts.server.lobby`)."""

    def rate(self, table_id: str, game: Game) -> None:
        rate_finished(self.store, table_id, game)

    def seat_rating(self, table_id: str, seat: int) -> dict[str, int | None] | None:
        """The rating of the account at a seat and this game's change of it (None until the
        game is rated, and for an unrated one); None for a guest or a bot (the ``state``
        message carries it)."""
        account_id = self.store.seat_account(table_id, seat)
        account = self.store.account(account_id) if account_id is not None else None
        if account is None:
            return None
        change = None
        for h in self.store.rating_history(account.id, 5):
            if h.table_id == table_id:
                change = display(h.mu, h.sigma) - display(h.mu_before, h.sigma_before)
        return {"rating": display(account.mu, account.sigma), "change": change}

    # -- the lobby's steps, here too (the routes and the tests call them on the service) ---------

    async def create_table(
        self,
        seats: Sequence[tuple[str, str | None]],
        name: str | None,
        lang: str,
        *,
        variants: Sequence[str] = (),
        account: int | None = None,
        clock: int | None = None,
    ) -> tuple[LiveTable, int | None, str | None]:
        return await self.lobby.create_table(
            seats, name, lang, variants=variants, account=account, clock=clock
        )

    async def open_table(self, stored: StoredTable) -> LiveTable:
        return await self.lobby.open_table(stored)

    async def join(
        self,
        table_id: str,
        name: str,
        seat: int | None = None,
        *,
        token: str | None = None,
        account: int | None = None,
    ) -> tuple[int, str]:
        return await self.lobby.join(table_id, name, seat, token=token, account=account)

    async def again(self, table_id: str, token: str | None, lang: str) -> tuple[str, int, str]:
        return await self.lobby.again(table_id, token, lang)

    async def list_tables(
        self, status: str | None, limit: int = 100, offset: int = 0
    ) -> list[dict[str, Any]]:
        return await self.lobby.list_tables(status, limit, offset)


__all__ = ["Service"]
