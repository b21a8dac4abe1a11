"""The Web Push channel: a note to every browser an account subscribed, through pywebpush.

Each push is encrypted for its subscription (RFC 8291, ``aes128gcm``) and signed with the
server's VAPID key (RFC 8292: a JWT whose ``aud`` is the push service's origin and ``sub`` is
``GONUTS_VAPID_SUBJECT``). The key comes from ``GONUTS_VAPID_PRIVATE_KEY_FILE`` (a PEM file, as
``vapid --gen`` writes it) or is made on first start and kept in ``gn_secrets``, so every
process on the database signs alike and subscriptions outlive restarts. A push service that
answers 404 or 410 has forgotten the subscription: it is deleted. The payload (JSON: ``title``,
``body``, ``url``, ``tag``, ``kind``) is what the service worker (``static/js/sw.js``) shows.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from collections.abc import Collection, Mapping
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import urlsplit

import aiohttp
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid  # type: ignore[import-untyped]
from pywebpush import WebPusher  # type: ignore[import-untyped]

from gonuts.server.notify.protocol import Note
from gonuts.server.notify.store import NotifySettings, NotifyStore, Subscription
from gonuts.server.notify.texts import public_url, wording

log = logging.getLogger("gonuts.server.notify")

DEFAULT_TTL: Final = 24 * 3600
"""Seconds a push service keeps a notification for a browser that is offline (a game's end;
a turn: until its deadline, at least a minute)."""
MAX_PAYLOAD: Final = 3000
"""Bytes of JSON in a push (push services take 4 KB after encryption)."""
GONE: Final = (404, 410)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def public_key(key: ec.EllipticCurvePrivateKey) -> str:
    """The VAPID public key as the browser's ``applicationServerKey`` (an uncompressed P-256
    point, base64url)."""
    raw = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(raw)


def vapid_from_env(
    store: NotifyStore, env: Mapping[str, str]
) -> tuple[ec.EllipticCurvePrivateKey, str]:
    """The VAPID private key (``GONUTS_VAPID_PRIVATE_KEY_FILE``, else the database's) and the
    subject (``GONUTS_VAPID_SUBJECT``, else the site's URL, else a placeholder, warned of)."""
    path = env.get("GONUTS_VAPID_PRIVATE_KEY_FILE", "").strip()
    if path:
        key = Vapid.from_file(private_key_file=path).private_key
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise ValueError(f"{path}: not an EC private key")
    else:
        key = store.vapid_key()
    subject = env.get("GONUTS_VAPID_SUBJECT", "").strip() or public_url(env) or ""
    if not subject.startswith(("mailto:", "https://")):
        log.warning(
            "GONUTS_VAPID_SUBJECT is not set (mailto:you@example.org): some push services "
            "refuse pushes without a contact"
        )
        subject = "mailto:gonuts@localhost"
    return key, subject


def ttl_of(note: Note, now: datetime | None = None) -> int:
    deadlines = [t.deadline for t in note.tables if t.deadline is not None]
    if note.kind == "ended" or not deadlines:
        return DEFAULT_TTL
    now = now or datetime.now(UTC)
    soonest = min(d if d.tzinfo else d.replace(tzinfo=UTC) for d in deadlines)
    return int(min(DEFAULT_TTL, max(60.0, (soonest - now).total_seconds())))


def payload(note: Note, lang: str) -> bytes:
    """The push's JSON (what ``sw.js`` shows), at most :data:`MAX_PAYLOAD` bytes."""
    said = wording(note, lang)
    body: dict[str, Any] = {
        "title": said.title,
        "body": said.body,
        "url": said.url,
        "tag": said.tag,
        "kind": note.kind,
    }
    data = json.dumps(body, ensure_ascii=False).encode()
    while len(data) > MAX_PAYLOAD and body["body"]:
        body["body"] = body["body"][: len(body["body"]) // 2] + "…"
        data = json.dumps(body, ensure_ascii=False).encode()
    return data


class PushChannel:
    """Web Push to every subscription of an account that has push on."""

    name = "push"

    def __init__(
        self,
        store: NotifyStore,
        key: ec.EllipticCurvePrivateKey,
        subject: str,
        *,
        timeout: float = 10.0,
    ) -> None:
        self.store = store
        self.vapid = Vapid(private_key=key)
        self.key = key
        self.subject = subject
        self.timeout = timeout
        self._targets: dict[int, tuple[NotifySettings, list[Subscription]]] = {}
        self._prepared: set[int] = set()
        """The accounts of this dispatch pass (:meth:`prepare`) and those with subscriptions."""

    def prepare(self, account_ids: Collection[int]) -> None:
        """Look up the settings and subscriptions of a dispatch pass's accounts at once (most
        have no browser subscribed: no query each)."""
        self._targets = self.store.push_targets(account_ids)
        self._prepared = set(account_ids)

    @property
    def public_key(self) -> str:
        return public_key(self.key)

    def headers(self, endpoint: str) -> dict[str, str]:
        """The VAPID ``Authorization`` header for a push to ``endpoint``."""
        origin = urlsplit(endpoint)
        claims = {
            "sub": self.subject,
            "aud": f"{origin.scheme}://{origin.netloc}",
            "exp": int(time.time()) + 12 * 3600,
        }
        signed: dict[str, str] = self.vapid.sign(claims)
        return signed

    async def send(self, note: Note) -> bool:
        """Push ``note`` to each of the account's browsers; whether one took it. Never
        raises (a broken channel must not stop the others)."""
        try:
            return await self.deliver(note)
        except Exception:
            log.exception("push: note for account %s not sent", note.account_id)
            return False

    async def deliver(self, note: Note) -> bool:
        try:
            if note.account_id in self._prepared:
                self._prepared.discard(note.account_id)
                settings, subs = self._targets.pop(note.account_id, (NotifySettings(), []))
            else:
                settings = self.store.notify_settings(note.account_id)
                subs = self.store.subscriptions(note.account_id)
            if not settings.push:
                subs = []
        except Exception:
            log.exception("push: the settings of account %s could not be read", note.account_id)
            return False
        if not subs or not note.tables:
            return False
        data = payload(note, settings.lang)
        ttl = ttl_of(note)
        urgency = "normal" if note.kind == "ended" else "high"
        timeout = aiohttp.ClientTimeout(total=self.timeout)
        async with aiohttp.ClientSession(timeout=timeout) as session:  # the browsers at once
            done = await asyncio.gather(*(self.push(session, s, data, ttl, urgency) for s in subs))
        return any(done)

    async def push(
        self,
        session: aiohttp.ClientSession,
        sub: Subscription,
        data: bytes,
        ttl: int,
        urgency: str,
    ) -> bool:
        info = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
        try:
            headers = {**self.headers(sub.endpoint), "Urgency": urgency}
            pusher = WebPusher(info, aiohttp_session=session)
            response = await pusher.send_async(data, headers, ttl=ttl, timeout=session.timeout)
            status = int(response.status)
        except Exception as exc:  # unreachable, a bad key: this subscription only
            log.warning("push to %s failed: %s", urlsplit(sub.endpoint).netloc, exc)
            self.failed(sub.endpoint)
            return False
        if status in GONE:
            self.store.subscription_gone(sub.endpoint)
            return False
        if status >= 300:
            log.warning("push to %s refused: %s", urlsplit(sub.endpoint).netloc, status)
            self.failed(sub.endpoint)
            return False
        return True

    def failed(self, endpoint: str) -> None:
        try:
            self.store.subscription_failed(endpoint)
        except Exception:
            log.exception("push: could not note a failure")


__all__ = ["PushChannel", "public_key", "vapid_from_env"]
