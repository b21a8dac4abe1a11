"""The schema as SQLAlchemy rows: tables, seats, accepted actions, finished games, accounts,
their sessions and ratings, shared secrets, reviews, rooms and chat, deadlines, notifications.
Every change here comes with a migration (``migrations/versions/``);
:mod:`gonuts.server.kernel.db` makes the engines and re-exports these names, so
``from gonuts.server.kernel.db import SeatRow`` keeps working.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "gn_tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    status: Mapped[str] = mapped_column(String(16), default="open", index=True)
    players: Mapped[int] = mapped_column(Integer)
    deck: Mapped[str] = mapped_column(Text)
    """The shuffled deck, top first, as a JSON list of kind ids (secret: never sent)."""
    next_table: Mapped[str | None] = mapped_column(String(32), default=None)
    clock: Mapped[int | None] = mapped_column(Integer, default=None)
    """Seconds per pending human decision (the turn clock); ``None``: no clock."""
    variants: Mapped[str] = mapped_column(String(200), default="", server_default="")
    """The table's house rules, comma-separated canonical names; "" for the default game."""
    seats: Mapped[list[SeatRow]] = relationship(
        back_populates="table", order_by="SeatRow.seat", cascade="all, delete-orphan"
    )

    __table_args__ = (Index("ix_gn_tables_status_created", "status", "created_at"),)


class SeatRow(Base):
    __tablename__ = "gn_seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``human`` or ``bot``."""
    level: Mapped[str | None] = mapped_column(String(16), default=None)
    name: Mapped[str | None] = mapped_column(String(64), default=None)
    token_hash: Mapped[str | None] = mapped_column(String(64), default=None, index=True)
    hints: Mapped[bool] = mapped_column(Boolean, default=False)
    replaced: Mapped[bool] = mapped_column(Boolean, default=False)
    """A human seat played by a bot since its player left."""
    last_seen: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("gn_accounts.id"), default=None, index=True
    )
    """The signed-in player's account sitting here (rated games); None for guests and bots."""
    table: Mapped[TableRow] = relationship(back_populates="seats")


class ActionRow(Base):
    __tablename__ = "gn_actions"

    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    notation: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    client_id: Mapped[str | None] = mapped_column(String(40), default=None)
    """The ``id`` the client sent with the action: a replay of it is acknowledged, not applied."""

    __table_args__ = (Index("ux_gn_actions_client", "table_id", "seat", "client_id", unique=True),)


class FinishedRow(Base):
    __tablename__ = "gn_finished"

    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    players: Mapped[str] = mapped_column(Text)
    scores: Mapped[str] = mapped_column(Text)
    winners: Mapped[str] = mapped_column(Text)
    record: Mapped[str] = mapped_column(Text)
    """The ``gonuts-record/1`` text."""


class AccountRow(Base):
    """A player's account: a public name, an argon2id password hash and the current rating."""

    __tablename__ = "gn_accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(64), unique=True)
    """The name folded (NFKC, casefold): "Ana" and "ana" are one account."""
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    """Rated games played."""
    wins: Mapped[int] = mapped_column(Integer, default=0)
    """Rated games won (shared victories count)."""


class AccountSessionRow(Base):
    """A signed-in browser: the SHA-256 of its cookie's token, never the token itself."""

    __tablename__ = "gn_account_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("gn_accounts.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime, index=True)


