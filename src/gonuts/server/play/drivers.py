"""Which server process drives each turn-based table: leases in ``gn_table_drivers``.

One process drives a turn-based table: only it times the table's decisions out and moves its
bots (:class:`~gonuts.server.play.deadlines.DurableClock`). It holds the table's lease (a row:
its origin and until when, migration 0012), claimed by whoever makes, loads or moves the table
first when no other live process has it, renewed by its sweeper every :data:`RENEW_EVERY` s,
let go when the table leaves memory and at shutdown (the others take it over at once), and
taken by another process once it has run out (a process killed outright). The others may hold
the table too (its players' requests land anywhere): they apply their players' moves and
follow the driver's through the relay, but start no timer and no bot for it. The live
processes (``gn_processes``, renewed with the leases) share the tables out evenly: each table
falls to one of them (rendezvous hashing), and a process hands the idle tables that fall to
another over to it. Two processes used to time every decision out and move every bot twice,
one of each pair refused by the database, and could not keep up with 200 tables (issue 27's
soak, ``tests/web/test_turn_soak.py``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import datetime
from typing import Final

from sqlalchemy import delete, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from gonuts.server.kernel.db import Database, DriverRow, ProcessRow, utcnow

DRIVE_FOR: Final = 15.0
"""Seconds (real) a process's lease on a turn-based table runs: renewed every
:data:`RENEW_EVERY` while the process lives, let go at shutdown and when the table leaves
memory; a process killed outright holds its tables this long at most."""
RENEW_EVERY: Final = 5.0
DRIVE_RETRY: Final = 5.0
"""Seconds before a process that found a table driven by another asks again (on its own:
the sweeper asks every pass for the tables whose deadlines are due)."""


class DriverBook:
    """The SQL of ``gn_table_drivers`` and ``gn_processes``: one process's leases."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
        with self.db.bookkeeping.connect() as c:
            return {str(t) for t in c.scalars(claim)}

    def renew(self, until: datetime) -> set[str]:
        """Every lease of this process runs until ``until`` now: the tables it still drives
        (one that ran out and another process took is not among them)."""
        with self.db.bookkeeping.connect() as c:
            return {
                str(t)
                for t in c.scalars(
                    update(DriverRow)
                    .where(DriverRow.origin == self.origin)
                    .values(until=until)
                    .returning(DriverRow.table_id)
                )
            }

    def hand_over(self, moves: Mapping[str, Collection[str]], until: datetime) -> set[str]:
        """Give this process's leases of some tables to other processes (by origin): the
        tables handed over (the others pick them up when they renew, or when a deadline of
        theirs falls due)."""
        handed: set[str] = set()
        with self.db.bookkeeping.connect() as c:
            for origin, table_ids in sorted(moves.items()):
                if not table_ids:
                    continue
                handed |= {
                    str(t)
                    for t in c.scalars(
                        update(DriverRow)
                        .where(
                            DriverRow.origin == self.origin,
                            DriverRow.table_id.in_(sorted(table_ids)),
                        )
                        .values(origin=origin, until=until)
                        .returning(DriverRow.table_id)
                    )
                }
        return handed

    def alive(self, until: datetime) -> list[str]:
        """This process is alive until ``until``: every process alive now, by origin (this
        one among them)."""
        now = utcnow()
        dialect = postgresql if self.db.dialect == "postgresql" else sqlite
        insert = dialect.insert(ProcessRow).values(origin=self.origin, until=until)
        beat = insert.on_conflict_do_update(
            index_elements=[ProcessRow.origin], set_={"until": insert.excluded.until}
        )
        with self.db.bookkeeping.connect() as c:
            c.execute(beat)
            return sorted(
                str(o) for o in c.scalars(select(ProcessRow.origin).where(ProcessRow.until > now))
            )

    def gone(self) -> None:
        """This process stops (its row goes; the others share its tables out)."""
        with self.db.bookkeeping.connect() as c:
            c.execute(delete(ProcessRow).where(ProcessRow.origin == self.origin))

    def release(self, table_ids: Collection[str] | None = None) -> None:
        """Let these tables go (None: all of this process's): another process may take them
        at once."""
        where = [DriverRow.origin == self.origin]
        if table_ids is not None:
            if not table_ids:
                return
            where.append(DriverRow.table_id.in_(sorted(table_ids)))
        with self.db.bookkeeping.connect() as c:
            c.execute(delete(DriverRow).where(*where))
