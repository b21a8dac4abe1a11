"""Storage through SQLAlchemy 2: tables, seats, accepted actions, finished games.

The database is the source of truth: a table's game is rebuilt from its deck and its actions.
A SQLite file by default; any SQLAlchemy URL (``postgresql://…``) works.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    create_engine,
    event,
)
from sqlalchemy.engine import Engine
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
    seats: Mapped[list[SeatRow]] = relationship(
        back_populates="table", order_by="SeatRow.seat", cascade="all, delete-orphan"
    )


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
    table: Mapped[TableRow] = relationship(back_populates="seats")


class ActionRow(Base):
    __tablename__ = "gn_actions"

    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    notation: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class FinishedRow(Base):
    __tablename__ = "gn_finished"

    table_id: Mapped[str] = mapped_column(ForeignKey("gn_tables.id"), primary_key=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    players: Mapped[str] = mapped_column(Text)
    scores: Mapped[str] = mapped_column(Text)
    winners: Mapped[str] = mapped_column(Text)
    record: Mapped[str] = mapped_column(Text)
    """The ``gonuts-record/1`` text."""


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL and foreign keys, and is usable across threads."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url.removeprefix("postgres://")
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
        engine = create_engine(url, pool_pre_ping=True)
    Base.metadata.create_all(engine)
    return engine


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