class RatingRow(Base):
    """One account's rating change in one rated game (the profile's history)."""

    __tablename__ = "gn_ratings"

    account_id: Mapped[int] = mapped_column(ForeignKey("gn_accounts.id"), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    """1 for the winners; players with the same score and card count share a rank."""
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    __table_args__ = (Index("ix_gn_ratings_account_rated", "account_id", "rated_at"),)


class SecretRow(Base):
    """A named random secret every server process on the database shares (the device
    cookies' HMAC key: :mod:`gonuts.server.accounts.devices`). Made once, never sent."""

    __tablename__ = "gn_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class ReviewRow(Base):
    """A finished game's review (``gonuts review``'s JSON) by one analyser: computed once,
    served from here afterwards (revision 0008, ``server/review/store.py``)."""

    __tablename__ = "gn_reviews"

    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    analyser: Mapped[str] = mapped_column(String(40), primary_key=True)
    """The analyser and its seed, e.g. ``neural:32/0``."""
    record_sha: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the record reviewed (a record never changes; checked on reading)."""
    review: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class RoomRow(Base):
    """A table's waiting room (migration 0009): who created it (the host, by seat) and whether
    its chat is on. Tables made before, the tutorial's and "play again" tables have none."""

    __tablename__ = "gn_rooms"

    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    host_seat: Mapped[int | None] = mapped_column(Integer, default=None)
    chat: Mapped[bool] = mapped_column(Boolean, default=True)


class ChatRow(Base):
    """One line of a table's chat (migration 0009): a player's text or quick reaction."""

    __tablename__ = "gn_chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))
    """``text`` or ``reaction`` (``text`` is then the reaction's id)."""
    text: Mapped[str] = mapped_column(String(1200))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    __table_args__ = (Index("ix_gn_chat_table", "table_id", "id"),)


class PlayNowRow(Base):
    """A client waiting for "Play now" (migration 0009): the queue every process shares.

    ``client_key`` (an account, or one of an address's few slots) is unique: it bounds a
    client's requests in the queue. The matcher fills ``table_id``, ``seat`` and ``token``
    (the seat's token, kept only until the waiting request has read it and deleted the row)."""

    __tablename__ = "gn_play_now"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_key: Mapped[str] = mapped_column(String(80), unique=True)
    name: Mapped[str] = mapped_column(String(64))
    lang: Mapped[str] = mapped_column(String(8))
    counts: Mapped[str] = mapped_column(String(20))
    """The acceptable player counts, comma-separated (e.g. ``"3,4"``)."""
    account_id: Mapped[int | None] = mapped_column(ForeignKey("gn_accounts.id"), default=None)
    rating: Mapped[float | None] = mapped_column(Float, default=None)
    queued_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    table_id: Mapped[str | None] = mapped_column(String(32), default=None)
    seat: Mapped[int | None] = mapped_column(Integer, default=None)
    token: Mapped[str | None] = mapped_column(String(64), default=None)


class DeadlineRow(Base):
    """When the clock decides for a human seat that must decide now (migration 0010): an
    absolute UTC time, so a restart or another process keeps it. ``decision`` is the count of
    actions the seat had taken when the decision became pending (the clock's decision key)."""

    __tablename__ = "gn_deadlines"

    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    decision: Mapped[int] = mapped_column(Integer)
    due_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (Index("ix_gn_deadlines_due", "due_at"),)


class DriverRow(Base):
    """Which server process drives a turn-based table (migration 0012): times its deadlines out
    and moves its bots, until ``until`` (a lease, renewed while the process lives). No foreign
    key: a lease is not data."""

    __tablename__ = "gn_table_drivers"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    origin: Mapped[str] = mapped_column(String(64))
    until: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (Index("ix_gn_table_drivers_origin", "origin"),)


class ProcessRow(Base):
    """A server process alive on the database (migration 0012), until ``until`` (renewed
    while it runs): the processes share the turn-based tables out evenly."""

    __tablename__ = "gn_processes"

    origin: Mapped[str] = mapped_column(String(64), primary_key=True)
    until: Mapped[datetime] = mapped_column(DateTime)


class OutboxRow(Base):
    """One fact an account is to be told (migration 0010): ``turn`` (a turn-based decision
    waits for its seat) or ``ended``. Unique by table, seat, decision and kind: stored once
    however many processes see it; ``sent_at`` is set once the dispatcher has sent it."""

    __tablename__ = "gn_outbox"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("gn_accounts.id"))
    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"))
    seat: Mapped[int] = mapped_column(Integer)
    decision: Mapped[int] = mapped_column(Integer)
    """The seat's decision key (as in :class:`DeadlineRow`); ``-1`` for ``ended``."""
    kind: Mapped[str] = mapped_column(String(8))
    round: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The game's round when the fact was stored (1-based; 0: not known)."""
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)

    __table_args__ = (
        Index("ux_gn_outbox_fact", "table_id", "seat", "decision", "kind", unique=True),
        Index("ix_gn_outbox_pending", "sent_at", "account_id"),
    )


class PushSubscriptionRow(Base):
    """A browser's Web Push subscription for an account (migration 0011): where to send
    (``endpoint``, the push service's URL, unique) and the keys to encrypt for (``p256dh``,
    ``auth``, base64url). A push service's 404/410 deletes it (``server/notify/push.py``)."""

    __tablename__ = "gn_push_subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("gn_accounts.id"), index=True)
    endpoint: Mapped[str] = mapped_column(String(1024), unique=True)
    p256dh: Mapped[str] = mapped_column(String(100))
    auth: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    failed_at: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    """The last failed delivery (a push service down, not a gone subscription); None."""


class NotifySettingsRow(Base):
    """An account's notification settings (migration 0011): push and e-mail on or off, the
    e-mail address and whether its owner proved it (a link with a token, kept as its SHA-256
    until it expires), and the language the notifications speak."""

    __tablename__ = "gn_notify_settings"

    account_id: Mapped[int] = mapped_column(ForeignKey("gn_accounts.id"), primary_key=True)
    push: Mapped[bool] = mapped_column(Boolean, default=True)
    email: Mapped[bool] = mapped_column(Boolean, default=False)
    address: Mapped[str | None] = mapped_column(String(254), default=None)
    verified: Mapped[bool] = mapped_column(Boolean, default=False)
    token_hash: Mapped[str | None] = mapped_column(String(64), default=None, unique=True)
    token_expires: Mapped[datetime | None] = mapped_column(DateTime, default=None)
    lang: Mapped[str] = mapped_column(String(8), default="en")
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
