"""Storage through SQLAlchemy 2: engines, migrations, faults, and the :class:`Database` base of
every feature's store (the rows themselves are in :mod:`gonuts.server.kernel.rows`).

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
import logging
import os
import secrets
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Final

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import (
    create_engine,
    event,
    func,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import URL, Engine, ExceptionContext, make_url
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError
from sqlalchemy.orm import (
    Session,
    sessionmaker,
)

from gonuts.server.kernel.errors import DatabaseUnavailableError
from gonuts.server.kernel.rows import (
    AccountRow,
    AccountSessionRow,
    ActionRow,
    Base,
    ChatRow,
    DeadlineRow,
    DriverRow,
    FinishedRow,
    NotifySettingsRow,
    OutboxRow,
    PlayNowRow,
    ProcessRow,
    PushSubscriptionRow,
    RatingRow,
    ReviewRow,
    RoomRow,
    SeatRow,
    SecretRow,
    TableRow,
    hash_token,
    utcnow,
)

__all__ = [  # the rows, re-exported: every store imports them from here
    "AccountRow",
    "AccountSessionRow",
    "ActionRow",
    "Base",
    "ChatRow",
    "DeadlineRow",
    "DriverRow",
    "FinishedRow",
    "NotifySettingsRow",
    "OutboxRow",
    "PlayNowRow",
    "ProcessRow",
    "PushSubscriptionRow",
    "RatingRow",
    "ReviewRow",
    "RoomRow",
    "SeatRow",
    "SecretRow",
    "TableRow",
    "hash_token",
    "utcnow",
]

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


SQLITE_BUSY_TIMEOUT: Final = 2.0
"""Seconds a SQLite write waits for a lock another connection holds (a backup, the ``sqlite3``
shell) before it is refused as ``database_unavailable`` (Python's default is 5 s: the
event loop waits with it)."""
PG_CONNECT_TIMEOUT: Final = 3
"""Seconds a new PostgreSQL connection may take (a server that went away answers nothing)."""
UNAVAILABLE_STATES: Final = ("08", "53", "57P", "25006", "55P03", "40")
"""PostgreSQL SQLSTATE prefixes of a database that cannot serve now: connection lost, out of
resources (disk full, too many connections), shut down, read-only, lock timeout, deadlock."""


def unavailable_reason(exc: BaseException) -> str | None:
    """Why a driver error means the database cannot serve now (the ``detail`` of
    :class:`~gonuts.server.kernel.errors.DatabaseUnavailableError`), or None for any other error
    (a constraint, a bug: those stay what they are)."""
    if isinstance(exc, IntegrityError):
        return None
    orig = getattr(exc, "orig", None)
    state = str(getattr(orig, "sqlstate", "") or getattr(orig, "pgcode", "") or "")
    text_ = str(orig if orig is not None else exc).lower()
    if isinstance(exc, (OperationalError, InterfaceError)) or state.startswith(UNAVAILABLE_STATES):
        for words, reason in (
            (("disk is full", "disk full", "no space"), "disk full"),
            (("readonly", "read-only"), "read-only"),
            (("locked", "busy", "lock timeout", "lock not available"), "locked"),
        ):
            if any(w in text_ for w in words):
                return f"database {reason}"
        return f"database unreachable ({type(orig or exc).__name__})"
    return None


def _unavailable(context: ExceptionContext) -> Exception | None:
    """The engine's ``handle_error`` hook: a driver error that means "not now" becomes a
    :class:`DatabaseUnavailableError` (503 with ``Retry-After``, an ``error`` message on a socket)
    wherever it happens: a move's INSERT, a commit, a connection that could not be made."""
    exc = context.sqlalchemy_exception
    reason = unavailable_reason(exc if exc is not None else context.original_exception)
    if reason is None:
        return None
    now = time.monotonic()
    if now - _LOGGED.get(reason, -LOG_EVERY) >= LOG_EVERY:  # (an outage is not a log flood)
        _LOGGED[reason] = now
        store_log.warning("%s: %s", reason, context.original_exception)
    return DatabaseUnavailableError(reason)


PG_RECYCLE: Final = 1800
"""Seconds after which a pooled PostgreSQL connection is replaced (idle-connection killers
in front of the database, such as a proxy's idle timeout, are usually longer)."""
LOG_EVERY: Final = 5.0
"""Seconds between two log lines of one kind of database fault (every refusal raises one)."""
_LOGGED: dict[str, float] = {}


