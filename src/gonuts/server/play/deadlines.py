"""Turn-based tables' deadlines: absolute times in the database, not this process's memory.

A table whose clock is :data:`~gonuts.server.play.clock.TURN_BASED` (an hour) or more is
turn-based: a player has hours or days for each decision, and nobody is expected to stay
connected. Each pending human decision's deadline is a row of ``gn_deadlines`` (migration
0010): written when the decision becomes pending, kept by whichever process loads the table
later (a restart, a deploy, another process), deleted when it is decided. The sweeper
(:mod:`gonuts.server.play.sweeper`) finds the rows that are due even when no process holds
their table. Whoever writes a new deadline also stores the notification fact (``gn_outbox``,
kind ``turn``) for the seat's account: once per decision, whoever writes it first; the
dispatcher (:mod:`gonuts.server.notify.dispatch`) tells it.

One process drives a turn-based table: only it times the table's decisions out and moves its
bots. It holds the table's lease (a ``gn_table_drivers`` row, migration 0012: its origin and
until when), claimed by whoever makes, loads or moves the table first when no other live
process has it, renewed by its sweeper, let go when the table leaves memory and at shutdown
(the others take it over at once), and taken by another process once it has run out (a
process killed outright). The others may hold the table too (its players' requests land
anywhere): they apply their players' moves and follow the driver's through the relay, but
start no timer and no bot for it. Two processes used to time every decision out and move
every bot twice, one of each pair refused by the database (issue 27's soak).

A real-time table (a shorter clock) keeps today's deadlines in memory (:mod:`~.clock`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable
from datetime import datetime, timedelta
from typing import Any, Final, Protocol

from sqlalchemy import and_, delete, exists, literal, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from gonuts.game import Game
from gonuts.server.kernel.db import (
    Database,
    DeadlineRow,
    DriverRow,
    OutboxRow,
    SeatRow,
    TableRow,
    utcnow,
)
from gonuts.server.play.clock import TURN_BASED, ClockHub, TurnClock
from gonuts.server.play.live import LiveTable

log = logging.getLogger("gonuts.server.clock")

ENDED: Final = -1
"""The decision of an ``ended`` fact (one per account seat and game)."""
DRIVE_FOR: Final = 15.0
"""Seconds (real) a process's lease on a turn-based table runs: renewed every
:data:`RENEW_EVERY` while the process lives, let go at shutdown and when the table leaves
memory; a process killed outright holds its tables this long at most."""
RENEW_EVERY: Final = 5.0
DRIVE_RETRY: Final = 5.0
"""Seconds before a process that found a table driven by another asks again (on its own:
the sweeper asks every pass for the tables whose deadlines are due)."""


def turn_based(clock: int | None) -> bool:
    """Whether a table with this clock is turn-based (deadlines in the database)."""
    return clock is not None and clock >= TURN_BASED


def iso(at: datetime) -> str:
    """A naive UTC time (as the database keeps it) in ISO 8601 with its ``Z``."""
    return (
        at.replace(microsecond=(at.microsecond // 1000) * 1000).isoformat(timespec="milliseconds")
        + "Z"
    )


def deadline_times(table: LiveTable) -> dict[str, str]:
    """When each human seat that must decide runs out, as ISO UTC times, by seat: what a
    turn-based table's ``state`` carries beside the seconds left (``{}``: a real-time table)."""
    if not turn_based(table.clock) or not table.deadlines:
        return {}
    walls = table.deadlines_at
    return {str(seat): iso(walls[seat]) for seat in sorted(table.deadlines) if seat in walls}


