"""The server's services wired together on one database: play's :class:`Service` (live
tables, moves, presence, bots, clock, hints, and the lobby's steps that change a live table),
with the accounts feature rating every game that finishes, and the finished games' listings;
the table chat (the waiting room's notices said in it) and the "Play now" queue.

What the app, ``gonuts serve`` and the tests construct; each feature stays ignorant of the
others (they meet here and in :mod:`gonuts.server.app`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gonuts.game import Game
from gonuts.server.accounts.ratings import rate_finished
from gonuts.server.chat.service import Chat
from gonuts.server.games.service import Games
from gonuts.server.lobby.service import Lobby
from gonuts.server.matching.service import Matcher
from gonuts.server.play import service as play
from gonuts.server.play.protocol import LiveTable, StoredTable
from gonuts.server.store import TableStore


class Service(play.Service):
    """Play's service on the whole database, rating finished games (accounts)."""

    store: TableStore

    def __init__(self, store: TableStore, *, play_now_wait: float = 30.0, **options: Any) -> None:
        super().__init__(store, **options)
        self.on_finished.append(self.rate)
        self.games = Games(store)
        """Finished games: listings and records (:mod:`gonuts.server.games`)."""
        self.lobby = Lobby(self, store)
        """Creating and joining tables, the host's waiting room (:mod:`gonuts.server.lobby`)."""
        self.chat = Chat(self, store)
        """Table chat (:mod:`gonuts.server.chat`); the host's steps are noticed in it."""
        self.lobby.room.notices.append(self.chat.notice)
        self.lobby.room.announcers.append(self.chat.announce_room)  # other processes hear
        self.chat.room_hooks.append(self.lobby.room.heard)
        self.matcher = Matcher(self.lobby, store, wait=play_now_wait)
        """"Play now" (:mod:`gonuts.server.matching`)."""

    async def start(self) -> None:
        await super().start()
        await self.chat.start()

    async def close(self) -> None:
        await self.matcher.close()
        await self.chat.close()
        await super().close()

    def rate(self, table_id: str, game: Game) -> None:
        rate_finished(self.store, table_id, game)

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
        chat: bool = True,
    ) -> tuple[LiveTable, int | None, str | None]:
        return await self.lobby.create_table(
            seats, name, lang, variants=variants, account=account, clock=clock, chat=chat
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
