"""The host's waiting room (issue 26, item 1): before the game starts, the table's creator may
make a seat a bot (of a level) or a free seat again, remove a seated guest, start at once with
bots in the empty seats, or cancel the table.

The host is the creator's seat (``gn_rooms.host_seat``), proved by that seat's token; anyone
else is refused with ``not_host``, and every step on a table whose game has started with
``already_started``. Each step is taken under the table's lock, written to the database first
(:class:`~gonuts.server.lobby.store.RoomStore`), then made live and told to everyone in the
room: a new table summary; a removed guest's sockets get ``removed`` and are closed (4403);
a cancelled table's sockets get ``cancelled`` and are closed (4404). ``notices`` (the chat's,
wired in :mod:`gonuts.server.service`) say in the room's chat what the host did.

Other processes on the database hear of each step through ``announcers`` (the wiring's
``NOTIFY``) and :meth:`WaitingRoom.heard`: they catch the table up, seat kinds too (play's own
catch-up copies names and tokens, not kinds), and tell their own sockets.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from gonuts.server.kernel import i18n
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.lobby.store import RoomStore
from gonuts.server.play.protocol import BOT_LEVELS, LiveTable
from gonuts.server.play.service import Service as Play

E = ErrorCode
CLOSE_REMOVED: Final = 4403
"""The close code of a removed guest's socket (the browser client does not reconnect)."""
CLOSE_CANCELLED: Final = 4404
"""The close code of a cancelled table's sockets (the table is gone)."""
DEFAULT_LEVEL: Final = "medium"
"""The level of the bots that fill the empty seats when the host starts early."""

Notice = Callable[[LiveTable, str, dict[str, Any]], Awaitable[None]]
"""(table, notice key, its parameters): said in the table's chat, in each reader's language."""


