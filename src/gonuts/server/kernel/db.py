"""Storage through SQLAlchemy 2: tables, seats, accepted actions, finished games.

The database is the source of truth: a table's game is rebuilt from its deck and its actions.
A SQLite file by default, or PostgreSQL (``postgresql://…``, driven by psycopg 3). The schema is
migrated with Alembic (``migrations/``) when an engine is made. On PostgreSQL, triggers (revision
0003) make every committed change to a table send a ``NOTIFY`` on :data:`CHANNEL`, so other
server processes on the database can follow (:mod:`gonuts.server.kernel.relay`,
docs/server.md); each
engine's connections carry its :func:`engine_origin` as their ``application_name``.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import secrets
import threading
import weakref
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    create_engine,
    event,
    func,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    sessionmaker,
)


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


class RoomRow(Base):
    """A table's waiting room (migration 0008): who created it (the host, by seat) and whether
    its chat is on. Tables made before, the tutorial's and "play again" tables have none."""

    __tablename__ = "gn_rooms"

    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    host_seat: Mapped[int | None] = mapped_column(Integer, default=None)
    chat: Mapped[bool] = mapped_column(Boolean, default=True)


class ChatRow(Base):
    """One line of a table's chat (migration 0008): a player's text or quick reaction."""

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
    """A client waiting for "Play now" (migration 0008): the queue every process shares.

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


MIGRATIONS: Final = Path(__file__).parent / "migrations"
FIRST_REVISION: Final = "0001"
"""The schema of the first web release, which made its tables without Alembic."""
MIGRATION_LOCK: Final = 0x676E7574
"""The advisory lock key that serializes migrations of processes starting together."""
CHANNEL: Final = "gonuts"
"""The PostgreSQL ``LISTEN`` / ``NOTIFY`` channel of table changes."""


def normalize_url(url: str) -> str:
    """``url`` with PostgreSQL URLs (``postgres://``, ``postgresql://``) using psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def libpq_url(url: str | URL) -> str:
    """A SQLAlchemy PostgreSQL URL as a libpq connection URI (for psycopg itself)."""
    u = make_url(normalize_url(str(url)) if isinstance(url, str) else url)
    return u.set(drivername="postgresql").render_as_string(hide_password=False)


def make_engine(url: str, *, migrate_schema: bool = True) -> Engine:
    """An engine for ``url``, its schema migrated to the newest revision.

    SQLite gets WAL and foreign keys, and is usable across threads.
    """
    url = normalize_url(url)
    origin = secrets.token_hex(8)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: object, _record: object) -> None:
            cursor = dbapi_conn.cursor()  # type: ignore[attr-defined]
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

    else:
        engine = create_engine(
            url, pool_pre_ping=True, connect_args={"application_name": f"gonuts:{origin}"}
        )
    _ORIGINS[engine] = f"gonuts:{origin}"
    if migrate_schema:
        migrate(engine)
    return engine


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("file_template", "v%%(rev)s_%%(slug)s")
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Upgrade the database to ``revision`` in place.

    A database from before migrations (its tables but no ``alembic_version``) is first stamped
    with the first revision. On PostgreSQL an advisory lock makes processes that start together
    migrate one after the other.
    """
    config = alembic_config()
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(select(func.pg_advisory_xact_lock(MIGRATION_LOCK)))
        config.attributes["connection"] = conn
        have = inspect(conn)
        if have.has_table("gn_tables") and not have.has_table("alembic_version"):
            command.stamp(config, FIRST_REVISION)
        command.upgrade(config, revision)


@functools.cache
def head_revision() -> str:
    """The newest migration's revision (what a ready database is at)."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        value = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        return None if value is None else str(value)


_ORIGINS: weakref.WeakKeyDictionary[Engine, str] = weakref.WeakKeyDictionary()


def engine_origin(engine: Engine) -> str:
    """Who ``engine`` is in change notifications: its connections' ``application_name``."""
    return _ORIGINS.get(engine, "")


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


MAX_ID: Final = 32
"""Longest table id the schema holds: longer ids are unknown without asking the database."""
CHECKPOINT_EVERY: Final = 1.0
"""Seconds between the background WAL checkpoints of a serving process (SQLite)."""

store_log = logging.getLogger("gonuts.server.store")


class Database:
    """One SQL database (SQLite or PostgreSQL) and its engine: what every feature's store
    (``play/store.py``, ``games/store.py``, ``accounts/store.py``) is built on. ``autocommit``
    runs one statement at a time, ``sessions`` opens ORM sessions."""

    def __init__(self, url: str, *, migrate_schema: bool = True) -> None:
        self.engine: Engine = make_engine(url, migrate_schema=migrate_schema)
        self.autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self.sessions = make_sessionmaker(self.engine)
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()

    def checkpoint_in_background(self, every: float = CHECKPOINT_EVERY) -> None:
        """SQLite: move the WAL checkpoints off the caller's thread (the event loop).

        By default the commit that takes the write-ahead log past 1,000 pages copies them into
        the database and syncs it, inside that commit: under load, every second or two, one
        move stalled the event loop for 50-200 ms (the p99 of ``gonuts loadtest``). Here this
        process's connections never checkpoint; a thread does, every ``every`` seconds, in
        ``PASSIVE`` mode (it never blocks a writer, and the module lets go of the GIL while
        SQLite works). Stopped by :meth:`close`. No-op for PostgreSQL, a database in memory,
        or when started already."""
        database = self.engine.url.database
        if self.dialect != "sqlite" or self._checkpointer is not None:
            return
        if not database or database == ":memory:" or database.startswith("file::memory:"):
            return  # (a database in memory has no write-ahead log)

        @event.listens_for(self.engine, "connect")
        def _no_autocheckpoint(dbapi_conn: object, _record: object) -> None:
            cursor = dbapi_conn.cursor()  # type: ignore[attr-defined]
            cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.close()

        self.engine.dispose()  # (pooled connections made before: reconnect with it)
        self._stop_checkpoints.clear()
        self._checkpointer = threading.Thread(
            target=self._checkpoints, args=(every,), name="gonuts-wal-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def _checkpoints(self, every: float) -> None:
        while not self._stop_checkpoints.wait(every):
            try:
                with self.engine.connect() as c:
                    c.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            except Exception:  # (the next one may succeed; a long WAL only slows reads)
                store_log.warning("WAL checkpoint failed", exc_info=True)

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    @property
    def origin(self) -> str:
        """Who this store's connections are in change notifications (``application_name``)."""
        return engine_origin(self.engine)

    @property
    def libpq_url(self) -> str:
        """The database as a libpq URI (for a listening connection of psycopg's own)."""
        return libpq_url(self.engine.url)

    def close(self) -> None:
        if self._checkpointer is not None:
            self._stop_checkpoints.set()
            self._checkpointer.join(5)
            self._checkpointer = None
        self.engine.dispose()

    def readiness(self) -> str | None:
        """Why the database cannot serve now (unreachable, schema behind), or None."""
        try:
            have = current_revision(self.engine)
        except Exception as exc:  # any driver error means "not reachable"
            return f"database unreachable: {type(exc).__name__}"
        want = head_revision()
        if have != want:
            return f"schema at revision {have or 'none'}; this server needs {want}"
        return None
