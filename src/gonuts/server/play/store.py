"""Storage of tables behind one interface: every SQL statement of the server is here.

:class:`TableStore` is what the service (:mod:`gonuts.server.play.service`) reads and writes; it
speaks in plain values (:class:`StoredTable`, :class:`StoredAction`), never ORM rows, so the
service does not know SQL and a test or another backend can stand in for it. The schema and
its migrations are :mod:`gonuts.server.kernel.db`. The store's methods are synchronous and
short (one
or two round trips); the service calls them between awaits, holding a table's lock where
order matters.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from sqlalchemy import delete, event, func, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from gonuts.server.kernel.db import (
    AccountRow,
    AccountSessionRow,
    ActionRow,
    FinishedRow,
    RatingRow,
    SeatRow,
    TableRow,
    current_revision,
    engine_origin,
    head_revision,
    libpq_url,
    make_engine,
    make_sessionmaker,
    utcnow,
)

Status = Literal["open", "playing", "finished"]
MAX_ID: Final = 32
"""Longest table id the schema holds: longer ids are unknown without asking the database."""
INSERT_ACTION: Final = insert(ActionRow)


@dataclass(frozen=True, slots=True)
class StoredSeat:
    seat: int
    kind: str
    """``human`` or ``bot``."""
    level: str | None = None
    name: str | None = None
    token_hash: str | None = None
    hints: bool = False
    replaced: bool = False
    account_id: int | None = None
    """The signed-in player's account (None: a guest or a bot)."""


@dataclass(frozen=True, slots=True)
class StoredTable:
    id: str
    status: str
    deck: tuple[str, ...]
    """The shuffled deck, top first (kind ids): secret, never sent to a client."""
    seats: tuple[StoredSeat, ...]
    created_at: datetime | None = None
    next_table: str | None = None
    variants: tuple[str, ...] = ()
    """House rules in canonical order (the ``variants`` column holds them comma-separated)."""
    clock: int | None = None
    """Seconds per pending human decision (the turn clock); None: no clock."""


