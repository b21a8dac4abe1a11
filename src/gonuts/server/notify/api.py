"""Notifications' routes (``/api/notify/…``): the VAPID public key, a browser's push
subscription, an account's settings, the verification mail and its link. Signed-in accounts
only (the session cookie), except the key and the link; cookie writes pass the app's
``Origin`` check like every other. docs/protocol.md, "Notifications".
"""

from __future__ import annotations

import base64
import html
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import Field

from gonuts.server.accounts.protocol import CurrentAccount, StoredAccount
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.notify.service import Notifications
from gonuts.server.notify.store import NotifySettings, Subscription
from gonuts.server.notify.texts import notify_text, public_url
from gonuts.server.transport.middleware import request_lang
from gonuts.server.transport.routes import api_router
from gonuts.server.transport.wire import Out, Strict

E = ErrorCode


class PushKeys(Strict):
    p256dh: str = Field(min_length=80, max_length=100, pattern=r"^[A-Za-z0-9_-]+=*$")
    auth: str = Field(min_length=16, max_length=40, pattern=r"^[A-Za-z0-9_-]+=*$")


class PushSubscriptionIn(Strict):
    """What ``PushSubscription.toJSON()`` gives in the browser (``expirationTime`` ignored)."""

    endpoint: str = Field(min_length=12, max_length=1024, pattern=r"^https?://")
    keys: PushKeys
    expirationTime: int | None = None  # noqa: N815 (the browser's name)


class SettingsIn(Strict):
    push: bool
    email: bool
    address: str | None = Field(default=None, max_length=254)


class SettingsOut(Out):
    push: bool
    email: bool
    address: str | None
    verified: bool
    pending: bool
    """A verification link was sent and still works."""
    lang: str
    mail_available: bool
    """Whether this server sends e-mail (``GONUTS_SMTP_URL``)."""
    subscriptions: int
    """Browsers subscribed to push for this account."""


class VapidKey(Out):
    key: str | None
    """The VAPID public key (base64url), the browser's ``applicationServerKey``; null when
    this server has no push."""


class Done(Out):
    ok: bool


def check_point(value: str) -> None:
    """A ``p256dh`` must be an uncompressed P-256 point (65 bytes, starting 0x04)."""
    try:
        raw = base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4))
    except ValueError:
        raw = b""
    if len(raw) != 65 or raw[0] != 4:
        raise ServiceError(E.MALFORMED, "keys.p256dh: not a P-256 public key", 422)


def notify_router(notes: Notifications) -> APIRouter:
    """The routes on ``notes`` (its VAPID key is read on first use)."""
    api = api_router()
    api.tags = ["notifications"]

    def signed_in(account: StoredAccount | None) -> StoredAccount:
        if account is None:
            raise ServiceError(E.NOT_SIGNED_IN, None, 401)
        return account

    def out(account_id: int, s: NotifySettings) -> dict[str, Any]:
        return {
            "push": s.push,
            "email": s.email,
            "address": s.address,
            "verified": s.verified,
            "pending": s.pending,
            "lang": s.lang,
            "mail_available": notes.mailer is not None,
            "subscriptions": len(notes.store.subscriptions(account_id)),
        }

    @api.get("/notify/key", response_model=VapidKey)
    async def vapid_key() -> dict[str, Any]:
        """The public key a browser subscribes to push with."""
        return {"key": notes.public_key()}

    @api.get("/notify/settings", response_model=SettingsOut)
    async def get_settings(account: CurrentAccount) -> dict[str, Any]:
        me = signed_in(account)
        return out(me.id, notes.settings(me.id))

    @api.put("/notify/settings", response_model=SettingsOut)
    async def put_settings(
        body: SettingsIn, request: Request, account: CurrentAccount
    ) -> dict[str, Any]:
        """Push and e-mail on or off, the address (a new one must be verified again); the
        notifications speak the language of this request."""
        me = signed_in(account)
        saved = notes.save(
            me.id,
            push=body.push,
            email=body.email,
            address=body.address,
            lang=request_lang(request),
        )
        return out(me.id, saved)

    @api.post("/notify/subscriptions", status_code=201, response_model=Done)
    async def subscribe(
        body: PushSubscriptionIn, request: Request, account: CurrentAccount
    ) -> dict[str, Any]:
        """Keep this browser's push subscription for the account (at most 10 browsers; the
        oldest goes); the pushes speak this request's language."""
        me = signed_in(account)
        if notes.public_key() is None:
            raise ServiceError(E.NOT_FOUND, "this server has no push", 404)
        check_point(body.keys.p256dh)
        sub = Subscription(body.endpoint, body.keys.p256dh, body.keys.auth)
        notes.subscribe(me.id, sub, request_lang(request))
        return {"ok": True}

    @api.delete("/notify/subscriptions", response_model=Done)
    async def unsubscribe(
        account: CurrentAccount,
        endpoint: Annotated[str, Query(min_length=1, max_length=1024)],
    ) -> dict[str, Any]:
        """Forget this browser's subscription (``ok``: it was the account's)."""
        me = signed_in(account)
        return {"ok": notes.unsubscribe(me.id, endpoint)}

    @api.post("/notify/verify", status_code=202, response_model=Done)
    async def send_verification(request: Request, account: CurrentAccount) -> dict[str, Any]:
        """Mail a link that verifies the account's address (3, then one per 10 minutes;
        ``ok``: the SMTP server took it)."""
        me = signed_in(account)
        site = public_url() or str(request.base_url)
        return {"ok": await notes.send_verification(me.id, me.name, site)}

    @api.get("/notify/verify", response_class=HTMLResponse)
    async def verify(
        request: Request, token: Annotated[str, Query(max_length=200)] = ""
    ) -> HTMLResponse:
        """The link of a verification mail: a page that says whether the address is now
        verified (or the link expired), in the reader's language."""
        result = notes.verify(token)
        return HTMLResponse(verify_page(result, request_lang(request)))

    return api


def verify_page(result: str, lang: str) -> str:
    e = html.escape
    title = notify_text(f"{result}_title", lang)
    return (
        f'<!doctype html><html lang="{e(lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)} — Go Nuts for Donuts</title>"
        '<link rel="icon" href="/static/img/donut.svg" type="image/svg+xml">'
        '<link rel="stylesheet" href="/static/css/offline.css"></head><body>'
        '<header class="topbar"><img src="/static/img/donut.svg" alt="" width="28" height="28">'
        " Go Nuts for Donuts</header>"
        f'<main data-testid="verify-{e(result)}"><h1>{e(title)}</h1>'
        f"<p>{e(notify_text(result, lang))}</p>"
        f'<p><a class="retry" href="/">{e(notify_text("back", lang))}</a></p></main>'
        "</body></html>"
    )


__all__ = ["notify_router"]