def make_engine(url: str, *, migrate_schema: bool = True, origin: str | None = None) -> Engine:
    """An engine for ``url``, its schema migrated to the newest revision.

    SQLite gets WAL and foreign keys, and is usable across threads. On both, a driver error
    that means the database cannot serve now is raised as
    :class:`~gonuts.server.kernel.errors.DatabaseUnavailableError` (:func:`unavailable_reason`).
    ``origin`` (hex): who its connections are (``application_name``), a new one by default.
    """
    url = normalize_url(url)
    origin = origin or secrets.token_hex(8)
    if url.startswith("sqlite"):
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT}
        )

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: object, _record: object) -> None:
            cursor = dbapi_conn.cursor()  # type: ignore[attr-defined]
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

    else:
        # No ``pool_pre_ping``: its round trip on every checkout was a fifth of the event
        # loop's time under load (docs/loadtest.md, "Scale-out"). A connection the database
        # dropped fails its statement instead, which SQLAlchemy takes as a disconnect: it
        # invalidates the whole pool, the request gets ``database_unavailable`` (503,
        # ``Retry-After``) and the next one connects afresh (tests/web/test_faults.py).
        engine = create_engine(
            url,
            pool_recycle=PG_RECYCLE,
            connect_args={
                "application_name": f"gonuts:{origin}",
                "connect_timeout": PG_CONNECT_TIMEOUT,
            },
        )
    event.listen(engine, "handle_error", _unavailable)
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

MIN_FREE_BYTES: Final = 1 << 20
"""Free space the SQLite file's disk needs for the server to say it is ready (``/readyz``)."""

store_log = logging.getLogger("gonuts.server.store")


class Database:
    """One SQL database (SQLite or PostgreSQL) and its engine: what every feature's store
    (``play/store.py``, ``games/store.py``, ``accounts/store.py``) is built on. ``autocommit``
    runs one statement at a time, ``sessions`` opens ORM sessions."""

    def __init__(self, url: str, *, migrate_schema: bool = True) -> None:
        self.engine: Engine = make_engine(url, migrate_schema=migrate_schema)
        self.autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self.sessions = make_sessionmaker(self.engine)
        self._relaxed: Engine | None = None
        if self.dialect == "postgresql":
            self._relaxed = make_engine(
                url, migrate_schema=False, origin=self.origin.removeprefix("gonuts:")
            )

            @event.listens_for(self._relaxed, "connect")
            def _async_commits(dbapi_conn: Any, _record: object) -> None:
                with dbapi_conn.cursor() as cursor:
                    cursor.execute("SET synchronous_commit TO off")
                dbapi_conn.commit()

        self.bookkeeping = (
            self._relaxed.execution_options(isolation_level="AUTOCOMMIT")
            if self._relaxed is not None
            else self.autocommit
        )
        """Autocommitted statements whose loss in a crash of the database server itself
        costs nothing that cannot be rebuilt: turn-based deadlines and the ``turn`` facts
        stored with them (the game says again what is pending, with a fresh clock, and the
        fact is stored and told then), leases and heartbeats (they run out). On PostgreSQL
        their commits do not wait for the write-ahead log to reach the disk
        (``synchronous_commit = off``, their own connections): up to three WAL-writer delays
        of them may be lost in such a crash, never a half-done one, and every other session
        still sees them at once. Moves, accounts, the other facts and what was told keep
        waiting (``autocommit``, ``sessions``). The turn-based soak's servers spent much of
        their time waiting for these commits (issue 27)."""
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
        failing = False
        while not self._stop_checkpoints.wait(every):
            try:
                with self.engine.connect() as c:
                    c.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
                failing = False
            except Exception:  # (the next one may succeed; a long WAL only slows reads)
                if not failing:  # once per outage (a full disk fails every second)
                    store_log.warning("WAL checkpoint failed", exc_info=True)
                failing = True

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
        if self._relaxed is not None:
            self._relaxed.dispose()
        self.engine.dispose()

    def readiness(self) -> str | None:
        """Why the database cannot serve now (unreachable, schema behind; SQLite: cannot
        write), or None."""
        try:
            have = current_revision(self.engine)
        except DatabaseUnavailableError as exc:
            return str(exc.detail)
        except Exception as exc:  # any driver error means "not reachable"
            return f"database unreachable: {type(exc).__name__}"
        want = head_revision()
        if have != want:
            return f"schema at revision {have or 'none'}; this server needs {want}"
        if self.dialect == "sqlite":
            return self.sqlite_writable()
        return None

    def sqlite_writable(self) -> str | None:
        """Why this SQLite database cannot store a move now (full, read-only, locked), or None.

        A read-only file and a lock held elsewhere show in a write that is rolled back; a
        full disk does not (the write-ahead log reuses its space after a checkpoint, so some
        commits still succeed while others fail): its directory needs :data:`MIN_FREE_BYTES`.
        """
        database = self.engine.url.database
        if not database or database == ":memory:" or database.startswith("file:"):
            return None
        folder = os.path.dirname(os.path.abspath(database))
        try:
            fs = os.statvfs(folder)
        except OSError as exc:
            return f"database folder unreachable: {exc.strerror}"
        free = (fs.f_bfree if os.geteuid() == 0 else fs.f_bavail) * fs.f_frsize
        if free < MIN_FREE_BYTES:
            return f"database disk full ({free} bytes free)"
        try:
            with self.engine.connect() as c:
                c.exec_driver_sql("UPDATE alembic_version SET version_num = version_num")
                c.rollback()
        except DatabaseUnavailableError as exc:
            return str(exc.detail)
        except Exception as exc:
            return f"database cannot write: {type(exc).__name__}"
        return None