class DeadlineBook:
    """The SQL of ``gn_deadlines`` and of the facts ``gn_outbox`` is given by play."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _insert(self, table: Any) -> Any:
        """An INSERT that does nothing on a conflict (``ON CONFLICT DO NOTHING``)."""
        dialect = postgresql if self.db.dialect == "postgresql" else sqlite
        return dialect.insert(table).on_conflict_do_nothing()

    def pending(
        self, table_id: str, seat: int, decision: int, due_at: datetime, round_: int = 0
    ) -> datetime | None:
        """``seat``'s decision ``decision`` is pending, due at ``due_at`` unless a row for it is
        there already (another process, before a restart): the due time that stands, or None
        if the row is for a later decision (this process is behind). A new decision also
        stores the seat's account's ``turn`` fact. Autocommitted statements, each safe when
        several processes run them at once (one round trip when the decision is new)."""
        dialect = postgresql if self.db.dialect == "postgresql" else sqlite
        insert = dialect.insert(DeadlineRow).values(
            table_id=table_id, seat=seat, decision=decision, due_at=due_at
        )
        upsert = insert.on_conflict_do_update(  # (a later decision replaces an earlier one)
            index_elements=[DeadlineRow.table_id, DeadlineRow.seat],
            set_={"decision": insert.excluded.decision, "due_at": insert.excluded.due_at},
            where=DeadlineRow.decision < insert.excluded.decision,
        ).returning(DeadlineRow.seat)
        with self.db.autocommit.connect() as c:
            # (RETURNING: psycopg's rowcount of ON CONFLICT is not 1)
            new = c.execute(upsert).first()
            if new is not None:
                self._fact(c, table_id, decision, "turn", seat=seat, round_=round_)
                return due_at
            row = c.execute(
                select(DeadlineRow.decision, DeadlineRow.due_at).where(
                    DeadlineRow.table_id == table_id, DeadlineRow.seat == seat
                )
            ).first()
        if row is None or row.decision != decision:
            return None
        at: datetime = row.due_at
        return at

    def _fact(
        self, c: Any, table_id: str, decision: int, kind: str, *, seat: int | None, round_: int
    ) -> None:
        """The outbox fact of each account seat (``seat``: that one only), once; ``round_``:
        the game's round then."""
        where = [SeatRow.table_id == table_id, SeatRow.account_id.is_not(None)]
        if seat is not None:
            where.append(SeatRow.seat == seat)
        names = ["account_id", "table_id", "seat", "decision", "kind", "round", "created_at"]
        rows = select(
            SeatRow.account_id,
            SeatRow.table_id,
            SeatRow.seat,
            literal(decision),
            literal(kind),
            literal(round_),
            literal(utcnow()),
        ).where(*where)
        c.execute(self._insert(OutboxRow).from_select(names, rows))

    def decided(self, table_id: str, seat: int, decision: int) -> None:
        """``seat``'s decision ``decision`` (or an earlier one) is made: its row goes."""
        with self.db.autocommit.connect() as c:
            c.execute(
                delete(DeadlineRow).where(
                    DeadlineRow.table_id == table_id,
                    DeadlineRow.seat == seat,
                    DeadlineRow.decision <= decision,
                )
            )

    def clear(self, table_id: str) -> None:
        """No decision of the table is pending (its game is over)."""
        with self.db.autocommit.connect() as c:
            c.execute(delete(DeadlineRow).where(DeadlineRow.table_id == table_id))

    def ended(self, table_id: str, round_: int = 0) -> None:
        """A turn-based table's game ended (in round ``round_``): an ``ended`` fact per account
        seat (once)."""
        with self.db.autocommit.connect() as c:
            clock = c.scalar(select(TableRow.clock).where(TableRow.id == table_id))
            if turn_based(clock):
                self._fact(c, table_id, ENDED, "ended", seat=None, round_=round_)

    def _free(self, now: datetime) -> Any:
        """No other process drives the table (no lease, this one's, or one run out); the
        caller's query is outer-joined to ``gn_table_drivers``."""
        return or_(
            DriverRow.table_id.is_(None), DriverRow.origin == self.origin, DriverRow.until < now
        )

    def due(self, now: datetime, limit: int) -> list[tuple[str, int, int]]:
        """The deadlines passed by ``now`` of the tables no other live process drives,
        earliest first, at most ``limit``: (table, seat, decision). An index range scan
        (``ix_gn_deadlines_due``)."""
        with self.db.autocommit.connect() as c:
            rows = c.execute(
                select(DeadlineRow.table_id, DeadlineRow.seat, DeadlineRow.decision)
                .outerjoin(DriverRow, DriverRow.table_id == DeadlineRow.table_id)
                .where(DeadlineRow.due_at <= now, self._free(now))
                .order_by(DeadlineRow.due_at)
                .limit(limit)
            ).all()
        return [(r.table_id, r.seat, r.decision) for r in rows]

    def orphans(self, limit: int, now: datetime | None = None) -> list[str]:
        """Turn-based games being played with no deadline stored and no other live process
        driving them: bots to move, or a process stopped between a move and its next
        deadline. Someone must load them."""
        now = utcnow() if now is None else now
        has_row = exists().where(DeadlineRow.table_id == TableRow.id)
        with self.db.autocommit.connect() as c:
            return list(
                c.scalars(
                    select(TableRow.id)
                    .outerjoin(DriverRow, DriverRow.table_id == TableRow.id)
                    .where(and_(TableRow.status == "playing", TableRow.clock >= TURN_BASED))
                    .where(~has_row, self._free(now))
                    .limit(limit)
                )
            )

    # -- which process drives a table: leases (``gn_table_drivers``, migration 0012) ---------

    @property
    def origin(self) -> str:
        return self.db.origin

    def drive(self, table_ids: Iterable[str], until: datetime) -> set[str]:
        """Claim the tables no other live process drives, until ``until``: the ones this
        process drives now. One statement; two processes claiming the same table at once:
        one gets it (on PostgreSQL the second waits for the first's row, then finds it
        taken)."""
        wanted = sorted(set(table_ids))  # (one order: no deadlock between two claimers)
        if not wanted:
            return set()
        now = utcnow()
        dialect = postgresql if self.db.dialect == "postgresql" else sqlite
        insert = dialect.insert(DriverRow).values(
            [{"table_id": t, "origin": self.origin, "until": until} for t in wanted]
        )
        claim = insert.on_conflict_do_update(
            index_elements=[DriverRow.table_id],
            set_={"origin": insert.excluded.origin, "until": insert.excluded.until},
            where=or_(DriverRow.origin == insert.excluded.origin, DriverRow.until < now),
        ).returning(DriverRow.table_id)
        with self.db.autocommit.connect() as c:
            return {str(t) for t in c.scalars(claim)}

    def renew(self, until: datetime) -> set[str]:
        """Every lease of this process runs until ``until`` now: the tables it still drives
        (one that ran out and another process took is not among them)."""
        with self.db.autocommit.connect() as c:
            return {
                str(t)
                for t in c.scalars(
                    update(DriverRow)
                    .where(DriverRow.origin == self.origin)
                    .values(until=until)
                    .returning(DriverRow.table_id)
                )
            }

    def release(self, table_ids: Collection[str] | None = None) -> None:
        """Let these tables go (None: all of this process's): another process may take them
        at once."""
        where = [DriverRow.origin == self.origin]
        if table_ids is not None:
            if not table_ids:
                return
            where.append(DriverRow.table_id.in_(sorted(table_ids)))
        with self.db.autocommit.connect() as c:
            c.execute(delete(DriverRow).where(*where))


