"""The accounts API: sign up, sign in, sign out, who am I, the owner's controls (a new
password, signing out everywhere, deleting the account, exporting its data), the leaderboard,
player profiles.

``accounts_router()`` is included by :func:`gonuts.server.app.create_app`; ``app.state``
carries the :class:`~gonuts.server.accounts.service.Accounts` (``accounts``) and the sign-in rate
limits (``sign_in_limits``: :class:`SignInLimits`), which a test may replace. The session token
travels only in the :data:`~gonuts.server.accounts.service.COOKIE` cookie: HttpOnly, SameSite=Lax,
Secure when the request came over HTTPS (as uvicorn saw it: with ``--forwarded-allow-ips``,
the scheme a trusted proxy reports). Cross-site writes are refused by the app's ``Origin``
check like every other POST. A successful sign-in also leaves a device cookie
(:mod:`gonuts.server.accounts.devices`): that browser's later attempts count on its own bucket.
docs/server.md, "Accounts and ratings"; docs/protocol.md, "Accounts".
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import StreamingResponse

from gonuts.server.accounts.devices import DEVICE_COOKIE, DEVICE_DAYS, SECRET_NAME, DeviceCookies
from gonuts.server.accounts.messages import (
    Credentials,
    Leaderboard,
    Me,
    NewPassword,
    Password,
    Profile,
    SessionsEnded,
)
from gonuts.server.accounts.ratings import display
from gonuts.server.accounts.service import COOKIE, Accounts, account_name, lookup_key, name_key
from gonuts.server.accounts.store import AccountStore, StoredAccount
from gonuts.server.games.service import Games
from gonuts.server.kernel.db import utcnow
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.limits import BucketMap
from gonuts.server.transport.wire import ErrorBody

E = ErrorCode
HISTORY: Final = 200
"""Rating changes a profile shows (the chart)."""
RECENT_GAMES: Final = 20
"""Finished games a profile lists."""
ALL_HISTORY: Final = 1 << 20
"""Rating changes an export reads (every one: one per rated game)."""
HASHING_AT_ONCE: Final = 4
"""argon2 hashes computed at once (64 MiB each); more requests wait their turn."""


@dataclass
class SignInLimits:
    """Sign-in and sign-up attempts (token buckets from :mod:`gonuts.server.kernel.limits`):
    10 at once, then one every 6 s per client address and one every 12 s per account name; an
    attempt from a browser with the account's device cookie counts only on that device's own
    bucket (10 at once, then one every 12 s), never on the address's or the name's, so others'
    guessing cannot lock the owner out. Only names that have an account get a bucket: made-up
    names cannot push a real one's bucket out of the map (:func:`guesses_per_hour`)."""

    per_address: BucketMap = field(default_factory=lambda: BucketMap(1 / 6, 10))
    per_name: BucketMap = field(default_factory=lambda: BucketMap(1 / 12, 10))
    per_device: BucketMap = field(default_factory=lambda: BucketMap(1 / 12, 10))

    def check(
        self,
        address: str,
        name_key: str | None,
        *,
        device: str | None = None,
        exists: Callable[[str], bool] | None = None,
    ) -> None:
        """``rate_limited`` (429) if this device (when it has a valid cookie for the name), or
        else this address or this name (if ``exists`` says it has an account), has tried too
        often."""
        if device is not None:
            self.take(self.per_device, device)
            return
        self.take(self.per_address, address)
        if name_key is not None and (exists is None or exists(name_key)):
            self.take(self.per_name, name_key)

    @staticmethod
    def take(buckets: BucketMap, key: str) -> None:
        bucket = buckets.take(key)
        if bucket is not None:
            raise ServiceError(E.RATE_LIMITED, f"retry in {bucket.wait_time():.0f} s", 429)


def guesses_per_hour(limits: SignInLimits, hours: float = 1.0) -> float:
    """The most password checks one account name can receive from browsers without its device
    cookie in ``hours`` (one server process): the name's burst, then its rate. With the
    defaults, 10 + 3600 / 12 = 310 in the first hour and 300 an hour after that."""
    return limits.per_name.burst + limits.per_name.rate * 3600 * hours


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
        (401, "bad_credentials, not_signed_in"),
        (404, "unknown_player"),
        (409, "name_taken"),
        (422, "malformed"),
        (429, "rate_limited"),
    )
}


