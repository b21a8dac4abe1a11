"""The accounts API: sign up, sign in, sign out, who am I, the leaderboard, player profiles.

``accounts_router()`` is included by :func:`gonuts.server.app.create_app`; ``app.state``
carries the :class:`~gonuts.server.accounts.service.Accounts` (``accounts``) and the sign-in rate
limits (``sign_in_limits``: :class:`SignInLimits`), which a test may replace. The session token
travels only in the :data:`~gonuts.server.accounts.service.COOKIE` cookie: HttpOnly, SameSite=Lax,
Secure when the request came over HTTPS (as uvicorn saw it: with ``--forwarded-allow-ips``,
the scheme a trusted proxy reports). Cross-site writes are refused by the app's ``Origin``
check like every other POST. docs/server.md, "Accounts and ratings"; docs/protocol.md.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import Field

from gonuts.server.accounts.ratings import display
from gonuts.server.accounts.service import COOKIE, Accounts, account_name
from gonuts.server.accounts.store import AccountStore, StoredAccount
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.limits import BucketMap
from gonuts.server.transport.wire import ErrorBody, Out, Strict

E = ErrorCode
HISTORY: Final = 200
"""Rating changes a profile shows (the chart)."""
RECENT_GAMES: Final = 20
"""Finished games a profile lists."""
HASHING_AT_ONCE: Final = 4
"""argon2 hashes computed at once (64 MiB each); more requests wait their turn."""


@dataclass
class SignInLimits:
    """Sign-in and sign-up attempts, per client address and per account name (token buckets
    from :mod:`gonuts.server.kernel.limits`): 10 at once, then one every 6 s (addresses) or every
    12 s (names)."""

    per_address: BucketMap = field(default_factory=lambda: BucketMap(1 / 6, 10))
    per_name: BucketMap = field(default_factory=lambda: BucketMap(1 / 12, 10))

    def check(self, address: str, name_key: str | None) -> None:
        """``rate_limited`` (429) if this address, or this name, has tried too often."""
        for buckets, key in ((self.per_address, address), (self.per_name, name_key)):
            if key is None:
                continue
            bucket = buckets.take(key)
            if bucket is not None:
                raise ServiceError(E.RATE_LIMITED, f"retry in {bucket.wait_time():.0f} s", 429)


# -- models ---------------------------------------------------------------------------------------


class Credentials(Strict):
    name: str = Field(max_length=200)
    password: str = Field(max_length=1024)
    """8 to 256 characters (longer: ``malformed``)."""


class AccountInfo(Out):
    name: str
    rating: int
    """The displayed rating: 1000 + 40 × (mu − 3σ); 1000 for a new account."""
    games: int
    """Rated games played."""
    wins: int


class Me(Out):
    """The signed-in account, or null for a guest."""

    account: AccountInfo | None


class Leaderboard(Out):
    players: list[AccountInfo]
    """Accounts with a rated game, best first."""
    total: int
    limit: int
    offset: int


class RatingPoint(Out):
    game_id: str
    at: str
    rank: int
    rating: int
    """The displayed rating after this game."""
    change: int


class ProfileGame(Out):
    id: str
    finished_at: str
    players: list[str]
    scores: list[int]
    winners: list[int]
    seat: int
    rating_change: int | None
    """Null for an unrated game (fewer than two accounts at the table)."""
    replay_url: str


class Profile(Out):
    name: str
    rating: int
    games: int
    wins: int
    member_since: str
    history: list[RatingPoint]
    """The last 200 rating changes, oldest first."""
    recent_games: list[ProfileGame]
    """The last 20 finished games, rated or not, newest first."""


# -- helpers --------------------------------------------------------------------------------------


def iso(moment: datetime) -> str:
    return moment.isoformat() + "Z"


def account_info(account: StoredAccount) -> dict[str, Any]:
    return {
        "name": account.name,
        "rating": display(account.mu, account.sigma),
        "games": account.games,
        "wins": account.wins,
    }


def accounts_of(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


async def current_account(request: Request) -> StoredAccount | None:
    """The signed-in account of the request's session cookie, or None (a guest)."""
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    return accounts_of(request).signed_in(token)


CurrentAccount = Annotated[StoredAccount | None, Depends(current_account)]

RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    status: {"model": ErrorBody, "description": what}
    for status, what in (
        (401, "bad_credentials"),
        (404, "unknown_player"),
        (409, "name_taken"),
        (422, "malformed"),
        (429, "rate_limited"),
    )
}


