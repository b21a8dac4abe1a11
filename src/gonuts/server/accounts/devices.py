"""Device cookies: sign-in that others' guessing cannot lock the owner out of.

OWASP's "Slow Down Online Guessing Attacks with Device Cookies": a browser that signed in to an
account successfully gets a cookie naming it (a random nonce and an HMAC of the account's folded
name and the nonce, with a server secret kept in the database). Its later sign-in attempts to
that account are limited on the device's own bucket (per nonce) and never on the name's or the
address's, which guessers from elsewhere empty; attempts without a valid cookie are limited as
before (per address, per name). The cookie proves nothing about the password and grants no
session: it only chooses which bucket an attempt is counted in. docs/protocol.md, "Sign-in
limits".

One cookie (:data:`DEVICE_COOKIE`) holds up to :data:`MAX_DEVICE_ENTRIES` entries (accounts
signed in to from this browser), ``nonce.mac`` each, ``~`` between them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from typing import Final

DEVICE_COOKIE: Final = "gonuts_device"
DEVICE_DAYS: Final = 365
MAX_DEVICE_ENTRIES: Final = 4
"""Accounts one browser is remembered for; the oldest entry goes first."""
MAX_COOKIE: Final = 400
"""Longest cookie value read (4 entries of 47 characters, with room)."""
SECRET_NAME: Final = "device_cookie"
"""The secret's name in ``gn_secrets``."""
ENTRY: Final = re.compile(r"^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{24}$")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


class DeviceCookies:
    """Makes and checks device cookie entries with one server secret."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("a device cookie secret has at least 16 bytes")
        self.secret = secret

    def mac(self, name_key: str, nonce: str) -> str:
        message = f"gonuts-device\0{name_key}\0{nonce}".encode()
        return _b64(hmac.new(self.secret, message, hashlib.sha256).digest()[:18])

    def entries(self, cookie: str | None) -> list[str]:
        """The well-formed entries of a cookie value (junk is ignored, never an error)."""
        if not cookie or len(cookie) > MAX_COOKIE:
            return []
        return [e for e in cookie.split("~") if ENTRY.match(e)][-MAX_DEVICE_ENTRIES:]

    def device(self, cookie: str | None, name_key: str) -> str | None:
        """The nonce of the entry of ``cookie`` made for ``name_key``, or None."""
        for entry in self.entries(cookie):
            nonce, mac = entry.split(".")
            if hmac.compare_digest(mac, self.mac(name_key, nonce)):
                return nonce
        return None

    def remember(self, cookie: str | None, name_key: str) -> str:
        """The cookie value after a successful sign-in to ``name_key``: its entry kept (or a
        new one made), last, and at most :data:`MAX_DEVICE_ENTRIES` in all."""
        kept = [e for e in self.entries(cookie) if self.device(e, name_key) is None]
        nonce = self.device(cookie, name_key) or _b64(secrets.token_bytes(16))
        entries = [*kept, f"{nonce}.{self.mac(name_key, nonce)}"]
        return "~".join(entries[-MAX_DEVICE_ENTRIES:])

    def forget(self, cookie: str | None, name_key: str) -> str:
        """The cookie value without ``name_key``'s entry (a deleted account)."""
        return "~".join(e for e in self.entries(cookie) if self.device(e, name_key) is None)


__all__ = ["DEVICE_COOKIE", "DEVICE_DAYS", "SECRET_NAME", "DeviceCookies"]
