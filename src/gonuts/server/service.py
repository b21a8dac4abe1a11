"""The server's services wired together on one database: play's :class:`Service` (live
tables, moves, presence, bots, clock, hints, and the lobby's steps that change a live table),
with the accounts feature rating every game that finishes, and the finished games' listings;
the table chat (the waiting room's notices said in it) and the "Play now" queue.

What the app, ``gonuts serve`` and the tests construct; each feature stays ignorant of the
others (they meet here and in :mod:`gonuts.server.app`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from gonuts.game import Game
from gonuts.record import apply_recorded
from gonuts.server.accounts.protocol import name_owner
from gonuts.server.accounts.ratings import display, rate_finished
from gonuts.server.chat.service import Chat
from gonuts.server.games.service import Games
from gonuts.server.kernel.i18n import DELETED_PLAYER
from gonuts.server.lobby.service import Lobby
from gonuts.server.matching.service import Matcher
from gonuts.server.play import service as play
from gonuts.server.play.protocol import LiveTable, StoredTable, anonymise_account, scrub_finished
from gonuts.server.review.service import DEFAULT_REVIEW_BOT, Reviews
from gonuts.server.store import TableStore

log = logging.getLogger("gonuts.server")


class Service(play.Service):
    """Play's service on the whole database, rating finished games (accounts)."""

    store: TableStore

    def __init__(
        self,
        store: TableStore,
        *,
        review_bot: str = DEFAULT_REVIEW_BOT,
        play_now_wait: float = 30.0,
        **options: Any,
    ) -> None:
        super().__init__(store, **options)
        self.on_finished.append(self.rate)
        self.on_finished.append(self.scrub)
        self.rating_of = self.seat_rating
        self.games = Games(store)
        """Finished games: listings and records (:mod:`gonuts.server.games`)."""
        self.lobby = Lobby(self, store, name_owner(store))
        """Creating and joining tables, the host's waiting room (:mod:`gonuts.server.lobby`)."""
        self.chat = Chat(self, store)
        """Table chat (:mod:`gonuts.server.chat`); the host's steps are noticed in it."""
        self.lobby.room.notices.append(self.chat.notice)
        self.lobby.room.announcers.append(self.chat.announce_room)  # other processes hear
        self.chat.room_hooks.append(self.lobby.room.heard)
        self.matcher = Matcher(self.lobby, store, wait=play_now_wait)
        """"Play now" (:mod:`gonuts.server.matching`)."""
        self.reviews = Reviews(
            store,
            self.games,
            analyser=review_bot,
            processes=bool(options.get("think_workers")),  # where the bots think in processes
        )
        """Finished games' reviews (:mod:`gonuts.server.review`)."""

    async def start(self) -> None:
        await super().start()
        await self.chat.start()

    async def close(self) -> None:
        await self.matcher.close()
        await self.chat.close()
        await super().close()

    def rate(self, table_id: str, game: Game) -> None:
        rate_finished(self.store, table_id, game)

    # -- a deleted account (accounts' ``on_delete``) ---------------------------------------------

    async def forget_account(self, account_id: int) -> None:
        """Unlink a deleted account from play's seats: "Deleted player" in its place, in
        finished games' records too. Its tables held here catch up; a game still running is
        rebuilt under the new names (the same deck and moves), so its players see the neutral
        name at once; other processes hear the seats change through the relay, and their copy
        of a running game keeps the old name until it ends (then :meth:`scrub`)."""
        sat_at = anonymise_account(self.store, account_id, DELETED_PLAYER)
        self.reviews.store.forget(sat_at)  # a review names the players
        self.store.rename_speakers(sat_at, DELETED_PLAYER)  # so does a chat line
        self.store.unqueue_account(account_id)  # and a place in the "Play now" queue
        for table_id in sat_at:
            table = self.tables.get(table_id)
            if table is None:
                continue
            async with table.lock:
                self.catch_up(table)
                running = table.game is not None and table.status == "playing"
                if running:
                    game = table.new_game()
                    actions = self.store.actions_since(table.id, 0)
                    for a in actions:
                        apply_recorded(game, a.seq, a.seat, a.notation)
                    table.advance(game, len(actions))
            await self.broadcast_table(table)
            if running:
                await self.broadcast_state(table)

    def scrub(self, table_id: str, game: Game) -> None:
        """A game that ends after a seated account was deleted was still playing under the old
        name (in this process's memory or another's): its finished game takes "Deleted player"
        from the seats too. Two short queries per finished game; a failure is logged."""
        try:
            scrub_finished(self.store, table_id, DELETED_PLAYER)
        except Exception:
            log.exception("scrubbing table %s failed", table_id)

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
