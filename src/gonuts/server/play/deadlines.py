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
bots (:mod:`~gonuts.server.play.drivers`).

A real-time table (a shorter clock) keeps today's deadlines in memory (:mod:`~.clock`).
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Collection, Mapping
from datetime import datetime, timedelta
from typing import Any, Final, Protocol

from sqlalchemy import and_, case, delete, exists, literal, or_, select
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
from gonuts.server.play.drivers import DRIVE_FOR, DRIVE_RETRY, DriverBook
from gonuts.server.play.live import LiveTable

log = logging.getLogger("gonuts.server.clock")

ENDED: Final = -1
"""The decision of an ``ended`` fact (one per account seat and game)."""


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
        self, table_id: str, decisions: Mapping[int, int], due_at: datetime, round_: int = 0
    ) -> dict[int, datetime | None]:
        """Each seat's decision of ``decisions`` (seat -> decision) is pending, due at
        ``due_at`` unless a row for it is there already (another process, before a restart):
        by seat, the due time that stands, or None if the row is for a later decision (this
        process is behind). A new decision also stores the seat's account's ``turn`` fact.
        Autocommitted statements, each safe when several processes run them at once: two
        round trips for all the seats whose decisions are new (a round's picks: four seats),
        one more for those already stored."""
        if not decisions:
            return {}
        dialect = postgresql if self.db.dialect == "postgresql" else sqlite
        insert = dialect.insert(DeadlineRow).values(
            [
                {"table_id": table_id, "seat": seat, "decision": d, "due_at": due_at}
                for seat, d in sorted(decisions.items())
            ]
        )
        upsert = insert.on_conflict_do_update(  # (a later decision replaces an earlier one)
            index_elements=[DeadlineRow.table_id, DeadlineRow.seat],
            set_={"decision": insert.excluded.decision, "due_at": insert.excluded.due_at},
            where=DeadlineRow.decision < insert.excluded.decision,
        ).returning(DeadlineRow.seat)
        found: dict[int, datetime | None] = {}
        with self.db.bookkeeping.connect() as c:
            # (RETURNING: psycopg's rowcount of ON CONFLICT is not 1)
            new = {int(seat) for seat in c.scalars(upsert)}
            if new:
                self._facts(c, table_id, {s: decisions[s] for s in new}, round_)
                found = dict.fromkeys(new, due_at)
            old = sorted(set(decisions) - new)
            if old:
                rows = c.execute(
                    select(DeadlineRow.seat, DeadlineRow.decision, DeadlineRow.due_at).where(
                        DeadlineRow.table_id == table_id, DeadlineRow.seat.in_(old)
                    )
                ).all()
                stored = {int(r.seat): (int(r.decision), r.due_at) for r in rows}
                for seat in old:
                    d, at = stored.get(seat, (None, None))
                    found[seat] = at if d == decisions[seat] else None
        return found

    def _facts(self, c: Any, table_id: str, decisions: Mapping[int, int], round_: int) -> None:
        """The ``turn`` facts of the account seats among ``decisions`` (seat -> decision),
        once each: one statement."""
        names = ["account_id", "table_id", "seat", "decision", "kind", "round", "created_at"]
        rows = select(
            SeatRow.account_id,
            SeatRow.table_id,
            SeatRow.seat,
            case(dict(decisions), value=SeatRow.seat),
            literal("turn"),
            literal(round_),
            literal(utcnow()),
        ).where(
            SeatRow.table_id == table_id,
            SeatRow.account_id.is_not(None),
            SeatRow.seat.in_(sorted(decisions)),
        )
        c.execute(self._insert(OutboxRow).from_select(names, rows))

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
        with self.db.bookkeeping.connect() as c:
            c.execute(
                delete(DeadlineRow).where(
                    DeadlineRow.table_id == table_id,
                    DeadlineRow.seat == seat,
                    DeadlineRow.decision <= decision,
                )
            )

    def clear(self, table_id: str) -> None:
        """No decision of the table is pending (its game is over)."""
        with self.db.bookkeeping.connect() as c:
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
            DriverRow.table_id.is_(None), DriverRow.origin == self.db.origin, DriverRow.until < now
        )

    def due(self, now: datetime, limit: int) -> list[tuple[str, int, int, datetime]]:
        """The deadlines passed by ``now`` of the tables no other live process drives,
        earliest first, at most ``limit``: (table, seat, decision, due at). An index range
        scan (``ix_gn_deadlines_due``)."""
        with self.db.autocommit.connect() as c:
            rows = c.execute(
                select(
                    DeadlineRow.table_id,
                    DeadlineRow.seat,
                    DeadlineRow.decision,
                    DeadlineRow.due_at,
                )
                .outerjoin(DriverRow, DriverRow.table_id == DeadlineRow.table_id)
                .where(DeadlineRow.due_at <= now, self._free(now))
                .order_by(DeadlineRow.due_at)
                .limit(limit)
            ).all()
        return [(r.table_id, r.seat, r.decision, r.due_at) for r in rows]

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
        self.drivers = DriverBook(hub.store)
        hub.on_finished.append(self.finished)
        self.driving: set[str] = set()
        """The turn-based tables this process drives (holds the lease of): only here do
        their deadlines time out and their bots move."""
        self._asked: dict[str, float] = {}
        """When this process last found a table driven by another (monotonic)."""
        self.peers: tuple[str, ...] = ()
        """The server processes alive on the database at the last renewal (``()``: none
        known yet, this one prefers every table)."""
        self.stopped = False
        """This process is shutting down (:meth:`stop`): it takes no lease any more. A task
        cancelled at shutdown may still arm a clock on its way out; a lease taken then would
        keep the table from the other processes (and from this one's successor) for
        :data:`~gonuts.server.play.drivers.DRIVE_FOR` s."""

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
        afresh by the caller: :meth:`rearm`). None once the process is stopping."""
        if self.stopped:
            return set()
        try:
            got = self.drivers.drive(table_ids, utcnow() + timedelta(seconds=DRIVE_FOR))
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

    def owner(self, table_id: str) -> str:
        """The live process ``table_id`` falls to (rendezvous hashing: an even share each,
        and few tables move when a process comes or goes)."""
        if len(self.peers) < 2:
            return self.drivers.origin
        return max(self.peers, key=lambda o: zlib.crc32(f"{o}/{table_id}".encode()))

    def preferred(self, table_id: str) -> bool:
        """Whether ``table_id`` falls to this process."""
        return self.owner(table_id) == self.drivers.origin

    def renew(self, tables: Mapping[str, LiveTable]) -> tuple[set[str], set[str]]:
        """Say this process is alive, extend its leases, and hand the idle tables that fall
        to another live process over to it: (the tables it drives now and did not, those it
        no longer drives). Their clocks are to be armed afresh (:meth:`rearm`), the new ones
        loaded if not held."""
        if self.stopped:  # (its row and leases are gone for good)
            return set(), set()
        until = utcnow() + timedelta(seconds=DRIVE_FOR)
        self.peers = tuple(self.drivers.alive(until))
        mine = self.drivers.renew(until)
        moves: dict[str, list[str]] = {}
        if len(self.peers) > 1:
            for table_id in sorted(mine):
                table = tables.get(table_id)
                if self.preferred(table_id) or (table is not None and self._busy(table)):
                    continue
                moves.setdefault(self.owner(table_id), []).append(table_id)
        handed = self.drivers.hand_over(moves, until) if moves else set()
        mine -= handed
        now = time.monotonic()
        for table_id in handed:
            self._asked[table_id] = now
        gained, lost = mine - self.driving, self.driving - mine
        self.driving = mine
        return gained, lost

    def _busy(self, table: LiveTable) -> bool:
        """Whether something of ``table`` runs here now (a timeout, its bots, a move)."""
        bots = table.bot_task
        return (
            bool(self._watch(table).busy)
            or (bots is not None and not bots.done())
            or table.lock.locked()
        )

    def stop(self) -> None:
        """This process stops: its leases and its row go (the others take over at once), and
        it takes none again."""
        self.stopped = True
        self.driving.clear()
        try:
            self.drivers.release()
            self.drivers.gone()
        except Exception:
            log.exception("letting the turn-based tables go failed")

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
                self.drivers.release([table.id])
            except Exception:  # (its lease runs out by itself)
                log.exception("letting table %s go failed", table.id)

    def close(self) -> None:
        super().close()
        self.stop()

    def due_many(self, table: LiveTable, keys: Mapping[int, int], now: float) -> dict[int, float]:
        if not turn_based(table.clock):
            return super().due_many(table, keys, now)
        mine = utcnow() + timedelta(seconds=self.seconds(table))
        try:
            round_ = table.game.round if table.game is not None else 0
            stood = self.book.pending(table.id, keys, mine, round_)
        except Exception:  # (the database is away: keep them in memory until it is back)
            log.exception("storing the deadlines of table %s failed", table.id)
            stood = {}
        wall, mono = utcnow(), time.monotonic()
        found = {}
        for seat in keys:
            at = stood.get(seat) or mine
            table.deadlines_at[seat] = at
            found[seat] = mono + (at - wall).total_seconds()
        return found

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