class DurableHub(ClockHub, Protocol):
    """What the durable clock needs besides the clock's hub: the finished-game hooks."""

    on_finished: list[Callable[[str, Game], object]]


class DurableClock(TurnClock):
    """The turn clock with turn-based tables' deadlines in the database (:class:`DeadlineBook`).

    A deadline read back from the database is turned into this process's monotonic clock, so
    the timers and the timeouts are the base class's; the absolute time is kept on the table
    (``LiveTable.deadlines_at``) for the clients."""

    def __init__(self, hub: DurableHub, *, scale: float = 1.0) -> None:
        super().__init__(hub, scale=scale)
        self.book = DeadlineBook(hub.store)
        hub.on_finished.append(self.finished)
        self.driving: set[str] = set()
        """The turn-based tables this process drives (holds the lease of): only here do
        their deadlines time out and their bots move."""
        self._asked: dict[str, float] = {}
        """When this process last found a table driven by another (monotonic)."""

    # -- one driver per turn-based table -----------------------------------------------------

    def drives(self, table: LiveTable) -> bool:
        """Whether this process runs ``table``'s timeouts and bots: any real-time table; a
        turn-based one whose lease it holds or can take now (asked at most every
        :data:`DRIVE_RETRY` s while another process has it)."""
        if not turn_based(table.clock) or table.id in self.driving:
            return True
        now = time.monotonic()
        if now - self._asked.get(table.id, float("-inf")) < DRIVE_RETRY:
            return False
        return bool(self.take([table.id]))

    def take(self, table_ids: Collection[str]) -> set[str]:
        """Claim the leases of these turn-based tables where no other live process holds
        them: the ones this process drives now (and, for those it holds, its clock is armed
        afresh by the caller: :meth:`rearm`)."""
        try:
            got = self.book.drive(table_ids, utcnow() + timedelta(seconds=DRIVE_FOR))
        except Exception:  # (the database is away: ask again later)
            log.exception("claiming turn-based tables failed")
            got = set()
        now = time.monotonic()
        for table_id in table_ids:
            if table_id in got:
                self._asked.pop(table_id, None)
            else:
                self._asked[table_id] = now
        self.driving |= got
        return got

    def renew(self) -> set[str]:
        """Extend this process's leases: the tables it no longer drives (another process took
        them after a stall longer than the lease); their timers stop (:meth:`rearm`)."""
        mine = self.book.renew(utcnow() + timedelta(seconds=DRIVE_FOR))
        lost = self.driving - mine
        self.driving = mine
        return lost

    def rearm(self, table: LiveTable) -> None:
        """Arm ``table``'s clock afresh (this process began or stopped driving it)."""
        self._watch(table).armed = None
        self.arm(table)

    def forget(self, table: LiveTable) -> None:
        super().forget(table)
        self._asked.pop(table.id, None)
        if table.id in self.driving:
            self.driving.discard(table.id)
            try:
                self.book.release([table.id])
            except Exception:  # (its lease runs out by itself)
                log.exception("letting table %s go failed", table.id)

    def close(self) -> None:
        super().close()
        if self.driving:
            self.driving.clear()
            try:  # (at once: the other processes take the tables over)
                self.book.release()
            except Exception:
                log.exception("letting the turn-based tables go failed")

    def due(self, table: LiveTable, seat: int, key: int, now: float) -> float:
        if not turn_based(table.clock):
            return super().due(table, seat, key, now)
        wall = utcnow()
        mine = wall + timedelta(seconds=self.seconds(table))
        try:
            round_ = table.game.round if table.game is not None else 0
            at = self.book.pending(table.id, seat, key, mine, round_) or mine
        except Exception:  # (the database is away: keep it in memory until it is back)
            log.exception("storing the deadline of table %s seat %s failed", table.id, seat)
            at = mine
        table.deadlines_at[seat] = at
        return time.monotonic() + (at - utcnow()).total_seconds()

    def dropped(self, table: LiveTable, seat: int | None, key: int | None) -> None:
        if not turn_based(table.clock):
            return
        try:
            if seat is None:
                table.deadlines_at.clear()
                self.book.clear(table.id)
            else:
                table.deadlines_at.pop(seat, None)
                if key is not None:
                    self.book.decided(table.id, seat, key)
        except Exception:  # (the sweeper finds a stale row and drops it later)
            log.exception("dropping a deadline of table %s failed", table.id)

    def finished(self, table_id: str, game: Game) -> None:
        """A game ended here (the one process that stored its last action): ``ended`` facts."""
        try:
            self.book.ended(table_id, game.round)
        except Exception:
            log.exception("storing the end of table %s for notifications failed", table_id)


def idle_turn_based(table: LiveTable) -> bool:
    """Whether a turn-based game may leave memory: nothing of it runs here (its deadlines are
    in the database; the sweeper loads it again when one is due, a player when they come)."""
    bots = table.bot_task
    return (
        table.status == "playing"
        and turn_based(table.clock)
        and (bots is None or bots.done())
        and not any(not t.done() for t in table.replace_tasks.values())
    )
