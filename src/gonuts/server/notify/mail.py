"""The e-mail channel: a note to an account's verified address, through the SMTP server of
``GONUTS_SMTP_URL`` (stdlib :mod:`smtplib`, in a thread), and the verification mails.

``GONUTS_SMTP_URL`` forms: ``smtp://user:password@host:587`` (STARTTLS, required),
``smtps://user:password@host:465`` (TLS from the start), ``smtp+plain://host:25`` (no TLS: only
for a relay on the same machine or network). ``GONUTS_SMTP_FROM`` is the sender. Every mail
has a plain-text and an HTML part, a link to the game and one to the notification settings;
nothing goes to an address its owner has not verified. docs/deploy.md, "Notifications".
"""

from __future__ import annotations

import asyncio
import html
import logging
import smtplib
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from typing import Final, Literal
from urllib.parse import unquote, urlsplit

from gonuts.server.notify.protocol import Note
from gonuts.server.notify.store import NotifyStore
from gonuts.server.notify.texts import SETTINGS_PATH, notify_text, wording

log = logging.getLogger("gonuts.server.notify")

Security = Literal["starttls", "tls", "plain"]
SCHEMES: Final[dict[str, tuple[Security, int]]] = {
    "smtp": ("starttls", 587),
    "smtps": ("tls", 465),
    "smtp+plain": ("plain", 25),
}
SITE_NAME: Final = "Go Nuts for Donuts"


@dataclass(frozen=True, slots=True)
class SmtpConfig:
    host: str
    port: int
    security: Security
    sender: str
    user: str | None = None
    password: str | None = None


def parse_smtp_url(url: str, sender: str | None = None) -> SmtpConfig:
    """``GONUTS_SMTP_URL`` (and ``GONUTS_SMTP_FROM``) as a :class:`SmtpConfig`; ``ValueError``
    for an unknown scheme or no host."""
    parts = urlsplit(url.strip())
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise ValueError("GONUTS_SMTP_URL is smtp://, smtps:// or smtp+plain://[user:pass@]host")
    security, port = SCHEMES[parts.scheme]
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    return SmtpConfig(
        parts.hostname,
        parts.port or port,
        security,
        sender or f"gonuts@{parts.hostname}",
        user,
        password,
    )


class Mailer:
    """Sends mails through one SMTP server (a connection per mail: notifications are few)."""

    def __init__(self, config: SmtpConfig, timeout: float = 20.0) -> None:
        self.config = config
        self.timeout = timeout

    def deliver(self, message: EmailMessage) -> None:
        """Send ``message`` now (blocking: run in a thread)."""
        c = self.config
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if c.security == "tls":
            smtp = smtplib.SMTP_SSL(c.host, c.port, timeout=self.timeout, context=context)
        else:
            smtp = smtplib.SMTP(c.host, c.port, timeout=self.timeout)
        with smtp:
            if c.security == "starttls":
                smtp.starttls(context=context)  # refused by the server: an error, never plain
            if c.user is not None:
                smtp.login(c.user, c.password or "")
            smtp.send_message(message)

    async def send(self, message: EmailMessage) -> bool:
        """Send ``message`` in a thread; whether the server took it (a failure is logged)."""
        try:
            await asyncio.to_thread(self.deliver, message)
            return True
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("mail to %s failed: %s", message["To"], exc)
            return False

    def message(self, to: str, subject: str, plain: str, rich: str) -> EmailMessage:
        m = EmailMessage()
        m["From"] = formataddr((SITE_NAME, self.config.sender))
        m["To"] = to
        m["Subject"] = subject
        m["Message-ID"] = make_msgid(domain=self.config.sender.rpartition("@")[2] or None)
        m["Auto-Submitted"] = "auto-generated"
        m.set_content(plain)
        m.add_alternative(rich, subtype="html")
        return m

    async def verification(self, address: str, name: str, link: str, lang: str) -> bool:
        """The mail whose link verifies ``address`` for the account ``name``."""
        lines = [notify_text("verify_body", lang), link, notify_text("verify_valid", lang)]
        plain = "\n\n".join(lines) + "\n"
        rich = page(
            notify_text("verify_subject", lang),
            [notify_text("verify_body", lang)],
            [(notify_text("verify_subject", lang), link)],
            notify_text("verify_valid", lang),
            lang,
        )
        subject = f"{notify_text('verify_subject', lang)} ({name})"
        return await self.send(self.message(address, subject, plain, rich))