class WaitingRoom:
    """The host's steps on the open tables of one play service."""

    def __init__(self, play: Play, store: RoomStore) -> None:
        self.play = play
        self.store = store
        self.notices: list[Notice] = []
        self.announcers: list[Callable[[str, str | None, dict[str, Any]], None]] = []
        """Called with a table's id and the step's notice (key, parameters) after each step
        (other processes hear it: :meth:`heard`)."""

    async def host(self, table_id: str, token: str | None) -> tuple[LiveTable, int]:
        """The table and the host's seat if ``token`` is the host's; ``not_host`` (403) else."""
        table = await self.play.get(table_id)
        host, _ = self.store.room(table.id)
        seat = self.play.held_seat(table, token)
        if host is None or seat != host:
            raise ServiceError(E.NOT_HOST, None, 403)
        return table, host

    def sync(self, table: LiveTable) -> bool:
        """Bring the table up to the database, seat kinds and levels too (the caller holds its
        lock): another process's host may have changed them. False if the table is gone."""
        self.play.relay.refresh(table)
        kinds = self.store.seat_kinds(table.id)
        if kinds is None:
            return False
        for s, (kind, level) in zip(table.seats, kinds, strict=False):
            if (s.kind, s.level) != (kind, level):
                s.kind, s.level = kind, level
                table.bots.pop(s.seat, None)
        self.play.make_bots(table)
        return True

    async def heard(self, table_id: str, key: str | None, params: dict[str, Any]) -> None:
        """Another process's host changed this table: catch up and tell this process's
        sockets (a removed guest's and a cancelled table's are closed; the notice ``key``)."""
        table = self.play.tables.get(table_id)
        if table is None:
            return
        async with table.lock:
            there = self.sync(table)
            if not there:
                table.status = "finished"
        if not there:
            await self._close_all(table)
            return
        for conn in list(table.conns):
            s = table.seats[conn.seat] if conn.seat is not None else None
            if s is not None and (s.kind == "bot" or s.token_hash is None):
                await conn.send({"type": "removed", "table_id": table.id, "seat": s.seat})
                await conn.close(CLOSE_REMOVED, "removed by the host")
        await self.play.broadcast_table(table)
        if key is not None:
            for notice in self.notices:
                await notice(table, key, params)

    async def set_seat(  # noqa: PLR0917 - the route's parts
        self, table_id: str, token: str | None, seat: int, kind: str, level: str | None, lang: str
    ) -> LiveTable:
        """Seat ``seat`` becomes a bot of ``level`` or a free human seat (a guest there loses
        it)."""
        table, host = await self.host(table_id, token)
        if kind == "bot" and level not in BOT_LEVELS:
            raise ServiceError(E.MALFORMED, "a bot seat needs a level", 422)
        async with table.lock:
            self.sync(table)
            self._check(table, host, seat)
            before = table.seats[seat]
            removed = before.name if before.kind == "human" and before.taken else None
            name = i18n.bot_name(seat, level or DEFAULT_LEVEL, lang) if kind == "bot" else None
            self._write(table, seat, kind, level if kind == "bot" else None, name)
        if removed is not None:
            await self._evict(table, seat, removed)
        await self.play.broadcast_table(table)
        await self._notice(table, "bot" if kind == "bot" else "opened", seat=seat + 1, name=name)
        await self.play.start_if_full(table)
        return table

    async def remove(self, table_id: str, token: str | None, seat: int) -> LiveTable:
        """The guest at ``seat`` leaves it (their sockets are closed); the seat is free again."""
        table, host = await self.host(table_id, token)
        async with table.lock:
            self.sync(table)
            self._check(table, host, seat)
            s = table.seats[seat]
            if s.kind != "human" or not s.taken:
                raise ServiceError(E.MALFORMED, "nobody sits there", 409)
            removed = s.name
            self._write(table, seat, "human", None, None)
        await self._evict(table, seat, removed)
        await self.play.broadcast_table(table)
        await self._notice(table, "removed", name=removed)
        return table

    async def start_now(
        self, table_id: str, token: str | None, level: str | None, lang: str
    ) -> LiveTable:
        """Bots (``level``, the default :data:`DEFAULT_LEVEL`) in every empty seat; the game
        starts."""
        table, _ = await self.host(table_id, token)
        level = level or DEFAULT_LEVEL
        if level not in BOT_LEVELS:
            raise ServiceError(E.MALFORMED, f"unknown level {level!r}", 422)
        async with table.lock:
            self.sync(table)
            if table.status != "open":
                raise ServiceError(E.ALREADY_STARTED)
            for s in table.seats:
                if not s.taken:
                    self._write(table, s.seat, "bot", level, i18n.bot_name(s.seat, level, lang))
        await self._notice(table, "started")
        await self.play.start_if_full(table)
        return table

    async def cancel(self, table_id: str, token: str | None) -> None:
        """The table is deleted; everyone in its room is told and their sockets closed."""
        table, _ = await self.host(table_id, token)
        async with table.lock:
            self.sync(table)
            if table.status != "open" or not self.store.cancel(table.id):
                raise ServiceError(E.ALREADY_STARTED)
            # gone from the database; play forgets it like a finished table nobody watches
            table.status = "finished"
        self._announce(table.id, None, {})
        await self._close_all(table)

    async def _close_all(self, table: LiveTable) -> None:
        for conn in list(table.conns):
            await conn.send({"type": "cancelled", "table_id": table.id})
            await conn.close(CLOSE_CANCELLED, "the host cancelled the table")

    # -- helpers ----------------------------------------------------------------------------------

    @staticmethod
    def _check(table: LiveTable, host: int, seat: int) -> None:
        if table.status != "open":
            raise ServiceError(E.ALREADY_STARTED)
        if not 0 <= seat < len(table.seats):
            raise ServiceError(E.MALFORMED, f"no seat {seat}", 422)
        if seat == host:
            raise ServiceError(E.MALFORMED, "the host keeps their own seat", 422)

    def _write(
        self, table: LiveTable, seat: int, kind: str, level: str | None, name: str | None
    ) -> None:
        """Store the seat's new kind, then make it live (the caller holds the lock)."""
        if not self.store.set_seat(table.id, seat, kind=kind, level=level, name=name):
            raise ServiceError(E.ALREADY_STARTED)
        s = table.seats[seat]
        s.kind, s.level, s.name, s.token_hash = kind, level, name, None
        s.hints = s.replaced = False
        table.bots.pop(seat, None)
        self.play.make_bots(table)

    async def _evict(self, table: LiveTable, seat: int, name: str | None) -> None:
        for conn in [c for c in table.conns if c.seat == seat]:
            await conn.send({"type": "removed", "table_id": table.id, "seat": seat})
            await conn.close(CLOSE_REMOVED, "removed by the host")

    def _announce(self, table_id: str, key: str | None, params: dict[str, Any]) -> None:
        for announce in self.announcers:
            announce(table_id, key, params)

    async def _notice(self, table: LiveTable, key: str, **params: Any) -> None:
        self._announce(table.id, key, params)  # (every step but cancelling ends here)
        for notice in self.notices:
            await notice(table, key, params)