def accounts_router(
    store: AccountStore,
    games: Games | None = None,
    on_delete: Callable[[int], Awaitable[object]] | None = None,
) -> tuple[APIRouter, Accounts, SignInLimits]:
    """The ``/api/account``, ``/api/leaderboard`` and ``/api/players`` routes; the app keeps
    the returned accounts and limits in ``app.state`` (``accounts``, ``sign_in_limits``).
    ``games``: the finished games' records, for the export; ``on_delete``: the wiring's
    unlinking of a deleted account from play's seats (awaited before the account goes)."""
    router = APIRouter(prefix="/api", responses=RESPONSES, tags=["accounts"])
    hashing = asyncio.Semaphore(HASHING_AT_ONCE)
    exports = BucketMap(1 / 60, 3)
    devices: list[DeviceCookies] = []

    def device_cookies() -> DeviceCookies:
        if not devices:  # (read once: the database is migrated when the app starts)
            devices.append(DeviceCookies(store.secret(SECRET_NAME)))
        return devices[0]

    def secure(request: Request) -> bool:
        return request.url.scheme == "https"

    def set_cookie(request: Request, response: Response, token: str, accounts: Accounts) -> None:
        response.set_cookie(
            COOKIE,
            token,
            max_age=accounts.session_seconds,
            path="/",
            httponly=True,
            samesite="lax",
            secure=secure(request),
        )

    def drop_cookie(request: Request, response: Response) -> None:
        response.delete_cookie(
            COOKIE, path="/", httponly=True, samesite="lax", secure=secure(request)
        )

    def set_device(request: Request, response: Response, key: str, *, keep: bool) -> None:
        """Remember (``keep``) or forget this browser for the account of ``key``."""
        cookies, old = device_cookies(), request.cookies.get(DEVICE_COOKIE)
        value = cookies.remember(old, key) if keep else cookies.forget(old, key)
        if value:
            response.set_cookie(
                DEVICE_COOKIE,
                value,
                max_age=DEVICE_DAYS * 86400,
                path="/api/account",
                httponly=True,
                samesite="strict",
                secure=secure(request),
            )
        else:
            response.delete_cookie(
                DEVICE_COOKIE, path="/api/account", httponly=True, samesite="strict"
            )

    def limited(request: Request, key: str | None) -> None:
        """The sign-in limits for an attempt at ``key`` (a folded name, None for junk)."""
        device = (
            device_cookies().device(request.cookies.get(DEVICE_COOKIE), key)
            if key is not None
            else None
        )
        address = request.client.host if request.client is not None else "unknown"
        limits: SignInLimits = request.app.state.sign_in_limits
        limits.check(address, key, device=device, exists=lambda k: store.credentials(k) is not None)

    def signed_in(account: StoredAccount | None) -> StoredAccount:
        if account is None:
            raise ServiceError(E.NOT_SIGNED_IN, None, 401)
        return account

    async def check_password(request: Request, account: StoredAccount, password: str) -> None:
        """The account's password, limited like a sign-in (a stolen session is not a free
        guessing machine)."""
        limited(request, name_key(account.name))
        async with hashing:
            await asyncio.to_thread(accounts_of(request).check_password_of, account, password)

    @router.post("/account/signup", status_code=201, response_model=Me)
    async def signup(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        """Make an account and sign in: the session cookie (and the device cookie) is set."""
        try:
            key: str | None = account_name(body.name)[1]
        except ServiceError:
            key = None  # refused below anyway, without a bucket per junk name
        limited(request, key)
        accounts = accounts_of(request)
        async with hashing:
            account, token = await asyncio.to_thread(accounts.sign_up, body.name, body.password)
        set_cookie(request, response, token, accounts)
        set_device(request, response, name_key(account.name), keep=True)
        return {"account": account_info(account)}

    @router.post("/account/signin", response_model=Me)
    async def signin(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        """Sign in: the session cookie and the device cookie are set. An unknown name and a
        wrong password get the same ``bad_credentials``."""
        limited(request, lookup_key(body.name))
        accounts = accounts_of(request)
        async with hashing:
            account, token = await asyncio.to_thread(accounts.sign_in, body.name, body.password)
        set_cookie(request, response, token, accounts)
        set_device(request, response, name_key(account.name), keep=True)
        return {"account": account_info(account)}

    @router.post("/account/signout", response_model=Me)
    async def signout(request: Request, response: Response) -> dict[str, Any]:
        """End this browser's session (nothing to do for a guest)."""
        token = request.cookies.get(COOKIE)
        if token:
            accounts_of(request).sign_out(token)
        drop_cookie(request, response)
        return {"account": None}

    @router.get("/account", response_model=Me)
    async def me(account: CurrentAccount) -> dict[str, Any]:
        return {"account": account_info(account) if account is not None else None}

    @router.post("/account/password", response_model=SessionsEnded)
    async def change_password(
        body: NewPassword, request: Request, response: Response, account: CurrentAccount
    ) -> dict[str, Any]:
        """A new password (the current one required); every other session of the account
        ends, this one stays."""
        me = signed_in(account)
        limited(request, name_key(me.name))
        accounts = accounts_of(request)
        token = request.cookies.get(COOKIE, "")
        async with hashing:
            ended = await asyncio.to_thread(
                accounts.change_password, me, body.password, body.new_password, token
            )
        set_device(request, response, name_key(me.name), keep=True)
        return {"ended": ended}

    @router.post("/account/signout-everywhere", response_model=SessionsEnded)
    async def signout_everywhere(
        request: Request, response: Response, account: CurrentAccount
    ) -> dict[str, Any]:
        """End every session of the account, this browser's too."""
        ended = accounts_of(request).sign_out_everywhere(signed_in(account))
        drop_cookie(request, response)
        return {"ended": ended}

    @router.post("/account/delete", response_model=Me)
    async def delete_account(
        body: Password, request: Request, response: Response, account: CurrentAccount
    ) -> dict[str, Any]:
        """Delete the account (its password required): its sessions, rating history and
        profile go and its name is free; its finished games keep their moves under
        "Deleted player"."""
        me = signed_in(account)
        await check_password(request, me, body.password)
        accounts = accounts_of(request)
        accounts.sign_out_everywhere(me)
        if on_delete is not None:
            await on_delete(me.id)
        accounts.delete(me)
        drop_cookie(request, response)
        set_device(request, response, name_key(me.name), keep=False)
        return {"account": None}

    @router.get(
        "/account/export",
        response_class=StreamingResponse,
        responses={200: {"content": {"application/json": {}}, "description": EXPORT_FORMAT}},
    )
    async def export(account: CurrentAccount) -> StreamingResponse:
        """The account's data as one JSON download: the profile, the whole rating history and
        every finished game's record (``gonuts-record/1``, as ``/api/games/{id}/record``)."""
        me = signed_in(account)
        SignInLimits.take(exports, str(me.id))
        return StreamingResponse(
            export_chunks(store, games, me),
            media_type="application/json",
            headers={
                "Content-Disposition": f'attachment; filename="gonuts-account-{me.id}.json"',
                "Cache-Control": "no-store",
            },
        )

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
        key = lookup_key(name)
        account = store.account_by_key(key) if key is not None else None
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


EXPORT_FORMAT: Final = "gonuts-account-export/1"


def export_chunks(store: AccountStore, games: Games | None, account: StoredAccount) -> Any:
    """The export's JSON text, a piece at a time (the games read a page at a time: any number
    in bounded memory). Run by Starlette in a thread (a plain iterator)."""
    head = {
        "format": EXPORT_FORMAT,
        "exported_at": iso(utcnow()),
        "profile": {
            **account_info(account),
            "member_since": iso(account.created_at),
            "mu": account.mu,
            "sigma": account.sigma,
        },
        "ratings": [
            {
                "game_id": h.table_id,
                "at": iso(h.rated_at),
                "rank": h.rank,
                "rating": display(h.mu, h.sigma),
                "change": display(h.mu, h.sigma) - display(h.mu_before, h.sigma_before),
                "mu_before": h.mu_before,
                "sigma_before": h.sigma_before,
                "mu": h.mu,
                "sigma": h.sigma,
            }
            for h in store.rating_history(account.id, ALL_HISTORY)
        ],
        "notifications": store.notify_export(account.id),
    }
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "games": ['
    first = True
    for game_id, seat in store.finished_game_ids(account.id):
        try:
            record = games.record_text(game_id) if games is not None else None
        except ServiceError:
            record = None  # (gone since it was listed)
        if record is None:
            continue
        game = {"id": game_id, "seat": seat, "record": json.loads(record)}
        yield ("" if first else ", ") + json.dumps(game, ensure_ascii=False)
        first = False
    yield "]}"


__all__ = [
    "CurrentAccount",
    "SignInLimits",
    "accounts_router",
    "current_account",
    "guesses_per_hour",
]
