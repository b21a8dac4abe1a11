"""Notifications' SQL: push subscriptions, each account's settings, the VAPID key pair."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, Literal

from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from gonuts.server.kernel.db import (
    AccountRow,
    Database,
    NotifySettingsRow,
    PushSubscriptionRow,
    SecretRow,
    hash_token,
    utcnow,
)

MAX_SUBSCRIPTIONS: Final = 10
"""Browsers one account may subscribe; the oldest subscription goes first."""
VAPID_SECRET: Final = "vapid_private_key"
"""The VAPID private key's name in ``gn_secrets`` (its P-256 scalar, hex)."""

Verified = Literal["verified", "expired"]


@dataclass(frozen=True, slots=True)
class NotifySettings:
    """An account's notification settings (the defaults when it never saved any)."""

    push: bool = True
    email: bool = False
    address: str | None = None
    verified: bool = False
    lang: str = "en"
    pending: bool = False
    """A verification link was sent and has not expired."""


@dataclass(frozen=True, slots=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str


class NotifyStore(Database):
    """Push subscriptions and notification settings in the server's database."""

    # -- settings ---------------------------------------------------------------------------------

    def notify_settings(self, account_id: int) -> NotifySettings:
        with self.sessions() as s:
            row = s.get(NotifySettingsRow, account_id)
            if row is None:
                return NotifySettings()
            pending = row.token_expires is not None and row.token_expires > utcnow()
            return NotifySettings(
                row.push,
                row.email,
                row.address,
                row.verified,
                row.lang,
                pending and not row.verified,
            )

    def save_notify_settings(
        self, account_id: int, *, push: bool, email: bool, address: str | None, lang: str
    ) -> NotifySettings:
        """Store the settings; a new address is unverified (and any link sent for the old one
        stops working)."""
        with self.sessions() as s, s.begin():
            row = s.get(NotifySettingsRow, account_id, with_for_update=True)
            if row is None:
                row = NotifySettingsRow(account_id=account_id, verified=False)
                s.add(row)
            if row.address != address:
                row.verified, row.token_hash, row.token_expires = False, None, None
            row.push, row.email, row.address, row.lang = push, email, address, lang
            row.updated_at = utcnow()
        return self.notify_settings(account_id)

    def notify_language(self, account_id: int, lang: str) -> None:
        """The language the account's notifications speak (its settings' other fields kept,
        or the defaults made)."""
        with self.sessions() as s, s.begin():
            row = s.get(NotifySettingsRow, account_id, with_for_update=True)
            if row is None:
                s.add(
                    NotifySettingsRow(
                        account_id=account_id, push=True, email=False, verified=False, lang=lang
                    )
                )
            else:
                row.lang = lang

    def verification_token(self, account_id: int, token: str, valid: timedelta) -> str | None:
        """Remember ``token`` (its hash) as the link that verifies the account's address for
        ``valid``; the address, or None when there is none to verify (or it is verified)."""
        with self.sessions() as s, s.begin():
            row = s.get(NotifySettingsRow, account_id, with_for_update=True)
            if row is None or not row.address or row.verified:
                return None
            row.token_hash, row.token_expires = hash_token(token), utcnow() + valid
            return row.address

    def verify_address(self, token: str) -> Verified:
        """Mark the address of ``token``'s link verified (once: the token is spent)."""
        with self.sessions() as s, s.begin():
            row = s.scalars(
                select(NotifySettingsRow)
                .where(NotifySettingsRow.token_hash == hash_token(token))
                .with_for_update()
            ).first()
            if row is None or row.token_expires is None or row.token_expires <= utcnow():
                return "expired"
            row.verified, row.token_hash, row.token_expires = True, None, None
            return "verified"

    def mail_to(self, account_id: int) -> tuple[str, str] | None:
        """The verified address (and language) of an account that wants e-mail, or None."""
        found = self.notify_settings(account_id)
        if not found.email or not found.verified or not found.address:
            return None
        return found.address, found.lang

    def notify_account_name(self, account_id: int) -> str | None:
        """The account's name (the mails say whose account they are for)."""
        with self.autocommit.connect() as c:
            name = c.scalar(select(AccountRow.name).where(AccountRow.id == account_id))
        return None if name is None else str(name)

    # -- push subscriptions -----------------------------------------------------------------------

    def subscribe(self, account_id: int, sub: Subscription) -> None:
        """Keep ``sub`` for the account (one endpoint belongs to the account that subscribed
        it last); beyond :data:`MAX_SUBSCRIPTIONS` the oldest go."""
        try:
            self._subscribe(account_id, sub)
        except IntegrityError:  # the same endpoint subscribed at the same moment: once more
            self._subscribe(account_id, sub)

    def _subscribe(self, account_id: int, sub: Subscription) -> None:
        with self.sessions() as s, s.begin():
            s.execute(
                delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint == sub.endpoint)
            )
            s.add(
                PushSubscriptionRow(
                    account_id=account_id, endpoint=sub.endpoint, p256dh=sub.p256dh, auth=sub.auth
                )
            )
            s.flush()
            ids = s.scalars(
                select(PushSubscriptionRow.id)
                .where(PushSubscriptionRow.account_id == account_id)
                .order_by(PushSubscriptionRow.id.desc())
                .offset(MAX_SUBSCRIPTIONS)
            ).all()
            if ids:
                s.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.id.in_(ids)))

    def unsubscribe(self, account_id: int, endpoint: str) -> bool:
        with self.autocommit.connect() as c:
            gone = c.execute(
                delete(PushSubscriptionRow).where(
                    PushSubscriptionRow.account_id == account_id,
                    PushSubscriptionRow.endpoint == endpoint,
                )
            ).rowcount
        return bool(gone)

    def push_targets(
        self, account_ids: Collection[int]
    ) -> dict[int, tuple[NotifySettings, list[Subscription]]]:
        """The accounts among ``account_ids`` that have a push subscription, with their
        settings and subscriptions: two queries for a whole dispatch pass (an account that
        is not listed has none)."""
        if not account_ids:
            return {}
        wanted = sorted(set(account_ids))
        with self.autocommit.connect() as c:
            subs = c.execute(
                select(
                    PushSubscriptionRow.account_id,
                    PushSubscriptionRow.endpoint,
                    PushSubscriptionRow.p256dh,
                    PushSubscriptionRow.auth,
                )
                .where(PushSubscriptionRow.account_id.in_(wanted))
                .order_by(PushSubscriptionRow.id)
            ).all()
            if not subs:
                return {}
            found: dict[int, list[Subscription]] = {}
            for r in subs:
                found.setdefault(r.account_id, []).append(
                    Subscription(r.endpoint, r.p256dh, r.auth)
                )
            rows = c.execute(
                select(
                    NotifySettingsRow.account_id, NotifySettingsRow.push, NotifySettingsRow.lang
                ).where(NotifySettingsRow.account_id.in_(sorted(found)))
            ).all()
        saved = {r.account_id: NotifySettings(push=r.push, lang=r.lang) for r in rows}
        return {a: (saved.get(a, NotifySettings()), found[a]) for a in found}

    def subscriptions(self, account_id: int) -> list[Subscription]:
        with self.autocommit.connect() as c:
            rows = c.execute(
                select(
                    PushSubscriptionRow.endpoint,
                    PushSubscriptionRow.p256dh,
                    PushSubscriptionRow.auth,
                )
                .where(PushSubscriptionRow.account_id == account_id)
                .order_by(PushSubscriptionRow.id)
            ).all()
        return [Subscription(r.endpoint, r.p256dh, r.auth) for r in rows]

    def subscription_gone(self, endpoint: str) -> None:
        """The push service says the subscription no longer exists (404/410)."""
        with self.autocommit.connect() as c:
            c.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint == endpoint))

    def subscription_failed(self, endpoint: str, at: datetime | None = None) -> None:
        with self.autocommit.connect() as c:
            c.execute(
                update(PushSubscriptionRow)
                .where(PushSubscriptionRow.endpoint == endpoint)
                .values(failed_at=at or utcnow())
            )

    # -- the VAPID key ----------------------------------------------------------------------------

    def vapid_key(self) -> ec.EllipticCurvePrivateKey:
        """The server's VAPID private key, made by whichever process asks first (every process
        on the database signs with the same one, so subscriptions outlive restarts)."""
        with self.autocommit.connect() as c:
            found = c.scalar(select(SecretRow.value).where(SecretRow.name == VAPID_SECRET))
        if found is None:
            made = ec.generate_private_key(ec.SECP256R1())
            value = format(made.private_numbers().private_value, "064x")
            try:
                with self.sessions() as s, s.begin():
                    s.add(SecretRow(name=VAPID_SECRET, value=value))
            except IntegrityError:
                pass  # another process made it first: theirs is the one
            with self.autocommit.connect() as c:
                found = c.scalar(select(SecretRow.value).where(SecretRow.name == VAPID_SECRET))
        assert found is not None
        return ec.derive_private_key(int(found, 16), ec.SECP256R1())


__all__ = ["MAX_SUBSCRIPTIONS", "NotifySettings", "NotifyStore", "Subscription"]
