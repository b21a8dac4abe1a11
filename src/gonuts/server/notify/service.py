"""Notifications' logic: an account's settings (validated; the e-mail address verified by a
link), its push subscriptions, and :func:`channels`: the channels this server has (Web Push
when it has a VAPID key, which it always has; e-mail when ``GONUTS_SMTP_URL`` is set) for the
dispatcher to call. What a note says is :mod:`~gonuts.server.notify.texts`'. docs/deploy.md,
"Notifications".
"""

from __future__ import annotations

import logging
import os
import re
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Final

from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.i18n import DEFAULT_LANG, normalize
from gonuts.server.kernel.limits import BucketMap
from gonuts.server.notify.mail import MailChannel, Mailer, mailer_from_env
from gonuts.server.notify.protocol import Channel
from gonuts.server.notify.push import PushChannel, public_key, vapid_from_env
from gonuts.server.notify.store import NotifySettings, NotifyStore, Subscription
from gonuts.server.notify.texts import public_url

log = logging.getLogger("gonuts.server.notify")

VERIFY_VALID: Final = timedelta(hours=24)
"""How long a verification link works."""
VERIFY_PATH: Final = "/api/notify/verify"
MAX_ADDRESS: Final = 254
ADDRESS: Final = re.compile(r"^[^@\s<>\"',;]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}$")
"""An address we send to: one ``@``, no spaces, quotes or brackets, a dotted domain (a plain
check on purpose: the link proves the rest)."""


# -- an account's settings ------------------------------------------------------------------------


def check_address(address: str | None) -> str | None:
    """The address as stored (trimmed), None for none; ``malformed`` (422) if it is not one."""
    if address is None or not address.strip():
        return None
    address = address.strip()
    if len(address) > MAX_ADDRESS or not ADDRESS.match(address):
        raise ServiceError(ErrorCode.MALFORMED, "not an e-mail address", 422)
    return address


class Notifications:
    """Settings and subscriptions of signed-in accounts (the API's logic)."""

    def __init__(self, store: NotifyStore, env: Mapping[str, str] | None = None) -> None:
        self.store = store
        self.env: Mapping[str, str] = env if env is not None else os.environ
        self.mailer: Mailer | None = mailer_from_env(self.env)
        """This server's mailer (None: it sends no mail, ``GONUTS_SMTP_URL`` is unset)."""
        self.verify_mails = BucketMap(1 / 600, 3)
        """Verification mails per account and per address: 3, then one every 10 minutes."""
        self._key: list[str | None] = []

    def public_key(self) -> str | None:
        """The VAPID public key (read once, on first use: the database is migrated by then);
        None if there is none (a bad key file, logged)."""
        if not self._key:
            try:
                self._key.append(public_key(vapid_from_env(self.store, self.env)[0]))
            except Exception:
                log.exception("Web Push is off: no VAPID key")
                self._key.append(None)
        return self._key[0]

    def settings(self, account_id: int) -> NotifySettings:
        return self.store.notify_settings(account_id)

    def save(
        self, account_id: int, *, push: bool, email: bool, address: str | None, lang: str
    ) -> NotifySettings:
        return self.store.save_notify_settings(
            account_id,
            push=push,
            email=email,
            address=check_address(address),
            lang=normalize(lang) or DEFAULT_LANG,
        )

    def subscribe(self, account_id: int, sub: Subscription, lang: str) -> None:
        """Keep a browser's subscription; pushes speak the language it subscribed in."""
        self.store.subscribe(account_id, sub)
        self.store.notify_language(account_id, normalize(lang) or DEFAULT_LANG)

    def unsubscribe(self, account_id: int, endpoint: str) -> bool:
        return self.store.unsubscribe(account_id, endpoint)

    async def send_verification(self, account_id: int, name: str, site: str) -> bool:
        """Mail a link that verifies the account's address (``site``: the link's origin).
        ``rate_limited`` beyond the account's or the address's bucket; ``not_found`` without
        SMTP or with no address to verify. Whether the SMTP server took the mail."""
        if self.mailer is None:
            raise ServiceError(ErrorCode.NOT_FOUND, "this server sends no e-mail", 404)
        address = self.store.notify_settings(account_id).address
        for key in (f"account:{account_id}", f"address:{(address or '').casefold()}"):
            bucket = self.verify_mails.take(key)  # (many accounts cannot flood one address)
            if bucket is not None:
                wait = f"retry in {bucket.wait_time():.0f} s"
                raise ServiceError(ErrorCode.RATE_LIMITED, wait, 429)
        token = secrets.token_urlsafe(32)
        address = self.store.verification_token(account_id, token, VERIFY_VALID)
        if address is None:
            raise ServiceError(ErrorCode.NOT_FOUND, "no address to verify", 404)
        lang = self.store.notify_settings(account_id).lang
        link = f"{site.rstrip('/')}{VERIFY_PATH}?token={token}&lang={lang}"
        return await self.mailer.verification(address, name, link, lang)

    def verify(self, token: str) -> str:
        """``verified`` or ``expired`` (an unknown, spent or old token)."""
        if not 20 <= len(token) <= 100:
            return "expired"
        return self.store.verify_address(token)


# -- the channels ---------------------------------------------------------------------------------


def channels(
    store: NotifyStore, env: Mapping[str, str] | None = None, **push_options: Any
) -> list[Channel]:
    """The channels of this server for the dispatcher: Web Push always (its VAPID key from
    ``GONUTS_VAPID_PRIVATE_KEY_FILE`` or the database), e-mail when ``GONUTS_SMTP_URL`` is
    set. A channel that cannot be made is logged and left out."""
    env = env if env is not None else os.environ
    made: list[Channel] = []
    try:
        key, subject = vapid_from_env(store, env)
        made.append(PushChannel(store, key, subject, **push_options))
    except Exception:
        log.exception("Web Push notifications are off: no VAPID key")
    mailer = mailer_from_env(env)
    if mailer is not None:
        site = public_url(env)
        if site is None:
            log.warning("GONUTS_PUBLIC_URL is not set: the mails link to http://localhost:8000")
        made.append(MailChannel(store, mailer, site or "http://localhost:8000"))
    return made


__all__ = ["Notifications", "channels", "check_address"]