def accounts_router(store: AccountStore) -> tuple[APIRouter, Accounts, SignInLimits]:
    """The ``/api/account``, ``/api/leaderboard`` and ``/api/players`` routes; the app keeps
    the returned accounts and limits in ``app.state`` (``accounts``, ``sign_in_limits``)."""
    router = APIRouter(prefix="/api", responses=RESPONSES, tags=["accounts"])
    hashing = asyncio.Semaphore(HASHING_AT_ONCE)

    def set_cookie(request: Request, response: Response, token: str, accounts: Accounts) -> None:
        response.set_cookie(
            COOKIE,
            token,
            max_age=accounts.session_seconds,
            path="/",
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )

    def limited(request: Request, name: str) -> None:
        try:
            key: str | None = account_name(name)[1]
        except ServiceError:
            key = None  # refused below anyway, without a bucket per junk name
        address = request.client.host if request.client is not None else "unknown"
        limits: SignInLimits = request.app.state.sign_in_limits
        limits.check(address, key)

    @router.post("/account/signup", status_code=201, response_model=Me)
    async def signup(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        """Make an account and sign in: the session cookie is set."""
        limited(request, body.name)
        accounts = accounts_of(request)
        async with hashing:
            account, token = await asyncio.to_thread(accounts.sign_up, body.name, body.password)
        set_cookie(request, response, token, accounts)
        return {"account": account_info(account)}

    @router.post("/account/signin", response_model=Me)
    async def signin(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        """Sign in: the session cookie is set. An unknown name and a wrong password get the
        same ``bad_credentials``."""
        limited(request, body.name)
        accounts = accounts_of(request)
        async with hashing:
            account, token = await asyncio.to_thread(accounts.sign_in, body.name, body.password)
        set_cookie(request, response, token, accounts)
        return {"account": account_info(account)}

    @router.post("/account/signout", response_model=Me)
    async def signout(request: Request, response: Response) -> dict[str, Any]:
        """End this browser's session (nothing to do for a guest)."""
        token = request.cookies.get(COOKIE)
        if token:
            accounts_of(request).sign_out(token)
        response.delete_cookie(
            COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
        )
        return {"account": None}

    @router.get("/account", response_model=Me)
    async def me(account: CurrentAccount) -> dict[str, Any]:
        return {"account": account_info(account) if account is not None else None}

    @router.get("/leaderboard", response_model=Leaderboard)
    async def leaderboard(
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
        offset: Annotated[int, Query(ge=0, le=1 << 31)] = 0,
    ) -> dict[str, Any]:
        """Accounts with at least one rated game, best rating first."""
        rows, total = store.leaderboard(limit, offset)
        return {
            "players": [account_info(a) for a in rows],
            "total": total,
            "limit": limit,
            "offset": offset,
        }

    @router.get("/players/{name}", response_model=Profile)
    async def profile(name: str) -> dict[str, Any]:
        """A player's rating, rating history and recent games (with their replays)."""
        try:
            key = account_name(name)[1]
        except ServiceError:
            raise ServiceError(E.UNKNOWN_PLAYER, None, 404) from None
        account = store.account_by_key(key)
        if account is None:
            raise ServiceError(E.UNKNOWN_PLAYER, None, 404)
        history = [
            {
                "game_id": h.table_id,
                "at": iso(h.rated_at),
                "rank": h.rank,
                "rating": display(h.mu, h.sigma),
                "change": display(h.mu, h.sigma) - display(h.mu_before, h.sigma_before),
            }
            for h in store.rating_history(account.id, HISTORY)
        ]
        games = [
            {
                "id": g.id,
                "finished_at": iso(g.finished_at),
                "players": g.players,
                "scores": g.scores,
                "winners": g.winners,
                "seat": g.seat,
                "rating_change": (
                    display(*g.after) - display(*g.before)
                    if g.after is not None and g.before is not None
                    else None
                ),
                "replay_url": f"/replay/{g.id}",
            }
            for g in store.account_games(account.id, RECENT_GAMES)
        ]
        return {
            **account_info(account),
            "member_since": iso(account.created_at),
            "history": history,
            "recent_games": games,
        }

    return router, Accounts(store), SignInLimits()


__all__ = ["CurrentAccount", "SignInLimits", "accounts_router", "current_account"]
