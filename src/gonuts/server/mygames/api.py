"""My games' routes: ``GET /api/my-games`` (a signed-in account's unfinished tables) and
``POST /api/my-games`` (those and a browser's saved seats), limited per client address."""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool

from gonuts.server.accounts.protocol import CurrentAccount
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.limits import BucketMap
from gonuts.server.mygames.messages import MyGames as MyGamesBody
from gonuts.server.mygames.messages import SavedSeats
from gonuts.server.mygames.service import MyGames
from gonuts.server.transport.middleware import client_key
from gonuts.server.transport.routes import api_router

E = ErrorCode

RATE: Final = 2.0
"""Listings per second per client address, on average: the badge asks once a minute, so this
is 120 players behind one address (a school's NAT); a cached listing of 100 tables costs
about 10 ms (docs/server.md, "My games")."""
BURST: Final = 30


def mygames_router(mine: MyGames, rate: float | None = RATE, burst: int = BURST) -> APIRouter:
    """``/api/my-games``; ``rate`` None: no limit of its own (the API's per-address one stays)."""
    api = api_router()
    buckets = BucketMap(rate, burst) if rate is not None else None

    def admit(request: Request) -> None:
        bucket = buckets.take(client_key(request)) if buckets is not None else None
        if bucket is not None:
            raise ServiceError(E.RATE_LIMITED, f"retry in {bucket.wait_time():.0f} s", 429)

    @api.get("/my-games", response_model=MyGamesBody, tags=["my games"])
    async def account_games(request: Request, account: CurrentAccount) -> dict[str, Any]:
        """The signed-in account's unfinished tables (a guest's: none; see ``POST``)."""
        admit(request)
        if account is None:
            return {"games": [], "waiting": 0, "stale": []}
        return await run_in_threadpool(mine.games, account.id)

    @api.post("/my-games", response_model=MyGamesBody, tags=["my games"])
    async def saved_games(
        body: SavedSeats, request: Request, account: CurrentAccount
    ) -> dict[str, Any]:
        """The account's unfinished tables (if signed in) and those of the saved seats sent."""
        admit(request)
        saved = [(s.table, s.token) for s in body.seats]
        return await run_in_threadpool(
            mine.games, account.id if account is not None else None, saved
        )

    return api
