"""The lobby's routes: list, create and join tables, the tutorial's table, play again, and
the host's waiting room (a seat's kind, removing a guest, starting now, cancelling).

Every new table counts against its creator's open tables (:class:`TableQuota`, 429 beyond).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request

from gonuts.server.accounts.protocol import CurrentAccount
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.limits import Limits, TableQuota
from gonuts.server.lobby.messages import (
    Cancelled,
    CreateTable,
    CreateTutorial,
    JoinTable,
    Room,
    Seated,
    SetSeat,
    StartNow,
    TableList,
)
from gonuts.server.lobby.service import Lobby
from gonuts.server.lobby.tutorial import tutorial_table
from gonuts.server.play.protocol import TableSummary, default_clock, table_summary
from gonuts.server.transport.middleware import bearer, client_key, request_lang
from gonuts.server.transport.routes import AuthHeader, api_router

E = ErrorCode
SeatNo = Annotated[int, Path(ge=0, le=5)]


def lobby_router(lobby: Lobby, lim: Limits) -> APIRouter:
    """``/api/tables`` (list, create, one table, join, again) and ``/api/tutorial``."""
    svc = lobby.play
    quota = TableQuota(lim.max_open_tables)
    api = api_router()

    @api.get("/tables", response_model=TableList)
    async def list_tables(
        status: Annotated[Literal["open", "playing", "finished"] | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=200)] = 100,
        offset: Annotated[int, Query(ge=0, le=1 << 31)] = 0,
    ) -> dict[str, Any]:
        """Newest first, ``limit`` at a time: every table can be reached with ``offset``."""
        return {"tables": await lobby.list_tables(status, limit, offset)}

    def unfinished(table_id: str) -> bool:
        table = svc.tables.get(table_id)
        return table is not None and table.status != "finished"

    @api.post("/tables", status_code=201, response_model=Seated)
    async def create_table(
        body: CreateTable, request: Request, account: CurrentAccount
    ) -> dict[str, Any]:
        """A new table; a signed-in creator sits under their account's name (rated games)."""
        seats = [(s.kind, s.level) for s in body.seats]
        kinds = [s.kind for s in body.seats]
        key = client_key(request)
        if not quota.reserve(key, unfinished):
            raise ServiceError(E.TOO_MANY_TABLES, f"at most {lim.max_open_tables}", 429)
        made: str | None = None
        try:
            table, seat, token = await lobby.create_table(
                seats,
                account.name if account is not None else body.name,
                request_lang(request),
                variants=body.variants,
                account=account.id if account is not None else None,
                clock=body.clock if "clock" in body.model_fields_set else default_clock(kinds),
                chat=body.chat,
            )
            made = table.id
        finally:
            quota.settle(key, made)
        return {"table": table_summary(table), "seat": seat, "token": token}

    @api.post("/tutorial", status_code=201, response_model=Seated)
    async def create_tutorial(
        body: CreateTutorial, request: Request, account: CurrentAccount
    ) -> dict[str, Any]:
        """The first-game guide: a 2-player table against the scripted coach, started at once
        (it counts as one of the caller's open tables)."""
        key = client_key(request)
        if not quota.reserve(key, unfinished):
            raise ServiceError(E.TOO_MANY_TABLES, f"at most {lim.max_open_tables}", 429)
        made: str | None = None
        try:
            stored, seat, token = tutorial_table(body.name, request_lang(request))
            table = await lobby.open_table(stored, account.id if account is not None else None)
            made = table.id
        finally:
            quota.settle(key, made)
        return {"table": table_summary(table), "seat": seat, "token": token}

    @api.get("/tables/{table_id}", response_model=TableSummary)
    async def get_table(table_id: str) -> dict[str, Any]:
        return table_summary(await svc.get(table_id))

    @api.post("/tables/{table_id}/join", response_model=Seated)
    async def join(
        table_id: str, body: JoinTable, account: CurrentAccount, authorization: AuthHeader = None
    ) -> dict[str, Any]:
        """Take a free seat (signed in: under the account's name); with the token of a seat
        already held here, that seat."""
        table = await svc.get(table_id)
        token = bearer(authorization)
        seat = svc.held_seat(table, token)
        if seat is None or token is None:
            name = account.name if account is not None else body.name
            seat, token = await lobby.join(
                table_id, name, account=account.id if account is not None else None
            )
        return {"table": table_summary(await svc.get(table_id)), "seat": seat, "token": token}

    @api.post("/tables/{table_id}/again", response_model=Seated)
    async def again(
        table_id: str, request: Request, authorization: AuthHeader = None
    ) -> dict[str, Any]:
        """Play again. The new table counts against the open tables of whoever asks first, as
        if made with ``POST /api/tables``; the others (or a second click) only take a seat."""
        key = client_key(request)
        making = (await svc.get(table_id)).next_table is None
        if making and not quota.reserve(key, unfinished):
            raise ServiceError(E.TOO_MANY_TABLES, f"at most {lim.max_open_tables}", 429)
        new_id: str | None = None
        try:
            new_id, seat, token = await lobby.again(
                table_id, bearer(authorization), request_lang(request)
            )
        finally:
            if making:
                quota.settle(key, new_id)
        return {"table": table_summary(await svc.get(new_id)), "seat": seat, "token": token}

    # -- the host's waiting room (the creator's seat token) ------------------------------------

    room = lobby.room

    @api.get("/tables/{table_id}/room", response_model=Room)
    async def room_info(table_id: str) -> dict[str, Any]:
        """Who hosts the table (a seat) and whether its chat is on."""
        table = await svc.get(table_id)
        host, chat = lobby.rooms.room(table.id)
        return {"host_seat": host, "chat": chat}

    @api.post("/tables/{table_id}/seats/{seat}", response_model=TableSummary)
    async def set_seat(
        table_id: str,
        seat: SeatNo,
        body: SetSeat,
        request: Request,
        authorization: AuthHeader = None,
    ) -> dict[str, Any]:
        """The host makes a seat a bot of a level or a free seat for a person (a guest sitting
        there loses it); the table starts if every seat is taken then."""
        table = await room.set_seat(
            table_id, bearer(authorization), seat, body.kind, body.level, request_lang(request)
        )
        return table_summary(table)

    @api.post("/tables/{table_id}/seats/{seat}/remove", response_model=TableSummary)
    async def remove_guest(
        table_id: str, seat: SeatNo, authorization: AuthHeader = None
    ) -> dict[str, Any]:
        """The host removes the guest sitting at ``seat`` (their sockets are closed)."""
        return table_summary(await room.remove(table_id, bearer(authorization), seat))

    @api.post("/tables/{table_id}/start", response_model=TableSummary)
    async def start_now(
        table_id: str, body: StartNow, request: Request, authorization: AuthHeader = None
    ) -> dict[str, Any]:
        """The host starts the game now: bots in the empty seats."""
        table = await room.start_now(
            table_id, bearer(authorization), body.level, request_lang(request)
        )
        return table_summary(table)

    @api.post("/tables/{table_id}/cancel", response_model=Cancelled)
    async def cancel(table_id: str, authorization: AuthHeader = None) -> dict[str, Any]:
        """The host cancels the table before its game starts: it is deleted."""
        await room.cancel(table_id, bearer(authorization))
        return {"cancelled": True}

    return api
