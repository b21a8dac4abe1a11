"""Notifications' logic: what a :class:`~gonuts.server.notify.protocol.Note` says in each
language (:func:`wording`), an account's settings (validated, the e-mail address verified by a
link), and :func:`channels`: the channels this server has (Web Push when it has a VAPID key,
which it always has; e-mail when ``GONUTS_SMTP_URL`` is set) for the dispatcher to call.
docs/deploy.md, "Notifications".
"""

from __future__ import annotations

import logging
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, timedelta
from typing import Any, Final

from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.kernel.i18n import DEFAULT_LANG, join_list, normalize, plural, server_texts
from gonuts.server.kernel.limits import BucketMap
from gonuts.server.notify.protocol import Channel, Note
from gonuts.server.notify.store import NotifySettings, NotifyStore, Subscription

log = logging.getLogger("gonuts.server.notify")

VERIFY_VALID: Final = timedelta(hours=24)
"""How long a verification link works."""
VERIFY_PATH: Final = "/api/notify/verify"
SETTINGS_PATH: Final = "/account#notifications"
"""Where the browser shows an account's notification settings (the links in the mails)."""
MAX_ADDRESS: Final = 254
ADDRESS: Final = re.compile(r"^[^@\s<>\"',;]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}$")
"""An address we send to: one ``@``, no spaces, quotes or brackets, a dotted domain (a plain
check on purpose: the link proves the rest)."""


def public_url(env: Mapping[str, str] | None = None) -> str | None:
    """``GONUTS_PUBLIC_URL`` (``https://gonuts.example``): the site's address in links that
    leave it (the mails); None when unset."""
    raw = (env if env is not None else os.environ).get("GONUTS_PUBLIC_URL", "").strip()
    return raw.rstrip("/") or None


# -- what a note says -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Wording:
    """A note in one language: a title, a body, the link to open, a tag that replaces an
    earlier notification of the same thing."""

    title: str
    body: str
    url: str
    tag: str


def notify_text(key: str, lang: str) -> str:
    texts: dict[str, Any] = server_texts(lang).get("notify") or server_texts(DEFAULT_LANG)["notify"]
    value = texts.get(key, server_texts(DEFAULT_LANG)["notify"][key])
    assert isinstance(value, str)
    return value


def place(rank: int, lang: str) -> str:
    """``2`` → "2nd" / "2.º" / "2º"."""
    places: dict[str, str] = server_texts(lang)["notify"]["places"]
    return places.get(str(rank), places["other"]).format(n=rank)


def wording(note: Note, lang: str) -> Wording:
    """What ``note`` says in ``lang`` (the tables' names are the players' own, untranslated)."""
    lang = normalize(lang) or DEFAULT_LANG
    first = note.tables[0]
    if note.kind == "digest" and len(note.tables) > 1:
        names = join_list([t.name for t in note.tables], lang)
        return Wording(
            plural("games_waiting", len(note.tables), lang),
            notify_text("digest_body", lang).format(tables=names),
            "/",
            "gonuts-digest",
        )
    if note.kind == "ended":
        body = ""
        if first.rank == 1:
            body = notify_text("ended_won", lang)
        elif first.rank is not None:
            body = notify_text("ended_place", lang).format(
                place=place(first.rank, lang), players=first.players
            )
        return Wording(
            notify_text("ended_title", lang).format(table=first.name),
            body,
            first.url,
            f"gonuts-{first.table_id}",
        )
    body = notify_text("turn_body", lang).format(round=first.round)
    if first.deadline is not None:
        at = first.deadline.astimezone(UTC) if first.deadline.tzinfo else first.deadline
        body += " " + notify_text("deadline", lang).format(time=at.strftime("%H:%M"))
    return Wording(
        notify_text("turn_title", lang).format(table=first.name),
        body,
        first.url,
        f"gonuts-{first.table_id}",
    )


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

    def __init__(self, store: NotifyStore, mailer: Any | None = None) -> None:
        self.store = store
        self.mailer = mailer
        """A :class:`~gonuts.server.notify.mail.Mailer` (None: this server sends no mail)."""
        self.verify_mails = BucketMap(1 / 600, 3)
        """Verification mails per account: 3, then one every 10 minutes."""

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

    def subscribe(self, account_id: int, sub: Subscription) -> None:
        self.store.subscribe(account_id, sub)

    def unsubscribe(self, account_id: int, endpoint: str) -> bool:
        return self.store.unsubscribe(account_id, endpoint)

    async def send_verification(self, account_id: int, name: str, site: str) -> None:
        """Mail a link that verifies the account's address (``site``: the link's origin).
        ``rate_limited`` beyond the per-account bucket; ``not_found`` without SMTP or with
        no address to verify."""
        if self.mailer is None:
            raise ServiceError(ErrorCode.NOT_FOUND, "this server sends no e-mail", 404)
        bucket = self.verify_mails.take(str(account_id))
        if bucket is not None:
            raise ServiceError(
                ErrorCode.RATE_LIMITED, f"retry in {bucket.wait_time():.0f} s", 429
            )
        token = secrets.token_urlsafe(32)
        address = self.store.verification_token(account_id, token, VERIFY_VALID)
        if address is None:
            raise ServiceError(ErrorCode.NOT_FOUND, "no address to verify", 404)
        lang = self.store.notify_settings(account_id).lang
        link = f"{site.rstrip('/')}{VERIFY_PATH}?token={token}"
        await self.mailer.verification(address, name, link, lang)

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
    from gonuts.server.notify.mail import MailChannel, mailer_from_env
    from gonuts.server.notify.push import PushChannel, vapid_from_env

    env = env if env is not None else os.environ
    made: list[Channel] = []
    try:
        key, subject = vapid_from_env(store, env)
        made.append(PushChannel(store, key, subject, **push_options))
    except Exception:
        log.exception("Web Push notifications are off: no VAPID key")
    mailer = mailer_from_env(env)
    if mailer is not None:
        made.append(MailChannel(store, mailer, public_url(env) or "http://localhost:8000"))
    return made


__all__ = [
    "Notifications",
    "Wording",
    "channels",
    "check_address",
    "public_url",
    "wording",
]
