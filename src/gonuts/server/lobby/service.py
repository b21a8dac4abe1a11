"""The lobby: new tables (and the tutorial's), taking a seat, play again, the tables' listing.

Each step that changes a live table goes through play's public service (its lock, the relay's
refresh, :meth:`~gonuts.server.play.service.Service.start_if_full`, the broadcasts); the SQL is
play's store (tables and seats are play's). The host's steps in the waiting room are
:class:`~gonuts.server.lobby.room.WaitingRoom`'s (:attr:`Lobby.room`); a table made here
records its host and chat setting (``gn_rooms``, :class:`~gonuts.server.lobby.store.RoomStore`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from gonuts.server.kernel.db import hash_token
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.lobby.room import WaitingRoom
from gonuts.server.lobby.rules import check_name, derived_token, new_table, new_token
from gonuts.server.lobby.store import RoomStore
from gonuts.server.lobby.tutorial import again_level
from gonuts.server.play.protocol import LiveTable, StoredTable, table_summary, with_account
from gonuts.server.play.service import Service as Play

E = ErrorCode


class Lobby:
    """Creating and joining the tables of one :class:`~gonuts.server.play.service.Service`."""

    def __init__(
        self,
        play: Play,
        rooms: RoomStore,
        name_owner: Callable[[str], int | None] | None = None,
    ) -> None:
        self.play = play
        self.store = play.store
        self.rooms = rooms
        self.room = WaitingRoom(play, rooms)
        """The host's steps before the game starts."""
        self.name_owner = name_owner
        """The account that owns a name (folded as accounts fold names), or None: a guest may
        not sit under an account's name (the wiring passes accounts' lookup)."""

    def check_owner(self, name: str, account: int | None) -> None:
        """``name_taken`` (409) if an account other than ``account`` owns ``name``."""
        if self.name_owner is None:
            return
        owner = self.name_owner(name)
        if owner is not None and owner != account:
            raise ServiceError(E.NAME_TAKEN, None, 409)  # (no English detail: the text alone)

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
        """A new table; ``variants``: its house rules (a 422 for an unknown or repeated one);
        ``account``: the signed-in creator's, linked to their seat (rated games); the creator's
        seat is the host's (the waiting room); ``chat``: whether its players may chat."""
        stored, my_seat, token = new_table(seats, name, lang, variants)
        if name is not None:
            self.check_owner(name, account)
        stored = dataclasses.replace(stored, clock=clock)  # (``clock``: the turn clock, s)
        if account is not None and my_seat is not None:
            stored = with_account(stored, my_seat, account)
        self.store.create(stored)
        self.rooms.create_room(stored.id, my_seat, chat)
        table = await self.play.get(stored.id)
        await self.play.start_if_full(table)
        return table, my_seat, token

    async def open_table(self, stored: StoredTable, account: int | None = None) -> LiveTable:
        """Store a table made elsewhere (the tutorial's) and make it live; started if full.
        Its players' names are checked against accounts' (``account``: the caller's)."""
        for seat in stored.seats:
            if seat.kind == "human" and seat.name is not None:
                self.check_owner(seat.name, account)
        self.store.create(stored)
        table = await self.play.get(stored.id)
        await self.play.start_if_full(table)
        return table

    async def join(
        self,
        table_id: str,
        name: str,
        seat: int | None = None,
        *,
        token: str | None = None,
        account: int | None = None,
    ) -> tuple[int, str]:
        """Take a free human seat (``seat`` if given and free, else the first).

        ``token`` (made by the server, e.g. :func:`~gonuts.server.lobby.rules.derived_token`): the
        seat's token; if it already holds a seat here, that seat is the answer (one token, one
        seat per table). ``account``: the signed-in player's, linked to the seat; an account
        holds one seat per table (rated games are played against others).
        """
        name = check_name(name)
        if token is None:  # (a server-made token: "play again" keeps the name it had)
            self.check_owner(name, account)
        table = await self.play.get(table_id)
        async with table.lock:
            self.play.relay.refresh(table)  # another process may have seated someone
            held = self.play.held_seat(table, token)
            if held is not None and token is not None:
                return held, token
            if table.status != "open":
                raise ServiceError(E.TABLE_FULL, "the game has already started")
            if account is not None and self.store.account_seat(table.id, account) is not None:
                raise ServiceError(E.TABLE_FULL, "your account already has a seat here")
            free = [s for s in table.seats if s.kind == "human" and not s.taken]
            if not free:
                raise ServiceError(E.TABLE_FULL)
            chosen = next((s for s in free if s.seat == seat), free[0])
            token = token or new_token()
            if not self.store.take_seat(table.id, chosen.seat, name, hash_token(token), account):
                # taken just now through another process (perhaps for this very token)
                self.play.catch_up(table)
                held = self.play.held_seat(table, token)
                if held is not None:
                    return held, token
                raise ServiceError(E.TABLE_FULL, "the seat was just taken; try again")
            chosen.name, chosen.token_hash = name, hash_token(token)
        await self.play.broadcast_table(table)
        await self.play.start_if_full(table)
        return chosen.seat, token

    async def again(self, table_id: str, token: str | None, lang: str) -> tuple[str, int, str]:
        """Play again: a new table with the same seats; the caller keeps their seat."""
        table = await self.play.get(table_id)
        seat = self.play.seat_for_token(table, token)
        if table.status != "finished":
            async with table.lock:
                # the last move may have been made on another process
                self.play.relay.refresh(table)
        if table.status != "finished":
            raise ServiceError(E.NOT_FINISHED)
        me = table.seats[seat]
        created = False
        async with table.lock:
            if table.next_table is None:
                # after the first-game guide, a real game: the coach's seat is an easy bot
                seats = [(s.kind, again_level(s.level)) for s in table.seats]
                new, _, _ = new_table(seats, None, lang, table.variants)
                new = dataclasses.replace(new, clock=table.clock)
                table.next_table, created = self.store.create_next(table.id, new)
        next_id = table.next_table
        assert next_id is not None
        if created:
            # the new table keeps the old one's chat setting (and has no host: nobody made it)
            self.rooms.create_room(next_id, None, self.rooms.room(table.id)[1])
            await self.play.start_if_full(await self.play.get(next_id))
            message = {"type": "next_table", "table_id": next_id, "invite_url": f"/t/{next_id}"}
            for conn in list(table.conns):
                await conn.send(message)
        assert token is not None  # (seat_for_token accepted it)
        new_seat, new_token = await self.join(
            next_id,
            me.name or f"Player {seat + 1}",
            seat,
            token=derived_token(token, next_id),
            account=self.store.seat_account(table.id, seat),
        )
        return next_id, new_seat, new_token

    async def list_tables(
        self, status: str | None, limit: int = 100, offset: int = 0
    ) -> list[dict[str, Any]]:
        wanted = (status,) if status else ("open", "playing")
        ids = self.store.table_ids(wanted, limit, offset)
        return [table_summary(await self.play.get(i)) for i in ids]
