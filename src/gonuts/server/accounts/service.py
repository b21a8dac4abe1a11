"""Optional player accounts: sign up, sign in, sign out, the session behind a cookie.

Passwords are hashed with argon2id (``argon2-cffi``'s :class:`~argon2.PasswordHasher`, its
defaults: RFC 9106's low-memory profile) and never stored or logged in clear. A sign-in makes a
random session token that travels only in an HttpOnly cookie; the database keeps its SHA-256
and when it expires (:data:`SESSION_DAYS`). Names follow the lobby's rules
(:func:`~gonuts.server.lobby.rules.check_name`) and are unique once folded
(:func:`~gonuts.server.lobby.rules.fold_name`), so "Ana" and "ANA" cannot be two players.

The owner controls the account: a new password (the old one required; every other session
ends), signing out everywhere, deleting it (the password required; finished games keep their
moves under :data:`~gonuts.server.kernel.i18n.DELETED_PLAYER`).

No user enumeration at sign-in: an unknown name and a wrong password get the same answer
(``bad_credentials``), and an unknown name still costs one argon2 verification, against a
dummy hash, so both take about as long. Sign-up must say when a name is taken (people need a
free name); account names are public anyway (leaderboard, profiles), so that answer tells
nothing a profile does not, and sign-ups are rate-limited per address like sign-ins
(:mod:`gonuts.server.accounts.api`). docs/server.md, "Accounts and ratings".

The methods are synchronous and slow on purpose (argon2): the API runs them in a thread.
"""

from __future__ import annotations

import base64
import secrets
from datetime import timedelta
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from gonuts.server.accounts.ratings import NEW_RATING
from gonuts.server.accounts.store import AccountStore, StoredAccount
from gonuts.server.kernel.db import hash_token, utcnow
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.lobby.protocol import MAX_NAME, check_name, fold_name, normal_name

E = ErrorCode
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 256
MAX_KEY: Final = 64
"""Longest folded name the schema holds (folding may lengthen a name)."""
SESSION_DAYS: Final = 30
COOKIE: Final = "gonuts_session"


def name_key(name: str) -> str:
    """``name`` folded for uniqueness (:func:`~gonuts.server.lobby.rules.fold_name`: NFKC,
    case-folded, variation selectors dropped, blank letters as spaces)."""
    return fold_name(name)


def account_name(raw: str) -> tuple[str, str]:
    """A valid new account name (the lobby's rules) and its folded key; ``malformed`` or
    ``name_taken`` (a bot's, a reserved name) otherwise."""
    name = check_name(raw)
    key = name_key(name)
    if len(key) > MAX_KEY:
        raise ServiceError(E.MALFORMED, "this name is too long once normalized", 422)
    return name, key


def lookup_key(raw: str) -> str | None:
    """The folded key to look a typed name up by (sign-in): no new-name rules, so an account
    made before a rule still signs in; None for what no account can be called."""
    name = normal_name(raw)
    key = name_key(name)
    if not 1 <= len(name) <= MAX_NAME or not 1 <= len(key) <= MAX_KEY:
        return None
    return key


def check_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        detail = f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters"
        raise ServiceError(E.MALFORMED, detail, 422)
    return password


def dummy_hash(hasher: PasswordHasher) -> str:
    """An argon2id hash with ``hasher``'s parameters and random salt and digest, to verify
    against when the name is unknown: the same work as a real one, and made without hashing
    (so the first unknown name is not slower than the next)."""

    def b64(n: int) -> str:
        return base64.b64encode(secrets.token_bytes(n)).decode("ascii").rstrip("=")

    params = f"m={hasher.memory_cost},t={hasher.time_cost},p={hasher.parallelism}"
    return f"$argon2id$v=19${params}${b64(hasher.salt_len)}${b64(hasher.hash_len)}"


class Accounts:
    """Accounts and sessions on a :class:`~gonuts.server.accounts.store.AccountStore`."""

    def __init__(
        self,
        store: AccountStore,
        *,
        hasher: PasswordHasher | None = None,
        session_days: float = SESSION_DAYS,
    ) -> None:
        self.store = store
        self.hasher = hasher or PasswordHasher()
        self.dummy = dummy_hash(self.hasher)
        self.session_life = timedelta(days=session_days)

    def sign_up(self, name: str, password: str) -> tuple[StoredAccount, str]:
        """A new account, signed in: it and its session token; ``name_taken`` if the name is."""
        name, key = account_name(name)
        check_password(password)
        account_id = self.store.create_account(name, key, self.hasher.hash(password), *NEW_RATING)
        if account_id is None:
            raise ServiceError(E.NAME_TAKEN, None, 409)
        return self._session(account_id)

    def sign_in(self, name: str, password: str) -> tuple[StoredAccount, str]:
        """The account and a new session token; ``bad_credentials`` (401) for an unknown name
        or a wrong password alike."""
        key = lookup_key(name)
        found = self.store.credentials(key) if key is not None else None
        account_id = self.verify(found, password)
        return self._session(account_id)

    def verify(self, found: tuple[int, str] | None, password: str) -> int:
        """The account id of ``found`` (id, hash) if ``password`` is its password (rehashed if
        the hasher's parameters changed); ``bad_credentials`` (401) otherwise, after the same
        work for an unknown account."""
        stored = found[1] if found is not None else self.dummy
        try:
            self.hasher.verify(stored, password)
            ok = found is not None
        except (VerificationError, InvalidHashError):
            ok = False
        if not ok or found is None:
            raise ServiceError(E.BAD_CREDENTIALS, None, 401)
        account_id, hashed = found
        if self.hasher.check_needs_rehash(hashed):
            self.store.set_password_hash(account_id, self.hasher.hash(password))
        return account_id

    def check_password_of(self, account: StoredAccount, password: str) -> None:
        """``bad_credentials`` (401) unless ``password`` is the account's."""
        hashed = self.store.password_hash(account.id)
        self.verify(None if hashed is None else (account.id, hashed), password)

    def change_password(self, account: StoredAccount, old: str, new: str, token: str) -> int:
        """Set a new password (the old one required); every other session of the account
        ends (``token``: the caller's, kept). How many sessions ended."""
        check_password(new)
        self.check_password_of(account, old)
        self.store.set_password_hash(account.id, self.hasher.hash(new))
        return self.store.delete_sessions(account.id, keep=hash_token(token))

    def sign_out_everywhere(self, account: StoredAccount) -> int:
        """End every session of the account, this one too; how many."""
        return self.store.delete_sessions(account.id)

    def delete(self, account: StoredAccount) -> bool:
        """Remove the account, its sessions and its rating history; its name is free again.
        Its seats must have been unlinked first (the route asks the wiring: play's seats and
        finished games take :data:`~gonuts.server.kernel.i18n.DELETED_PLAYER`)."""
        return self.store.delete_account(account.id)

    def _session(self, account_id: int) -> tuple[StoredAccount, str]:
        token = secrets.token_urlsafe(32)
        self.store.create_session(hash_token(token), account_id, utcnow() + self.session_life)
        account = self.store.account(account_id)
        assert account is not None
        return account, token

    def sign_out(self, token: str) -> None:
        self.store.delete_session(hash_token(token))

    def signed_in(self, token: str | None) -> StoredAccount | None:
        """The account of a session token (an unexpired session), or None."""
        if not token or len(token) > 200:
            return None
        return self.store.session_account(hash_token(token))

    @property
    def session_seconds(self) -> int:
        """How long a session (and its cookie) lasts."""
        return int(self.session_life.total_seconds())


__all__ = ["COOKIE", "Accounts", "account_name", "check_password", "lookup_key", "name_key"]