@dataclass(frozen=True, slots=True)
class StoredAction:
    seq: int
    """0 for a game's first action."""
    seat: int
    notation: str
    client_id: str | None = None


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What is kept of a finished game for the replay list: the record is the whole game."""

    players: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    record: str


@dataclass(frozen=True, slots=True)
class GameListing:
    id: str
    players: list[str]
    scores: list[int]
    winners: list[int]
    finished_at: datetime


class ActionTakenError(Exception):
    """Another writer stored this action number (or this client id) first."""


CHECKPOINT_EVERY: Final = 1.0
"""Seconds between the background WAL checkpoints of a serving process (SQLite)."""

log = logging.getLogger("gonuts.server.play.store")


class TableStore:
    """Tables, seats, actions and finished games in one SQL database (SQLite or PostgreSQL)."""

    def __init__(self, url: str, *, migrate_schema: bool = True) -> None:
        self.engine: Engine = make_engine(url, migrate_schema=migrate_schema)
        self._autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._sessions = make_sessionmaker(self.engine)
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
                log.warning("WAL checkpoint failed", exc_info=True)

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

    # -- tables and seats -------------------------------------------------------------------------

    def create(self, table: StoredTable) -> None:
        """Store a new table and its seats (a seat with a token counts as seen now)."""
        with self._sessions() as s, s.begin():
            s.add(self._row(table))

    def create_next(self, table_id: str, new: StoredTable) -> tuple[str, bool]:
        """Store ``new`` as the table after ``table_id`` unless one is already there.

        One transaction with the finished table's row locked, so two players asking at once,
        even through two server processes, get one new table. (The next table's id, made now.)
        """
        with self._sessions() as s, s.begin():
            row = s.get(TableRow, table_id, with_for_update=True)
            if row is None:
                raise KeyError(table_id)
            if row.next_table is not None:
                return row.next_table, False
            s.add(self._row(new))
            row.next_table = new.id
            return new.id, True

    @staticmethod
    def _row(table: StoredTable) -> TableRow:
        now = utcnow()
        seats = [
            SeatRow(
                seat=x.seat,
                kind=x.kind,
                level=x.level,
                name=x.name,
                token_hash=x.token_hash,
                hints=x.hints,
                replaced=x.replaced,
                last_seen=now if x.token_hash is not None else None,
                account_id=x.account_id,
            )
            for x in table.seats
        ]
        return TableRow(
            id=table.id,
            players=len(seats),
            deck=json.dumps(list(table.deck)),
            status=table.status,
            seats=seats,
            variants=",".join(table.variants),
            clock=table.clock,
        )

    def load(self, table_id: str) -> StoredTable | None:
        """A table and its seats (without its actions: :meth:`actions_since`), or None."""
        if len(table_id) > MAX_ID:
            return None
        with self._sessions() as s:
            row = s.get(TableRow, table_id)
            if row is None:
                return None
            return StoredTable(
                id=row.id,
                status=row.status,
                deck=tuple(json.loads(row.deck)),
                seats=tuple(
                    StoredSeat(r.seat, r.kind, r.level, r.name, r.token_hash, r.hints, r.replaced)
                    for r in row.seats
                ),
                created_at=row.created_at,
                next_table=row.next_table,
                variants=tuple(v for v in (row.variants or "").split(",") if v),
                clock=row.clock,
            )

    def take_seat(
        self, table_id: str, seat: int, name: str, token_hash: str, account_id: int | None = None
    ) -> bool:
        """Give a free seat to a player (signed in: ``account_id``); False if someone took it
        first (another process)."""
        with self._sessions() as s, s.begin():
            row = s.get(SeatRow, (table_id, seat), with_for_update=True)
            if row is None or row.token_hash is not None:
                return False
            row.name, row.token_hash, row.last_seen = name, token_hash, utcnow()
            row.account_id = account_id
            return True

    def update_seat(
        self,
        table_id: str,
        seat: int,
        *,
        seen: bool = False,
        replaced: bool | None = None,
        hints: bool | None = None,
    ) -> None:
        """Set the seat's flags given (and, if ``seen``, that its player was seen now): one
        autocommitted UPDATE."""
        values: dict[str, object] = {"last_seen": utcnow()} if seen else {}
        if replaced is not None:
            values["replaced"] = replaced
        if hints is not None:
            values["hints"] = hints
        with self._autocommit.connect() as c:
            c.execute(
                update(SeatRow)
                .where(SeatRow.table_id == table_id, SeatRow.seat == seat)
                .values(**values)
            )

    def start(self, table_id: str) -> None:
        """Every seat is taken: the game is on."""
        with self._autocommit.connect() as c:
            c.execute(update(TableRow).where(TableRow.id == table_id).values(status="playing"))

    # -- actions ----------------------------------------------------------------------------------

    def actions_since(self, table_id: str, seq: int = 0) -> list[StoredAction]:
        """The table's actions from number ``seq`` on, in order: for loading (0) and for
        catching up with what other processes stored (the version this process has)."""
        with self._autocommit.connect() as c:
            rows = c.execute(
                select(ActionRow.seq, ActionRow.seat, ActionRow.notation, ActionRow.client_id)
                .where(ActionRow.table_id == table_id, ActionRow.seq >= seq)
                .order_by(ActionRow.seq)
            ).all()
        return [StoredAction(r.seq, r.seat, r.notation, r.client_id) for r in rows]

    def append_action(
        self, table_id: str, action: StoredAction, finished: FinishedGame | None = None
    ) -> None:
        """Store action number ``action.seq``; with ``finished``, the game's end with it.

        Raises :class:`ActionTakenError` if that number or that client id is already stored.
        """
        values = {
            "table_id": table_id,
            "seq": action.seq,
            "seat": action.seat,
            "notation": action.notation,
            "client_id": action.client_id,
        }
        try:
            if finished is None:
                # The hot path: one INSERT, atomic by itself, so autocommit: on PostgreSQL one
                # round trip instead of three (BEGIN, INSERT, COMMIT). Core, not the ORM.
                with self._autocommit.connect() as c:
                    c.execute(INSERT_ACTION, values)
                return
            with self._sessions() as s, s.begin():
                s.add(ActionRow(**values))
                s.flush()  # the action first: a conflict is reported as such
                row = s.get(TableRow, table_id)
                assert row is not None
                row.status = "finished"
                s.add(
                    FinishedRow(
                        table_id=table_id,
                        players=json.dumps(list(finished.players)),
                        scores=json.dumps(list(finished.scores)),
                        winners=json.dumps(list(finished.winners)),
                        record=finished.record,
                    )
                )
        except IntegrityError:
            raise ActionTakenError(f"{table_id} #{action.seq}") from None

    # -- listings and records ---------------------------------------------------------------------

    def table_ids(self, statuses: Sequence[str], limit: int = 100, offset: int = 0) -> list[str]:
        """Tables with one of these statuses, newest first, ``limit`` from ``offset`` on."""
        with self._autocommit.connect() as c:
            return list(
                c.scalars(
                    select(TableRow.id)
                    .where(TableRow.status.in_(statuses))
                    .order_by(TableRow.created_at.desc(), TableRow.id)
                    .limit(limit)
                    .offset(offset)
                ).all()
            )

    def finished_games(self, limit: int, offset: int) -> list[GameListing]:
        with self._sessions() as s:
            rows = s.scalars(
                select(FinishedRow)
                .order_by(FinishedRow.finished_at.desc())
                .limit(limit)
                .offset(offset)
            ).all()
            return [
                GameListing(
                    id=r.table_id,
                    players=json.loads(r.players),
                    scores=json.loads(r.scores),
                    winners=json.loads(r.winners),
                    finished_at=r.finished_at,
                )
                for r in rows
            ]

    def record(self, game_id: str) -> str | None:
        """The record of a finished game, or None (unknown, or not finished: :meth:`exists`)."""
        if len(game_id) > MAX_ID:
            return None
        with self._sessions() as s:
            row = s.get(FinishedRow, game_id)
            return row.record if row is not None else None

    def exists(self, table_id: str) -> bool:
        if len(table_id) > MAX_ID:
            return False
        with self._sessions() as s:
            return s.get(TableRow, table_id) is not None

    # -- accounts, sessions and ratings (gonuts.server.accounts) ---------------------------------

    def create_account(
        self, name: str, name_key: str, password_hash: str, mu: float, sigma: float
    ) -> int | None:
        """A new account's id; None if the (folded) name is taken."""
        try:
            with self._sessions() as s, s.begin():
                row = AccountRow(
                    name=name,
                    name_key=name_key,
                    password_hash=password_hash,
                    mu=mu,
                    sigma=sigma,
                    games=0,
                    wins=0,
                )
                s.add(row)
                s.flush()
                return row.id
        except IntegrityError:
            return None

    def credentials(self, name_key: str) -> tuple[int, str] | None:
        """The account id and password hash of a (folded) name, or None."""
        with self._autocommit.connect() as c:
            row = c.execute(
                select(AccountRow.id, AccountRow.password_hash).where(
                    AccountRow.name_key == name_key
                )
            ).first()
        return None if row is None else (row.id, row.password_hash)

    def set_password_hash(self, account_id: int, password_hash: str) -> None:
        """Store a rehashed password (the hasher's parameters changed since it was made)."""
        with self._autocommit.connect() as c:
            c.execute(
                update(AccountRow)
                .where(AccountRow.id == account_id)
                .values(password_hash=password_hash)
            )

    def account(self, account_id: int) -> StoredAccount | None:
        with self._sessions() as s:
            row = s.get(AccountRow, account_id)
            return None if row is None else _account(row)

    def account_by_key(self, name_key: str) -> StoredAccount | None:
        with self._sessions() as s:
            row = s.scalars(select(AccountRow).where(AccountRow.name_key == name_key)).first()
            return None if row is None else _account(row)

    def create_session(self, token_hash: str, account_id: int, expires_at: datetime) -> None:
        """A signed-in browser; expired sessions are dropped on the way."""
        now = utcnow()
        with self._sessions() as s, s.begin():
            s.execute(delete(AccountSessionRow).where(AccountSessionRow.expires_at <= now))
            s.add(
                AccountSessionRow(
                    token_hash=token_hash,
                    account_id=account_id,
                    created_at=now,
                    expires_at=expires_at,
                )
            )

    def session_account(self, token_hash: str) -> StoredAccount | None:
        """The account of an unexpired session, or None."""
        with self._sessions() as s:
            row = s.scalars(
                select(AccountRow)
                .join(AccountSessionRow, AccountSessionRow.account_id == AccountRow.id)
                .where(
                    AccountSessionRow.token_hash == token_hash,
                    AccountSessionRow.expires_at > utcnow(),
                )
            ).first()
            return None if row is None else _account(row)

    def delete_session(self, token_hash: str) -> None:
        with self._autocommit.connect() as c:
            c.execute(delete(AccountSessionRow).where(AccountSessionRow.token_hash == token_hash))

    def account_seat(self, table_id: str, account_id: int) -> int | None:
        """The seat ``account_id`` holds at ``table_id``, or None."""
        with self._autocommit.connect() as c:
            seat: int | None = c.scalar(
                select(SeatRow.seat).where(
                    SeatRow.table_id == table_id, SeatRow.account_id == account_id
                )
            )
        return seat

    def seat_account(self, table_id: str, seat: int) -> int | None:
        """The account sitting at a seat, or None (a guest, a bot, a free seat)."""
        with self._autocommit.connect() as c:
            account: int | None = c.scalar(
                select(SeatRow.account_id).where(SeatRow.table_id == table_id, SeatRow.seat == seat)
            )
        return account

    def rate_game(self, table_id: str, ranks: Sequence[int], rater: Rater) -> bool:
        """Rate a finished game once: ``rater`` gets every seat (accounts with their ratings
        before) and the ranks, and returns each account's new (mu, sigma); they are stored
        with the history rows in one transaction. False (nothing done) if the game was rated
        already or has fewer than two accounts."""
        with self._sessions() as s, s.begin():
            done = s.scalar(select(RatingRow.table_id).where(RatingRow.table_id == table_id))
            seats = s.scalars(
                select(SeatRow).where(SeatRow.table_id == table_id).order_by(SeatRow.seat)
            ).all()
            ids = sorted({x.account_id for x in seats if x.account_id is not None})
            if done is not None or len(ids) < 2 or len(seats) != len(ranks):
                return False
            accounts = {
                a.id: a
                for a in s.scalars(
                    select(AccountRow)
                    .where(AccountRow.id.in_(ids))
                    .order_by(AccountRow.id)
                    .with_for_update()
                ).all()
            }
            rated = [
                RatedSeat(
                    x.seat,
                    x.kind,
                    x.level,
                    x.account_id,
                    accounts[x.account_id].mu if x.account_id is not None else None,
                    accounts[x.account_id].sigma if x.account_id is not None else None,
                )
                for x in seats
            ]
            new = rater(rated, ranks)
            now = utcnow()
            for x in rated:
                if x.account_id is None:
                    continue
                row = accounts[x.account_id]
                mu, sigma = new[x.account_id]
                s.add(
                    RatingRow(
                        account_id=row.id,
                        table_id=table_id,
                        seat=x.seat,
                        rank=ranks[x.seat],
                        mu_before=row.mu,
                        sigma_before=row.sigma,
                        mu=mu,
                        sigma=sigma,
                        rated_at=now,
                    )
                )
                row.mu, row.sigma = mu, sigma
                row.games += 1
                row.wins += ranks[x.seat] == 1
            return True

    def leaderboard(self, limit: int, offset: int) -> tuple[list[StoredAccount], int]:
        """Accounts with a rated game, best first (by mu − 3σ), ``limit`` from ``offset``; and
        how many there are."""
        with self._sessions() as s:
            rated = AccountRow.games > 0
            total = s.scalar(select(func.count()).select_from(AccountRow).where(rated)) or 0
            rows = s.scalars(
                select(AccountRow)
                .where(rated)
                .order_by((AccountRow.mu - 3 * AccountRow.sigma).desc(), AccountRow.name_key)
                .limit(limit)
                .offset(offset)
            ).all()
            return [_account(r) for r in rows], int(total)

    def rating_history(self, account_id: int, limit: int) -> list[RatingChange]:
        """The account's last ``limit`` rating changes, oldest first."""
        with self._sessions() as s:
            rows = s.scalars(
                select(RatingRow)
                .where(RatingRow.account_id == account_id)
                .order_by(RatingRow.rated_at.desc(), RatingRow.table_id)
                .limit(limit)
            ).all()
            return [
                RatingChange(
                    r.table_id, r.rated_at, r.rank, r.mu_before, r.sigma_before, r.mu, r.sigma
                )
                for r in reversed(rows)
            ]

    def account_games(self, account_id: int, limit: int) -> list[AccountGame]:
        """The account's last ``limit`` finished games (rated or not), newest first."""
        with self._autocommit.connect() as c:
            rows = c.execute(
                select(
                    FinishedRow.table_id,
                    FinishedRow.finished_at,
                    FinishedRow.players,
                    FinishedRow.scores,
                    FinishedRow.winners,
                    SeatRow.seat,
                    RatingRow.mu_before,
                    RatingRow.sigma_before,
                    RatingRow.mu,
                    RatingRow.sigma,
                )
                .join(SeatRow, SeatRow.table_id == FinishedRow.table_id)
                .outerjoin(
                    RatingRow,
                    (RatingRow.table_id == FinishedRow.table_id)
                    & (RatingRow.account_id == account_id),
                )
                .where(SeatRow.account_id == account_id)
                .order_by(FinishedRow.finished_at.desc(), FinishedRow.table_id)
                .limit(limit)
            ).all()
        return [
            AccountGame(
                id=r.table_id,
                finished_at=r.finished_at,
                players=json.loads(r.players),
                scores=json.loads(r.scores),
                winners=json.loads(r.winners),
                seat=r.seat,
                before=None if r.mu_before is None else (r.mu_before, r.sigma_before),
                after=None if r.mu is None else (r.mu, r.sigma),
            )
            for r in rows
        ]


@dataclass(frozen=True, slots=True)
class StoredAccount:
    id: int
    name: str
    mu: float
    sigma: float
    games: int
    wins: int
    created_at: datetime


def _account(row: AccountRow) -> StoredAccount:
    return StoredAccount(row.id, row.name, row.mu, row.sigma, row.games, row.wins, row.created_at)


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """A seat of a game being rated: an account's rating before it, or a guest's or bot's."""

    seat: int
    kind: str
    level: str | None
    account_id: int | None
    mu: float | None
    sigma: float | None


Rater = Callable[[Sequence[RatedSeat], Sequence[int]], dict[int, tuple[float, float]]]
"""Seats and their ranks → each account's new (mu, sigma):
:func:`gonuts.server.accounts.ratings.rate`."""


@dataclass(frozen=True, slots=True)
class RatingChange:
    table_id: str
    rated_at: datetime
    rank: int
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class AccountGame:
    id: str
    finished_at: datetime
    players: list[str]
    scores: list[int]
    winners: list[int]
    seat: int
    before: tuple[float, float] | None
    """(mu, sigma) before the game, if it was rated."""
    after: tuple[float, float] | None


def with_account(table: StoredTable, seat: int, account_id: int) -> StoredTable:
    """``table`` with ``seat`` linked to a signed-in player's account (a table being made)."""
    seats = tuple(
        dataclasses.replace(x, account_id=account_id) if x.seat == seat else x for x in table.seats
    )
    return dataclasses.replace(table, seats=seats)