def page(
    title: str,
    paragraphs: Sequence[str],
    links: Sequence[tuple[str, str]],
    footer: str,
    lang: str,
    *,
    footer_link: tuple[str, str] | None = None,
) -> str:
    """A mail's HTML: a title, paragraphs, buttons, a small footer (styles inline, as mail
    readers want; every text escaped)."""
    e = html.escape
    body = "".join(f'<p style="margin:0 0 12px">{e(p)}</p>' for p in paragraphs)
    buttons = "".join(
        f'<p style="margin:12px 0"><a href="{e(url)}" style="display:inline-block;'
        "background:#b83d72;color:#fff;padding:10px 18px;border-radius:999px;"
        f'text-decoration:none;font-weight:bold">{e(label)}</a></p>'
        for label, url in links
    )
    more = (
        f' <a href="{e(footer_link[1])}" style="color:#8a2a55">{e(footer_link[0])}</a>'
        if footer_link
        else ""
    )
    return (
        f'<!doctype html><html lang="{e(lang)}"><head><meta charset="utf-8">'
        f"<title>{e(title)}</title></head>"
        '<body style="margin:0;padding:24px;background:#fff8ee;font-family:system-ui,'
        'sans-serif;color:#2d1b10">'
        '<div style="max-width:520px;margin:auto;background:#fff;border-radius:12px;'
        'border:1px solid #ecd9c2;overflow:hidden">'
        '<p style="margin:0;padding:10px 24px;background:#5b3417;color:#fff;font-weight:bold">'
        f'{e(SITE_NAME)}</p><div style="padding:20px 24px 24px">'
        f'<h1 style="font-size:22px;margin:0 0 16px">{e(title)}</h1>{body}{buttons}'
        f'<p style="margin:24px 0 0;font-size:13px;color:#6b4e3d">{e(footer)}{more}</p>'
        "</div></div></body></html>"
    )


class MailChannel:
    """E-mail to an account's verified address, when it has e-mail on."""

    name = "mail"

    def __init__(self, store: NotifyStore, mailer: Mailer, site: str) -> None:
        self.store = store
        self.mailer = mailer
        self.site = site.rstrip("/")
        """The site's origin (``GONUTS_PUBLIC_URL``): the links are absolute."""

    def compose(self, note: Note, to: str, lang: str, name: str) -> EmailMessage:
        said = wording(note, lang)
        settings = (notify_text("settings", lang), self.site + SETTINGS_PATH)
        if note.kind == "digest" and len(note.tables) > 1:
            links = [(t.name, self.site + t.url) for t in note.tables]
        else:
            links = [(notify_text("open_game", lang), self.site + said.url)]
        why = notify_text("why", lang).format(name=name)
        plain = "\n\n".join(
            [
                said.body,
                *(f"{label}: {url}" for label, url in links),
                f"-- \n{why}\n{settings[0]}: {settings[1]}",
            ]
        )
        paragraphs = [said.body] if said.body else []
        rich = page(said.title, paragraphs, links, why, lang, footer_link=settings)
        message = self.mailer.message(to, said.title, plain + "\n", rich)
        message["List-Unsubscribe"] = f"<{settings[1]}>"  # (mail readers' "unsubscribe")
        return message

    async def send(self, note: Note) -> bool:
        """Mail ``note`` if the account has e-mail on and a verified address."""
        try:
            to = self.store.mail_to(note.account_id)
            name = self.store.notify_account_name(note.account_id) if to else None
        except Exception:
            log.exception("mail: the settings of account %s could not be read", note.account_id)
            return False
        if to is None or name is None or not note.tables:
            return False
        address, lang = to
        try:
            message = self.compose(note, address, lang, name)
        except Exception:  # (never raises: a broken channel must not stop the others)
            log.exception("mail: note for account %s not composed", note.account_id)
            return False
        return await self.mailer.send(message)


def mailer_from_env(env: Mapping[str, str]) -> Mailer | None:
    """The mailer of ``GONUTS_SMTP_URL`` (None when unset; an invalid one is logged)."""
    url = env.get("GONUTS_SMTP_URL", "").strip()
    if not url:
        return None
    try:
        return Mailer(parse_smtp_url(url, env.get("GONUTS_SMTP_FROM", "").strip() or None))
    except ValueError as exc:
        log.error("e-mail notifications are off: %s", exc)
        return None


__all__ = ["MailChannel", "Mailer", "SmtpConfig", "mailer_from_env", "parse_smtp_url"]
