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

A real-time table (a shorter clock) keeps today's deadlines in memory (:mod:`~.clock`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final, Protocol

from sqlalchemy import and_, delete, exists, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite

from gonuts.game import Game
from gonuts.server.kernel.db import Database, DeadlineRow, OutboxRow, SeatRow, TableRow, utcnow
from gonuts.server.play.clock import TURN_BASED, ClockHub, TurnClock
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
        self, table_id: str, seat: int, decision: int, due_at: datetime, round_: int = 0
    ) -> datetime | None:
        """``seat``'s decision ``decision`` is pending, due at ``due_at`` unless a row for it is
        there already (another process, before a restart): the due time that stands, or None
        if the row is for a later decision (this process is behind). A new decision also
        stores the seat's account's ``turn`` fact. Autocommitted statements, each safe when
        several processes run them at once."""
        with self.db.autocommit.connect() as c:
            new = c.execute(
                self._insert(DeadlineRow)
                .values(table_id=table_id, seat=seat, decision=decision, due_at=due_at)
                .returning(DeadlineRow.seat)
            ).first()
            if new is None:  # (RETURNING: psycopg's rowcount of ON CONFLICT is not 1)
                new = c.execute(
                    update(DeadlineRow)
                    .where(
                        DeadlineRow.table_id == table_id,
                        DeadlineRow.seat == seat,
                        DeadlineRow.decision < decision,
                    )
                    .values(decision=decision, due_at=due_at)
                    .returning(DeadlineRow.seat)
                ).first()
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

    def due(self, now: datetime, limit: int) -> list[tuple[str, int, int]]:
        """The deadlines passed by ``now``, earliest first, at most ``limit``: (table, seat,
        decision). An index range scan (``ix_gn_deadlines_due``)."""
        with self.db.autocommit.connect() as c:
            rows = c.execute(
                select(DeadlineRow.table_id, DeadlineRow.seat, DeadlineRow.decision)
                .where(DeadlineRow.due_at <= now)
                .order_by(DeadlineRow.due_at)
                .limit(limit)
            ).all()
        return [(r.table_id, r.seat, r.decision) for r in rows]

    def orphans(self, limit: int) -> list[str]:
        """Turn-based games being played with no deadline stored: bots to move, or a process
        stopped between a move and its next deadline. Someone must load them."""
        has_row = exists().where(DeadlineRow.table_id == TableRow.id)
        with self.db.autocommit.connect() as c:
            return list(
                c.scalars(
                    select(TableRow.id)
                    .where(and_(TableRow.status == "playing", TableRow.clock >= TURN_BASED))
                    .where(~has_row)
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
        hub.on_finished.append(self.finished)

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
